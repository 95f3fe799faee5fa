-- An assumption is a bool expression.
def f (n : i64) : (i64) =
  assume n + 1
  in (n)
-- expect: error type
