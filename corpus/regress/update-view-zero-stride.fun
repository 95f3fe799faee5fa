-- A view with the stride s, 0 on one data set: its four elements are all xs[0] = 10,
-- and w = v with [1] = 5 is [10, 5, 10, 10]. Updated in place through the view (the
-- value semantics, and fun-to-funmem's layout), w[0] became 5.
def main (s : i64) (xs : [8]i64) : ([4]i64) =
  let (v : [4]i64) = xs[0 : 4 : s]
  let (w : [4]i64) = v with [1] = 5
  let (a0 : i64) = w[0]
  assume a0 == 10
  in (w)
-- input: s=0 xs=[10, 11, 12, 13, 14, 15, 16, 17]
-- input: s=1 xs=[10, 11, 12, 13, 14, 15, 16, 17]
-- expect: valid
