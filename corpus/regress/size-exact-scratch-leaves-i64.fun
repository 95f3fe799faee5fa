-- A type's size n * m whose exact value leaves i64 (3 * 6148914691236517206) is a
-- resource error in the source, not a size wrapped to 2; the allocation before the
-- scratch evaluates the same size and ends alike. (An outside review's probe.)
def f (n : i64) (m : i64) : ([n*m]i64) =
  let (xs : [n*m]i64) = scratch
  in (xs)
-- input: n=3 m=6148914691236517206
-- input: n=3 m=2
-- expect: error resource
