-- Futhark coalescing/map/map0.fut: xs = map (+1) xss[i] is built in row i: thread k
-- reads only the element it writes (Futhark: 0 allocations).
def main (n : i64) (xss : [n][n]i32) (i : i64) : ([n][n]i32) =
  assume 0 <= i && i < n
  let (row : [n]i32) = xss[i]
  let (xs : [n]i32) = kernel k < n do
    let (v : i32) = row[k]
    let w = v + 1i32
    in (w)
  let (xss2 : [n][n]i32) = xss with [i] = xs
  in (xss2)
-- input: n=3 xss=[[1, 2, 3], [4, 5, 6], [7, 8, 9]] i=1
-- expect: valid
-- expect: short-circuit 1
