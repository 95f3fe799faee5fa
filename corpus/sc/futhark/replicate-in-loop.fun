-- Futhark coalescing/loop/replicate-in-loop.fut: the loop's result lives in a block
-- the loop allocates anew each iteration, so it is not built in a3 (Futhark: 2
-- allocations).
def main (n : i64) (a0 : [n]i32) (n_iter : i64) : ([n]i32) =
  let (a2 : [n]i32) = loop (a : [n]i32) = (a0) for t < n_iter do
    let (b0 : [n]i32) = replicate n 0i32
    let (a3 : [n]i32) = loop (b : [n]i32) = (b0) for j < n do
      let (v : i32) = a[j]
      let w = v + 1i32
      let (b2 : [n]i32) = b with [j] = w
      in (b2)
    in (a3)
  let (r : [n]i32) = copy a2
  in (r)
-- input: n=2 a0=[3, 6] n_iter=2
-- expect: valid
-- expect: short-circuit 0
-- refuses: creation point
