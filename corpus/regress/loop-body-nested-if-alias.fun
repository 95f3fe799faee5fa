-- A loop body returning (t2, w) with w an if's result that is t2: w is copied, or the
-- next iteration's update of p (in t2's block) would change what q[1] reads.
def main (c : bool) (xs : [4]i64) (ys : [4]i64) : ([4]i64, [4]i64) =
  let (a : [4]i64) (b : [4]i64) = loop (p : [4]i64) (q : [4]i64) = (xs, ys) for j < 3 do
    let (p2 : [4]i64) = p with [1] = 77
    let (x : i64) = q[1]
    let (t : [4]i64) = copy p2
    let (t2 : [4]i64) = t with [j] = x
    let (w : [4]i64) = if c then in (t2) else in (t2)
    in (t2, w)
  in (a, b)
-- input: c=true xs=[10, 11, 12, 13] ys=[0, 1, 2, 3]
-- expect: valid
-- refuses: creation point
-- refuses: creation point
