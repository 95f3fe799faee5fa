-- Integer division by zero.
def div0 (a : i64) (d : i64) : (i64) =
  let b = a / d
  in (b)
-- input: a=7 d=0
-- expect: error division
