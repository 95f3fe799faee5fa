-- Blocks holding different element types never merge: t1 (i64) and t3 (i64) share a
-- block, t2 (f32) keeps its own although its life does not overlap t1's.
-- fun-to-funmem gives 4 allocations (three temporaries and the result); merge leaves 3.
def typed (n : i64) (xs : [n]i64) : ([n]i64) =
  let (t1 : [n]i64) = kernel i < n do
    let x = xs[i]
    let y = x * 3
    in (y)
  let a = t1[0]
  let (t2 : [n]f32) = kernel i < n do
    let x = xs[i]
    let y = f32(x)
    in (y)
  let b = t2[0]
  let (t3 : [n]i64) = kernel i < n do
    let x = xs[i]
    let y = x + a
    in (y)
  let c = i64(b)
  let (r : [n]i64) = kernel i < n do
    let x = t3[i]
    let y = x + c
    in (y)
  in (r)
-- input: n=3
-- expect: valid
