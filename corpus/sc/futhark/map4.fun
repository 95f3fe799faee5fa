-- Futhark coalescing/map/map4.fut: each thread j copies xs and updates the copy in a
-- sequential loop. One point: the kernel's result acc is built in row j of r, and with
-- it the loop's parameter and the copy c it starts from (Futhark: 1 allocation in the
-- GPU pipeline, the result's). The
-- loop passes its memory on unchanged, so the lowered code reads and writes row j of r
-- directly, and funmem-cuda's translation validation follows it.
def main (n : i64) (xs : [n]i64) : ([n][n]i64) =
  let (r : [n][n]i64) = kernel j < n do
    let (c : [n]i64) = copy xs
    let (acc : [n]i64) = loop (a : [n]i64) = (c) for i < n do
      let (v : i64) = a[i]
      let w = v * i + j
      let (a2 : [n]i64) = a with [i] = w
      in (a2)
    in (acc)
  in (r)
-- input: n=3 xs=[7, 8, 9]
-- input: n=1 xs=[5]
-- input: n=0 xs=[]
-- expect: valid
-- expect: short-circuit 1
