-- Futhark coalescing/if/if-neg-2.fut: the then branch reads x (at a place read from x
-- itself) after r is created, so r cannot be built in row n / 2 of x (Futhark: 2
-- allocations).
def main (n : i64) (x : [n][n]i32) (a : [n]i32) (b : [n]i32) : ([n][n]i32, i32) =
  assume n >= 1
  let (x00 : i32) = x[0, 0]
  let c = x00 > 0i32
  let (z : [n]i32) (s : i32) = if c then
      let (r : [n]i32) = kernel k < n do
        let (v : i32) = a[k]
        let w = v + 1i32
        in (w)
      let j = i64(x00)
      let (q : i32) = x[j, 0]
      in (r, q)
    else
      let (r2 : [n]i32) = kernel k < n do
        let (v : i32) = b[k]
        let w = v * 2i32
        in (w)
      let t = 2i32
      in (r2, t)
  let (x2 : [n][n]i32) = x with [n / 2] = z
  in (x2, s)
-- input: n=2 x=[[1, 2], [3, 4]] a=[1, 2] b=[3, 4]
-- expect: valid
-- expect: short-circuit 0
-- refuses: 6.4.3 non-overlap
