-- A 1-D stencil over two inputs: each iteration reads a at offsets -2 and +2 and b at
-- offsets 0 and +1, so `funmem-cuda --comprehensive` caches two tiles (B*s + 4 and
-- B*s + 1 cells) one after the other in shared memory; the edges read no neighbour.
def stencil (n : i64) (a : [n]i64) (b : [n]i64) : ([n]i64) =
  let (r : [n]i64) = kernel i < n do
    let inner = i >= 2 && i + 2 < n
    let (v : i64) = if inner then
        let x = a[i - 2]
        let y = a[i + 2]
        let z = b[i]
        let w = b[i + 1]
        let u = x - y + z * w
        in (u)
      else
        let z = b[i]
        in (z)
    in (v)
  in (r)
-- input: n=1
-- input: n=5
-- input: n=1000
-- input: n=4099
-- expect: valid
