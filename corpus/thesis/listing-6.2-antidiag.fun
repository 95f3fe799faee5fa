-- Thesis listing 6.2 in FUN: increment the anti-diagonal of a 10x10 matrix stored
-- as a flat array of 100 elements, through an LMAD slice.
def antidiag (ys0 : [100]i64) : ([100]i64) =
  let (ys' : [10]i64) = ys0[9 + {(10 : 9)}]
  let (x : [10]i64) = kernel i < 10 do
    let (t : i64) = ys'[i]
    let u = t + 1
    in (u)
  let (ys : [100]i64) = ys0 with [9 + {(10 : 9)}] = x
  in (ys)
-- input: ys0=iota
-- expect: valid
-- expect: short-circuit 1
