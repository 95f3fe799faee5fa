-- The result's size (a - b) * c is 5; IMP reads the result block's cells by the count
-- of the array's layout, a size evaluated exactly (its normal form a*c - b*c has terms
-- past 2^63). (An outside review's probe.)
def f (a : i64) (b : i64) (c : i64) : ([(a - b) * c]i64) =
  let (xs : [(a - b) * c]i64) = kernel j < (a - b) * c do
    let t = j * 2
    in (t)
  in (xs)
-- input: a=4611686018427387904 b=4611686018427387903 c=5
-- input: a=3 b=1 c=2
-- expect: valid
-- expect: short-circuit 0
