-- A name used but never bound.
def f (n : i64) : (i64) =
  let x = m + 1
  in (x)
-- expect: error type
