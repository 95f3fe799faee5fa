-- fun-to-funmem corner cases: an `if` returning a view in one branch and a fresh array
-- in the other (the view is copied to row-major in its branch), a loop whose initial
-- value is a transposed view (copied before the loop), a loop carrying a matrix
-- updated row by row, replicate of an array, scratch, and an LMAD-slice update. The
-- loop consumes t, so every alias of xs, r included, is dead after it.
def corner (n : i64) (c : bool) (xs : [n][n]i64) : ([n]i64, [n][n]i64, [n][n]i64, [n]i64) =
  let (r : [n]i64) = if c then
      let (col : [n]i64) = xs[0 : n, 0]
      in (col)
    else
      let (k : [n]i64) = iota n
      in (k)
  let (rep : [n][n]i64) = replicate n r
  let (t : [n][n]i64) = transpose xs
  let (m : [n][n]i64) = loop (a : [n][n]i64) = (t) for i < n do
    let (row : [n]i64) = a[i]
    let (dbl : [n]i64) = kernel j < n do
      let v = row[j]
      let w = v * 2
      in (w)
    let (a2 : [n][n]i64) = a with [i] = dbl
    in (a2)
  let (s : [n]i64) = scratch
  let (z : [n]i64) = replicate n 0
  let (s2 : [n]i64) = s with [0 : n] = z
  let (flat : [n * n]i64) = iota n * n
  let (d : [n]i64) = flat[0 + {(n : n + 1)}]
  let (dc : [n]i64) = copy d
  let (f2 : [n * n]i64) = flat with [0 + {(n : n + 1)}] = s2
  let (u : i64) = f2[1]
  let (r2 : [n]i64) = dc with [0] = u
  in (r2, m, rep, s2)
-- input: n=3 c=true xs=iota
-- input: n=4 c=false
-- expect: valid
-- expect: short-circuit 2
-- refuses: last use
