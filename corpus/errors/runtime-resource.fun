-- An allocation far beyond the memory limit.
def huge (n : i64) : ([n]i64) =
  let (r : [n]i64) = iota n
  in (r)
-- input: n=1000000000000
-- expect: error resource
