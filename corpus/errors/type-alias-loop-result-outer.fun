-- A loop whose body returns an array from outside it: its result may be ys at run
-- time (it lives in ys's block), so updating it consumes ys, and using ys afterwards is
-- a type error. In place, the update would have changed ys.
def main (xs : [4]i64) (ys : [4]i64) : ([4]i64, [4]i64) =
  let (a : [4]i64) = loop (p : [4]i64) = (xs) for j < 2 do
    in (ys)
  let (a2 : [4]i64) = a with [0] = 99
  in (a2, ys)
-- input: xs=[10, 11, 12, 13] ys=[0, 1, 2, 3]
-- expect: error type
