-- Two initial values, xs and w, where w is an if's result that is xs at run time: the
-- body updates p and reads q, so the second initial value is copied (a common root).
def main (c : bool) (xs : [4]i64) : ([4]i64) =
  let (w : [4]i64) = if c then in (xs) else in (xs)
  let (a : [4]i64) (b : [4]i64) = loop (p : [4]i64) (q : [4]i64) = (xs, w) for j < 3 do
    let (t : i64) = q[j]
    let (u : i64) = t + 100
    let (p2 : [4]i64) = p with [j + 1] = u
    in (p2, q)
  in (a)
-- input: c=true xs=[10, 11, 12, 13]
-- expect: valid
-- refuses: creation point
