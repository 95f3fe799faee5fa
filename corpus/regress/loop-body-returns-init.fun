-- The loop body mentions its own initial value: the value semantics moved xs into the
-- loop (its last mention) and then read the dropped binding (a segmentation fault).
-- An initial value the body mentions is not moved.
def main (xs : [4]i64) : ([4]i64) =
  let (a : [4]i64) = loop (p : [4]i64) = (xs) for j < 2 do
    in (xs)
  in (a)
-- input: xs=[10, 11, 12, 13]
-- expect: valid
