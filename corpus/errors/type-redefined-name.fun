-- Names are bound once while in scope (no shadowing).
def f (n : i64) : (i64) =
  let x = n + 1
  let x = n + 2
  in (x)
-- expect: error type
