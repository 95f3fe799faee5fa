-- A concatenation whose first size is beyond i64 (2^62 + 2^62 rows of 0 elements) is a
-- resource error at the concat in the value semantics ("array size overflows"), as an
-- array of 2^63 elements or more is; the interpreter added the sizes with wrapping
-- (undefined) arithmetic and ended with "negative size -2^63". A source that runs out of
-- resources accepts any end of a stage (fun-to-funmem's allocation overflows first).
def f (a : i64) (m : i64) : ([a+a][m]i64) =
  let (x : [a][m]i64) = scratch
  let (y : [a][m]i64) = scratch
  let (z : [a+a][m]i64) = concat x y
  in (z)
-- input: a=4611686018427387904 m=0
-- input: a=2 m=3
-- expect: error resource
-- refuses: 6.2 (1) destination memory
-- refuses: 6.2 (1) destination memory
