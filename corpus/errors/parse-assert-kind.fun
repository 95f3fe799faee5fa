-- An assert needs an error kind it can end the run with.
def f (n : i64) : (i64) =
  assert n > 0 positive
  in (n)
-- expect: error parse
