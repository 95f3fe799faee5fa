-- The same with the initial value as an update's value in the body: the value semantics
-- read the moved binding (a made-up size error in the source).
def main (xs : [4]i64) (ys : [4]i64) : ([4]i64) =
  let (a : [4]i64) = loop (p : [4]i64) = (xs) for j < 2 do
    let (p2 : [4]i64) = p with [0 : 4] = xs
    in (p2)
  in (a)
-- input: xs=[10, 11, 12, 13] ys=[0, 1, 2, 3]
-- expect: valid
-- refuses: creation point
