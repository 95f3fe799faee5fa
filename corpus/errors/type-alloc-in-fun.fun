-- alloc and mem belong to FUNMEM, not FUN.
def f (n : i64) : (i64) =
  let (m : mem) = alloc n
  in (n)
-- expect: error type
