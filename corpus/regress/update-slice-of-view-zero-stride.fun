-- A slice update of a view with the stride s (0 on one data set), its value made by a
-- kernel: the place's two cells are one with s = 0 (a race in to-imp's parallel copy
-- before fun-to-funmem copied such a view first).
def main (s : i64) (xs : [8]i64) (ys : [2]i64) : ([4]i64) =
  assume 0 <= s && s <= 1
  let (v : [4]i64) = xs[0 : 4 : s]
  let (x : [2]i64) = kernel i < 2 do
    let (t : i64) = ys[i]
    let u = t + 100
    in (u)
  let (w : [4]i64) = v with [1 : 2] = x
  in (w)
-- input: s=1 xs=[10, 11, 12, 13, 14, 15, 16, 17] ys=[1, 2]
-- input: s=0 xs=[10, 11, 12, 13, 14, 15, 16, 17] ys=[1, 2]
-- expect: valid
-- refuses: 6.4.3 non-overlap
