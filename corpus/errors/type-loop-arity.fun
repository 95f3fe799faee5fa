-- Two loop parameters but one initial value.
def f (n : i64) : (i64) =
  let (a : i64) (b : i64) = loop (x : i64) (y : i64) = (n) for i < n do
    in (x, y)
  in (a)
-- expect: error type
