-- A scratch of a negative size is a size error at the scratch in every stage: the heap
-- semantics checks the shape of the array it places (the allocation n * m before it may
-- be 1 or 0), and IMP asserts each size of the scratch's type.
def f (n : i64) (m : i64) : ([n][m]i64) =
  let (s : [n][m]i64) = scratch
  in (s)
-- input: n=-1 m=-1
-- input: n=0 m=-1
-- input: n=-1 m=0
-- expect: error size
