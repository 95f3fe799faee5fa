-- A view of one element through a stride of 2^62 sliced again with step 2: the product
-- 2^63 does not fit 64 bits, but a dimension of one element addresses nothing with its
-- stride, so fun-to-funmem keeps the source's stride and every stage runs.
def f (n : i64) (xs : [n]i64) : ([1]i64) =
  assume n >= 4
  let (a : [1]i64) = xs[3 : 1 : 4611686018427387904]
  let (v : [1]i64) = a[0 : 1 : 2]
  in (v)
-- input: n=4
-- input: n=5
-- expect: valid
