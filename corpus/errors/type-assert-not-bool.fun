-- The condition of an assert is a bool.
def f (n : i64) : (i64) =
  assert n + 1 bounds
  in (n)
-- expect: error type
