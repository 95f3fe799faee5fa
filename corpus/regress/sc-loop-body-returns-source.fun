-- found by funmem-fuzz --seed 1 (program 910 of the CI campaign, shrunk): a loop body
-- returns a56, created before the loop, and a later copy of a56 was short-circuited:
-- a56 moved into a62's block while the body still returned it with its old block
-- (sc made an ill-typed program). The loop's result aliases the source: refused.
def fuzz (n : i64) (m : i64) (xs : [n]i64) (ys : [n][m]i64) (c : bool) (fs : [m]f64) : ([n][n]i64) =
  assume m > 0
  let (a64 : [n]f32) = kernel ix53 < n do
      let (a55 : [m]i64) = replicate m 0
      let (a56 : [m]i64) = replicate m 0
      let (a57 : [m]i64) = loop (p : [m]i64) = (a55) for j54 < m do
        in (a56)
      let (a62 : [m]i64) = copy a56
      let s63 = 0.5f32
      in (s63)
  let (a102_r : [n]i64) = replicate n 0
  let (a102 : [n][n]i64) = replicate n a102_r
  in (a102)
-- input: n=1 m=1 c=false
-- input: n=2 m=3 c=true
-- expect: valid
-- refuses: last use
