-- A loop swapping its parameters and updating one: the result for q is p's value, so
-- the next iteration updates the block p had, and the loop consumes both initial
-- values (xs and ys are dead after it).
def main (xs : [4]i64) (ys : [4]i64) : ([4]i64, [4]i64) =
  let (a : [4]i64) (b : [4]i64) = loop (p : [4]i64) (q : [4]i64) = (xs, ys) for j < 3 do
    let (v : i64) = p[0]
    let (w : i64) = v + j
    let (q2 : [4]i64) = q with [0] = w
    in (q2, p)
  in (a, b)
-- input: xs=[10, 11, 12, 13] ys=[0, 1, 2, 3]
-- expect: valid
