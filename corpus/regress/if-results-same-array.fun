-- An if returning the same array twice: both results shared its block, and updating
-- a in place changed b. A branch result in the block of an earlier result is copied.
def main (c : bool) (xs : [4]i64) (ys : [4]i64) : ([4]i64, [4]i64) =
  let (a : [4]i64) (b : [4]i64) = if c then in (xs, xs) else in (ys, ys)
  let (a2 : [4]i64) = a with [0] = 99
  in (a2, b)
-- input: c=true xs=[10, 11, 12, 13] ys=[0, 1, 2, 3]
-- expect: valid
