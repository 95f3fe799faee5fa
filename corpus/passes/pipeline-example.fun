-- The pipeline example of the README: a per-row temporary inside a kernel (expand takes
-- its allocation out of the kernel) and a chain of temporaries of which the first is
-- dead when the third is built (merge puts the third in the first's block).
def example (n : i64) (m : i64) (xs : [n][m]i64) : ([n]i64) =
  let (a : [n]i64) = kernel i < n do
    let (row : [m]i64) = xs[i]
    let (sq : [m]i64) = kernel j < m do
      let x = row[j]
      let y = x * x
      in (y)
    let z = 0
    let (s : i64) = loop (acc : i64) = (z) for j < m do
      let v = sq[j]
      let w = acc + v
      in (w)
    in (s)
  let (b : [n]i64) = kernel i < n do
    let x = a[i]
    let y = x + 1
    in (y)
  let (c : [n]i64) = kernel i < n do
    let x = b[i]
    let y = x * 2
    in (y)
  let (d : [n]i64) = kernel i < n do
    let x = c[i]
    let y = x - 3
    in (y)
  in (d)
-- input: n=3 m=4
-- expect: valid
