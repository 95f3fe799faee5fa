-- Futhark coalescing/map/map7.fut: as map1 with row i - 1 (Futhark: 0 allocations).
def main (n : i64) (xss : [n][n]i32) (i : i64) : ([n][n]i32) =
  assume 1 <= i && i < n
  let (r0 : [n]i32) = xss[i]
  let (r1 : [n]i32) = xss[i - 1]
  let (xs : [n]i32) = kernel k < n do
    let (a : i32) = r0[k]
    let (b : i32) = r1[k]
    let w = a + b
    in (w)
  let (xss2 : [n][n]i32) = xss with [i] = xs
  in (xss2)
-- input: n=3 xss=[[1, 2, 3], [4, 5, 6], [7, 8, 9]] i=1
-- expect: valid
-- expect: short-circuit 1
