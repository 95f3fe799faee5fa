-- The condition of if must be bool.
def f (n : i64) : (i64) =
  let (r : i64) = if n then
    in (n)
  else
    in (n)
  in (r)
-- expect: error type
