-- expand writes the rows' layout with the normal form (a*c - b*c)/c of the size
-- ((a-b)*c)/c: a layout's counts are sizes, its strides addresses, both exact inside /.
-- refuses: 6.4.2 index-function projection
def f (a : i64) (b : i64) (c : i64) (m : i64) : ([m][((a-b)*c)/c]i64) =
  let n = ((a-b)*c)/c
  assume n >= 0
  assume m >= 0
  assume n <= 100
  assume m <= 100
  let (s : [m][((a-b)*c)/c]i64) = kernel i < m do
    let (q : [((a-b)*c)/c]i64) = kernel j < n do
      let w = j + i
      in (w)
    in (q)
  in (s)
-- input: a=4611686018427387904 b=4611686018427387903 c=5 m=3
-- expect: valid
