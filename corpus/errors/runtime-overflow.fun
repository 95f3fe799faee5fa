-- i64 overflow in an addition.
def ovf (a : i64) : (i64) =
  let b = a + 1
  in (b)
-- input: a=9223372036854775807
-- expect: error overflow
