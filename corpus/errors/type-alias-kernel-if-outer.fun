-- A kernel thread updating an if's result that is an array from outside the kernel:
-- every thread would write the same block (a race), so it is a type error, as for
-- consuming the outer array itself.
def main (n : i64) (c : bool) (xs : [4]i64) (ys : [4]i64) : ([n]i64) =
  let (r : [n]i64) = kernel i < n do
    let (a : [4]i64) = if c then in (xs) else in (ys)
    let (b : [4]i64) = a with [0] = i
    let (e : i64) = b[0]
    in (e)
  in (r)
-- input: n=3 c=true xs=[10, 11, 12, 13] ys=[0, 1, 2, 3]
-- expect: error type
