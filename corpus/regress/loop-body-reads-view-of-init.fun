-- The loop body reads a view of its initial value while updating the parameter: in
-- xs's block, the updates changed what v reads (the value semantics reads the old xs).
def main (xs : [4]i64) : ([4]i64) =
  let (v : [4]i64) = xs[0 : 4 : 1]
  let (a : [4]i64) = loop (p : [4]i64) = (xs) for j < 3 do
    let (t : i64) = v[j]
    let u = t + 100
    let (p2 : [4]i64) = p with [j + 1] = u
    in (p2)
  in (a)
-- input: xs=[10, 11, 12, 13]
-- expect: valid
