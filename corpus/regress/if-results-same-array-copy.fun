-- An if returning the same array twice, with b copied before a is updated: the copy
-- has its own root, so it stays usable, and fun-to-funmem gives the second result of
-- each branch its own block (a and b never share cells).
def main (c : bool) (xs : [4]i64) (ys : [4]i64) : ([4]i64, [4]i64) =
  let (a : [4]i64) (b : [4]i64) = if c then in (xs, xs) else in (ys, ys)
  let (b2 : [4]i64) = copy b
  let (a2 : [4]i64) = a with [0] = 99
  in (a2, b2)
-- input: c=true xs=[10, 11, 12, 13] ys=[0, 1, 2, 3]
-- input: c=false
-- expect: valid
