-- An if returning arrays from outside it: its result aliases both, so updating it
-- consumes xs and ys, and using ys afterwards is a type error.
def main (c : bool) (xs : [4]i64) (ys : [4]i64) : ([4]i64, [4]i64) =
  let (a : [4]i64) = if c then in (xs) else in (ys)
  let (a2 : [4]i64) = a with [0] = 99
  in (a2, ys)
-- input: c=false xs=[10, 11, 12, 13] ys=[0, 1, 2, 3]
-- expect: error type
