-- Futhark coalescing/if/if-neg-3.fut: the else branch returns b, created before the
-- if and read in the then branch after y0 is created; with both in x[0], that read
-- would see y0, so nothing is built there (Futhark: 2 allocations).
def main (n : i64) (cond : bool) (x : [n][n]i32) (a : [n]i32) : ([n][n]i32, i32) =
  assume n >= 1
  let (b : [n]i32) = kernel k < n do
    let (v : i32) = a[k]
    let w = v + 1i32
    in (w)
  let (y : [n]i32) (r : i32) = if cond then
      let (y0 : [n]i32) = kernel k < n do
        let (v : i32) = a[k]
        let w = v + 1i32
        in (w)
      let (b0 : i32) = b[0]
      in (y0, b0)
    else
      let z = 0i32
      in (b, z)
  let (x2 : [n][n]i32) = x with [0] = y
  in (x2, r)
-- input: n=2 cond=true x=[[9, 9], [9, 9]] a=[1, 4]
-- input: n=2 cond=false x=[[9, 9], [9, 9]] a=[1, 4]
-- expect: valid
-- expect: short-circuit 0
-- refuses: 6.4.3 non-overlap
