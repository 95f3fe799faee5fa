-- Futhark coalescing/safety-condition-5/neg0.fut: the row t0 goes to is read from t0
-- itself, so it is not known where t0 is created (Futhark: 1 allocation).
def main (n : i64) (ns : [n]i64) (t1 : [n][n]i64) (i0 : i64) : ([n][n]i64) =
  assume 0 <= i0 && i0 < n
  let (t0 : [n]i64) = kernel k < n do
    let (v : i64) = ns[k]
    let w = v + 1
    in (w)
  let (i1 : i64) = t0[i0]
  let (t2 : [n][n]i64) = t1 with [i1] = t0
  in (t2)
-- input: n=2 ns=[0, 1] t1=[[5, 5], [5, 5]] i0=0
-- expect: valid
-- expect: short-circuit 0
-- refuses: 6.4.2 index-function projection
