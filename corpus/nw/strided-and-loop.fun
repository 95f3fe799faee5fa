-- Strided slices, a sequential loop carrying an array (its initial value is a copy:
-- the loop consumes it), concat, replicate and copy.
def strided (n : i64) (xs : [2*n]f32) : ([3*n]f32, f32) =
  let (evens : [n]f32) = xs[0 : n : 2]
  let (odds : [n]f32) = xs[1 : n : 2]
  let (e0 : [n]f32) = copy evens
  let (acc : [n]f32) = loop (a : [n]f32) = (e0) for k < n do
    let (o : f32) = odds[k]
    let (e : f32) = a[k]
    let s = e + o
    let (a2 : [n]f32) = a with [k] = s
    in (a2)
  let (zs : [n]f32) = replicate n 0.5f32
  let (both : [2*n]f32) = concat acc zs
  let (ev2 : [n]f32) = copy evens
  let (all : [3*n]f32) = concat both ev2
  let (first : f32) = all[0]
  in (all, first)
-- input: n=3 xs=[1.0f32, 2.0f32, 3.0f32, 4.0f32, 5.0f32, 6.0f32]
-- expect: valid
-- expect: short-circuit 4
