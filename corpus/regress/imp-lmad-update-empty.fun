-- An LMAD update of an empty array: the source stops at the LMAD with a bounds error;
-- IMP asserts the LMAD's extent there too, not only the block at the write.
def fuzz (n : i64) (m : i64) : ([n]i64) =
  let (a2 : [n * m]i64) = replicate (n * m) 0
  let (a4 : [n]i64) = replicate n 0
  let (a5 : [n * m]i64) = a2 with [0 + {(n : m)}] = a4
  in (a4)
-- input: n=2 m=0
-- input: n=3 m=0
-- expect: error bounds
-- refuses: last use
