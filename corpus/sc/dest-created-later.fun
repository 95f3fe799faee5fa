-- The destination t1 is created after the source t0 (its replicate would overwrite
-- t0): t1's allocation and replicate, which cannot fail, move above t0's creation and
-- t0 is built in t1's first n elements.
def later (n : i64) (m : i64) (xs : [n]f32) : ([m]f32) =
  assume n <= m
  let (t0 : [n]f32) = kernel k < n do
    let (v : f32) = xs[k]
    let w = v * 2.0f32
    in (w)
  let (t1 : [m]f32) = replicate m 0.0f32
  let (t2 : [m]f32) = t1 with [0 : n] = t0
  in (t2)
-- input: n=3 m=5 xs=[1.0f32, 2.0f32, 3.0f32]
-- expect: valid
-- expect: short-circuit 1
