-- An if returning the same array twice: a and b both alias xs and ys, so updating a
-- consumes b too, and using b afterwards is a type error (as in Futhark): in place, the
-- update of a would change b. regress/if-results-same-array-copy.fun copies b first.
def main (c : bool) (xs : [4]i64) (ys : [4]i64) : ([4]i64, [4]i64) =
  let (a : [4]i64) (b : [4]i64) = if c then in (xs, xs) else in (ys, ys)
  let (a2 : [4]i64) = a with [0] = 99
  in (a2, b)
-- input: c=true xs=[10, 11, 12, 13] ys=[0, 1, 2, 3]
-- expect: error type
