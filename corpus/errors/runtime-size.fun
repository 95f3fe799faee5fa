-- A negative count at run time.
def neg (k : i64) : ([k]i64) =
  let (r : [k]i64) = replicate k 0
  in (r)
-- input: k=-3
-- expect: error size
