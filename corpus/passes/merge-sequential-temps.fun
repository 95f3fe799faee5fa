-- Block merging (thesis ch. 5): `a` is dead after the loop that sums it, so `b` can be
-- built in a's block. `c` is a result and keeps its own block. fun-to-funmem gives 3
-- allocations; merge leaves 2.
def temps (n : i64) (xs : [n]i64) : (i64, [n]i64) =
  let (a : [n]i64) = kernel i < n do
    let x = xs[i]
    let y = x * 2
    in (y)
  let z = 0
  let (s : i64) = loop (acc : i64) = (z) for i < n do
    let v = a[i]
    let w = acc + v
    in (w)
  let (b : [n]i64) = kernel i < n do
    let x = xs[i]
    let y = x + s
    in (y)
  let (c : [n]i64) = kernel i < n do
    let x = b[i]
    let y = x - 1
    in (y)
  in (s, c)
-- input: n=5
-- input: n=1 xs=[7]
-- expect: valid
