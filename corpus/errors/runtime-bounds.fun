-- Index n of an array of n elements.
def oob (n : i64) (xs : [n]i64) : (i64) =
  let x = xs[n]
  in (x)
-- input: n=4
-- expect: error bounds
