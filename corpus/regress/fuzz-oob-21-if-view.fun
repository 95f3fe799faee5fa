-- found by funmem-fuzz --out-of-bounds --seed 21 (shrunk): the inner if's then branch
-- returns a246, created before it, and its else branch makes a view of a246; building
-- a246 in the destination would leave the view in the old block (sc made an ill-typed
-- program).
def fuzz (n : i64) (m : i64) (xs : [n]i64) (ys : [n][m]i64) (c : bool) (fs : [m]f64) : ([m]i64) =
  let (a294 : [m]i64) = if n != 1 then
      let (a123 : [m]i64) = replicate m 0
      in (a123)
    else
      let (a246 : [m]i64) = replicate m m
      let (a293 : [m]i64) = if n > n then
          in (a246)
        else
          assume n * m >= 1
          let (a289 : [m]i64) = a246[0 : m : 1]
          let (a292 : [m]i64) = replicate m 0
          in (a292)
      in (a293)
  let (a295 : [m]i64) = copy a294
  let s355 = 0
  assume s355 <= n
  let (a359 : [m]i64) = replicate m 0
  in (a359)
-- input: n=1 m=1 c=false
-- input: n=2 m=1 c=false
-- expect: valid
-- refuses: creation point
