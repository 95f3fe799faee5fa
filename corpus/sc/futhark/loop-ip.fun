-- Futhark coalescing/loop/loop-ip.fut: a0 (a copy of a), the loop that updates it in
-- place and its result are all built in row n / 2 of y (Futhark: 0 allocations, "1
-- mem-block coalescing, 4 coalesced variables").
def main (n : i64) (m : i64) (y : [n][m]i32) (a : [m]i32) : ([n][m]i32) =
  assume n >= 1 && m >= 2
  let nine = 9i32
  let (y1 : [n][m]i32) = y with [0, 1] = nine
  let (a0 : [m]i32) = copy a
  let (a1 : [m]i32) = loop (b : [m]i32) = (a0) for i < m do
    let (v : i32) = b[i]
    let w = i32(i) + v
    let (b2 : [m]i32) = b with [i] = w
    in (b2)
  let (y2 : [n][m]i32) = y1 with [n / 2] = a1
  in (y2)
-- input: n=2 m=2 y=[[1, 2], [3, 4]] a=[1, 2]
-- expect: valid
-- expect: short-circuit 1
