-- found by funmem-fuzz --seed 1 (shrunk): the if's then branch returns the result of a
-- loop that carries its array in place (its block keeps the loop's name); building the
-- if's result in a243's block must keep the if returning a block per branch (sc made an
-- ill-typed program).
def fuzz (n : i64) (m : i64) (xs : [n]i64) (ys : [n][m]i64) (c : bool) (fs : [m]f64) : ([m][m]i32) =
  assume n >= 1
  let (a242 : [m]i32) = if i64(2i32) == n then
      let (a162 : [m]i32) = replicate m 0i32
      let (a173 : [m]i32) = loop (acc163 : [m]i32) = (a162) for j164 < m do
          let s171 = 0i32
          let (a172 : [m]i32) = acc163 with [0] = s171
          in (a172)
      in (a173)
    else
      assume n + m >= 2
      let (a241 : [m]i32) = replicate m 0i32
      in (a241)
  let (a243 : [m]i32) = copy a242
  let (a354_r : [m]i32) = replicate m 0i32
  let (a354 : [m][m]i32) = replicate m a354_r
  in (a354)
-- input: n=1 m=1 c=false
-- input: n=2 m=2 c=true
-- expect: valid
