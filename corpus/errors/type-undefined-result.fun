-- A body returning a name that is not defined (here: the statement binding it was
-- dropped). Found by funmem-fuzz's shrinker: the type checker used to dereference a
-- null type for the missing result and crash.
def f (n : i64) (xs : [n]i64) : ([n]i64) =
  let (zs : [n]i64) = iota n
  in (ys)
-- expect: error type
