-- A loop swapping its parameters and updating one consumes both initial values: xs is
-- used after it, a type error (in place, the loop would have changed xs).
def main (xs : [4]i64) (ys : [4]i64) : ([4]i64, [4]i64) =
  let (a : [4]i64) (b : [4]i64) = loop (p : [4]i64) (q : [4]i64) = (xs, ys) for j < 3 do
    let (v : i64) = p[0]
    let (w : i64) = v + j
    let (q2 : [4]i64) = q with [0] = w
    in (q2, p)
  let (c : i64) = xs[0]
  let (a2 : [4]i64) = a with [1] = c
  in (a2, b)
-- input: xs=[10, 11, 12, 13] ys=[0, 1, 2, 3]
-- expect: error type
