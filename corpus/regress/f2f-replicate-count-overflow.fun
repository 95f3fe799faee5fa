-- fun-to-funmem's allocation for a replicate computes the replicate's own count, so an
-- overflow of the count ends every stage at the count (7:34), where the source's
-- overflow is (as a resource error: an allocation size that overflows); computed from
-- the binding's type it ended the lowered program at the type's product (7:13).
def f (a : i64) (b : i64) : ([a*b]i64) =
  assume a >= 0 && b >= 0
  let (d : [a*b]i64) = replicate (a*b) 0
  in (d)
-- input: a=4294967296 b=4294967296
-- input: a=3 b=2
-- expect: error overflow
