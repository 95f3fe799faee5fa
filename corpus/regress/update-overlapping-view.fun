-- A view whose rows overlap (v = [[x0, x1, x2], [x1, x2, x3]]), updated: the new array
-- changes row 0 only, so w[1, 0] is still x1 = 11. The value semantics took the dead
-- view's block and wrote in place, changing row 1 through the shared cells; it now
-- updates in place only a layout whose cells are distinct (`ConcreteLmad::nested`), and
-- fun-to-funmem copies such a view to a row-major array before updating it.
def main (xs : [8]i64) (z : [3]i64) : ([2][3]i64) =
  let (v : [2][3]i64) = xs[0 + {(2 : 1), (3 : 1)}]
  let (w : [2][3]i64) = v with [0] = z
  let (a : i64) = w[1, 0]
  assume a == 11
  in (w)
-- input: xs=[10, 11, 12, 13, 14, 15, 16, 17] z=[0, 1, 2]
-- expect: valid
-- refuses: creation point
