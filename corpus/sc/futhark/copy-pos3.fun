-- Futhark coalescing/copy/pos3.fut: t1 is read (k = t1[0, 1]) before t0 is created,
-- so t0 can still be built in row i of t1 (Futhark: coalesced in seq-mem); each row
-- of the nested map is built in place too.
def main (n : i64) (i : i64) (ns : [n]i32) (mss : [n][n]i32) : ([n][n]i32) =
  assume 0 <= i && i < n && n >= 2
  let (t1 : [n][n]i32) = kernel a < n do
    let (row : [n]i32) = kernel b < n do
      let (m : i32) = mss[a, b]
      let w = m + 1i32
      in (w)
    in (row)
  let (k : i32) = t1[0, 1]
  let (t0 : [n]i32) = kernel c < n do
    let (v : i32) = ns[c]
    let w = v + k
    in (w)
  let (t2 : [n][n]i32) = t1 with [i] = t0
  in (t2)
-- input: n=3 i=1 ns=[6, 0, 7] mss=[[-1, 0, 1], [-1, 0, 1], [-1, 0, 1]]
-- expect: valid
-- expect: short-circuit 2
