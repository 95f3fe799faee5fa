-- An LMAD update of a view with the stride s: with s = 0 the place s + {(2 : s)} sends
-- both elements to one cell. to-imp tested only the update's own LMAD {(2 : 1)} and made
-- a parallel kernel (a race); fun-to-funmem now copies the view to a row-major array
-- first, so the place has distinct cells.
def main (s : i64) (xs : [8]i64) : ([4]i64) =
  let (v : [4]i64) = xs[0 : 4 : s]
  let (y : [2]i64) = iota 2
  let (w : [4]i64) = v with [1 + {(2 : 1)}] = y
  in (w)
-- input: s=1 xs=[10, 11, 12, 13, 14, 15, 16, 17]
-- input: s=0 xs=[10, 11, 12, 13, 14, 15, 16, 17]
-- expect: valid
-- refuses: 6.4.3 non-overlap
