-- A loop that updates its parameter and returns an array from outside the body as its
-- next value: the second iteration would update ys in place while ys is live, so it
-- is a type error (copy ys).
def main (xs : [4]i64) (ys : [4]i64) : ([4]i64, [4]i64) =
  let (a : [4]i64) = loop (p : [4]i64) = (xs) for j < 2 do
    let (p2 : [4]i64) = p with [j] = 7
    let (e : i64) = p2[0]
    in (ys)
  in (a, ys)
-- input: xs=[10, 11, 12, 13] ys=[0, 1, 2, 3]
-- expect: error type
