-- NN's shape (thesis 6.8.7): distances to every point by a map, then a loop over the k
-- queries, each finding the nearest remaining point with a sequential reduction and
-- writing its (index, distance) pair into the result row. sc builds each pair directly
-- in its row of the loop's result.
def nn (k : i64) (npts : i64) (xs : [npts]i64) (ys : [npts]i64) (qx : i64) (qy : i64) : ([k][2]i64) =
  assume k >= 1 && npts >= 1
  let (dist : [npts]i64) = kernel i < npts do
    let (x : i64) = xs[i]
    let (y : i64) = ys[i]
    let dx = x - qx
    let dy = y - qy
    let d = dx * dx + dy * dy
    in (d)
  let (zero2 : [2]i64) = replicate 2 0
  let (res0 : [k][2]i64) = replicate k zero2
  let (res : [k][2]i64) = loop (acc : [k][2]i64) = (res0) for t < k do
    let big = 1000000000
    let z = 0
    let (bi : i64) (bd : i64) = loop (ci : i64) (cd : i64) = (z, big) for j < npts do
      let (dj : i64) = dist[j]
      let better = dj + t > cd
      let ni = select(better, ci, j)
      let nd = select(better, cd, dj + t)
      in (ni, nd)
    let (pair : [2]i64) = kernel e < 2 do
      let v = select(e == 0, bi, bd)
      in (v)
    let (acc2 : [k][2]i64) = acc with [t] = pair
    in (acc2)
  in (res)
-- input: k=3 npts=5 qx=1 qy=2
-- input: k=1 npts=1 qx=0 qy=0
-- expect: valid
-- expect: short-circuit 1
