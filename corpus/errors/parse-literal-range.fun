-- An i32 literal that does not fit in 32 bits.
def f (n : i64) : (i32) =
  let x = 3000000000i32
  in (x)
-- expect: error parse
