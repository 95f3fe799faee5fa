-- Futhark coalescing/concat/pos2.fut: a1 and b1 are built in z, and z in row 0 of
-- the parameter y (Futhark: 0 allocations).
def main (n : i64) (m : i64) (k : i64) (y : [n][m + k]i32) (a : [m]i32) (b : [k]i32) : ([n][m + k]i32) =
  assume n >= 1
  let (a1 : [m]i32) = kernel e < m do
    let (v : i32) = a[e]
    let w = v + 1i32
    in (w)
  let (b1 : [k]i32) = kernel e < k do
    let (v : i32) = b[e]
    let w = v + 1i32
    in (w)
  let (z : [m + k]i32) = concat a1 b1
  let (y2 : [n][m + k]i32) = y with [0] = z
  in (y2)
-- input: n=2 m=2 k=2 y=[[1, 1, 1, 1], [1, 1, 1, 1]] a=[3, 7] b=[8, 9]
-- expect: valid
-- expect: short-circuit 3
