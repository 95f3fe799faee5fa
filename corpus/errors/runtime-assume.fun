-- A failed assume.
def big (n : i64) : (i64) =
  assume n > 10
  let m = n + 1
  in (m)
-- input: n=4
-- expect: error assume
