-- A kernel of no thread whose type has a negative row size ([0][-1]) is a size error at
-- the kernel, as in the source: the heap semantics checks the shape it places, IMP
-- asserts the type's inner sizes when the kernel has no thread.
def f (n : i64) (m : i64) : ([n][m]i64) =
  let (r : [n][m]i64) = kernel i < n do
    let (z : [m]i64) = replicate m i
    in (z)
  in (r)
-- input: n=0 m=-1
-- input: n=0 m=2
-- input: n=2 m=2
-- expect: error size
-- refuses: bounds
