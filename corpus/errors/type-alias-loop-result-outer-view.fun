-- A loop whose body returns a view of an array from outside it: the result aliases ys
-- (the view shares its root), so updating it consumes ys.
def main (xs : [4]i64) (ys : [8]i64) : ([4]i64, [8]i64) =
  let (a : [4]i64) = loop (p : [4]i64) = (xs) for j < 2 do
    let (v : [4]i64) = ys[0 : 4 : 1]
    in (v)
  let (a2 : [4]i64) = a with [0] = 99
  in (a2, ys)
-- input: xs=[10, 11, 12, 13] ys=[0, 1, 2, 3, 4, 5, 6, 7]
-- expect: error type
