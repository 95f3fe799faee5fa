-- Two loop parameters start from the same array: fun-to-funmem gave both its block, so
-- updating p in place changed q (b[0] = 99 where it is 10). An initial value in the
-- block of an earlier one, or of a name the body mentions, is copied first.
def main (xs : [4]i64) : ([4]i64, [4]i64) =
  let (a : [4]i64) (b : [4]i64) = loop (p : [4]i64) (q : [4]i64) = (xs, xs) for j < 2 do
    let (p2 : [4]i64) = p with [j] = 99
    in (p2, q)
  in (a, b)
-- input: xs=[10, 11, 12, 13]
-- expect: valid
