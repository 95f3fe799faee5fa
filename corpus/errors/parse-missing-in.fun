-- A body without its `in (...)` result.
def f (n : i64) : (i64) =
  let x = n + 1
-- expect: error parse
