-- found by funmem-fuzz --seed 21 (shrunk): the else branch returns a25, created before
-- the if, and the destination's block (of the concat a53) is made after the if; a25
-- cannot be built there (sc made a program using the block before its allocation).
def fuzz (n : i64) (m : i64) (xs : [n]i64) (ys : [n][m]i64) (c : bool) (fs : [m]f64) : ([m]i32) =
  let s3 = 0
  let (a25 : [m]i32) = replicate m 0i32
  let (a31 : [m]i32) = replicate m 0i32
  let (a52 : [m]i32) = if n == s3 then
      let (a50 : [m]i32) = replicate m 0i32
      in (a50)
    else
      in (a25)
  let (a53 : [2 * m]i32) = concat a31 a52
  let (a54 : [m]i32) = replicate m 0i32
  in (a54)
-- input: n=1 m=1 c=false
-- input: n=0 m=2 c=false
-- expect: valid
-- refuses: 6.2 (1) destination memory
