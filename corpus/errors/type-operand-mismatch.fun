-- No implicit conversions: i64 + f64 is an error.
def f (n : i64) : (f64) =
  let x = n + 1.0
  in (x)
-- expect: error type
