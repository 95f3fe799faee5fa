-- A row update whose index is one past the end: fun-to-funmem gives x its own block,
-- sc refuses to build x inside ys (the place is not provably inside), and the program
-- still ends in the update's bounds error.
def oob (m : i64) (n : i64) (i : i64) (ys0 : [m][n]i64) : ([m][n]i64) =
  let (x : [n]i64) = iota n
  let (ys : [m][n]i64) = ys0 with [i] = x
  in (ys)
-- input: m=3 n=4 i=3
-- expect: error bounds
-- refuses: bounds
