-- Futhark coalescing/map/map4.fut: each thread copies xs and updates the copy in a
-- sequential loop; the copy is built in the thread's row of the result, through the
-- loop that carries it in place (Futhark, GPU pipeline: 1 allocation).
def main (n : i64) (xs : [n]i64) : ([n][n]i64) =
  let (r : [n][n]i64) = kernel j < n do
    let (c : [n]i64) = copy xs
    let (res : [n]i64) = loop (acc : [n]i64) = (c) for i < n do
      let (v : i64) = acc[i]
      let w = v * i + j
      let (acc2 : [n]i64) = acc with [i] = w
      in (acc2)
    in (res)
  in (r)
-- input: n=3 xs=[7, 8, 9]
-- expect: valid
-- expect: short-circuit 1
