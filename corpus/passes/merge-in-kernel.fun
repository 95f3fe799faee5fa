-- Merging inside a kernel body: each iteration builds two temporaries one after the
-- other (an iota and a replicate of length m); the second reuses the first's block.
-- fun-to-funmem gives 3 allocations (the result and two per-iteration temporaries);
-- merge leaves 2. The assume bounds m, so that expand can take both temporaries out of
-- the kernel (n * m elements, shown not to overflow).
def inner (n : i64) (m : i64) (xs : [n]i64) : ([n]i64) =
  assume 0 <= m && m <= 4096
  let (r : [n]i64) = kernel i < n do
    let (t1 : [m]i64) = iota m
    let z = 0
    let (s1 : i64) = loop (acc : i64) = (z) for j < m do
      let v = t1[j]
      let w = acc + v
      in (w)
    let x = xs[i]
    let (t2 : [m]i64) = replicate m x
    let (s2 : i64) = loop (acc : i64) = (z) for j < m do
      let v = t2[j]
      let w = acc + v
      in (w)
    let y = s1 + s2
    in (y)
  in (r)
-- input: n=4 m=3
-- expect: valid
