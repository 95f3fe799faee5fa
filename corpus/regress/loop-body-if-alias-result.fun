-- A loop body returning (p2, r) with r = if j == 0 then p2 else q: r may be p2, so
-- fun-to-funmem copies it (a common root); in one block, the next iteration's update
-- of p would change q.
def main (c : bool) (xs : [4]i64) (ys : [4]i64) : ([4]i64, [4]i64) =
  let (a : [4]i64) (b : [4]i64) = loop (p : [4]i64) (q : [4]i64) = (xs, ys) for j < 3 do
    let (p2 : [4]i64) = p with [j] = 50
    let (r : [4]i64) = if j == 0 then in (p2) else in (q)
    in (p2, r)
  in (a, b)
-- input: c=true xs=[10, 11, 12, 13] ys=[0, 1, 2, 3]
-- expect: valid
-- refuses: creation point
