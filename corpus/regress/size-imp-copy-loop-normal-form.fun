-- The rows' size (a - b) * c is 5; its normal form a*c - b*c, which IMP's copy loop
-- and bounds take, has a term outside i64. IMP evaluates it as a size (size(...)).
-- refuses: bounds
def f (a : i64) (b : i64) (c : i64) : ([2][(a - b) * c]i64) =
  let (ys : [2][(a - b) * c]i64) = kernel i < 2 do
    let (r : [(a - b) * c]i64) = kernel j < (a - b) * c do
      let t = j + i
      in (t)
    in (r)
  in (ys)
-- input: a=4611686018427387904 b=4611686018427387903 c=5
-- expect: valid
