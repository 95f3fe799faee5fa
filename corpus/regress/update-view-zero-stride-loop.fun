-- The same through a loop: the loop's initial value is the view with the stride s; the
-- value semantics updated the view in place from the first iteration (w[0] = 5 with
-- s = 0, where it is xs[0] = 10), and blamed every correct stage.
def main (s : i64) (xs : [8]i64) : ([4]i64) =
  let (v : [4]i64) = xs[0 : 4 : s]
  let (w : [4]i64) = loop (acc : [4]i64) = (v) for j < 1 do
    let (acc2 : [4]i64) = acc with [1] = 5
    in (acc2)
  in (w)
-- input: s=1 xs=[10, 11, 12, 13, 14, 15, 16, 17]
-- input: s=0 xs=[10, 11, 12, 13, 14, 15, 16, 17]
-- expect: valid
