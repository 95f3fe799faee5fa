-- Sizes in types and layouts are evaluated exactly (docs/interpreters.md): the kernel's type
-- (which the value semantics evaluates) and the annotations R(k*k - k*k + n) that
-- fun-to-funmem writes for the replicate and the iota evaluate to n in every stage.
def f (n : i64) (k : i64) : ([n]i64, [n]i64, [n]i64) =
  let (a : [k*k - k*k + n]i64) = replicate n 0
  let (b : [k*k - k*k + n]i64) = iota n
  let (c : [k*k - k*k + n]i64) = kernel i < n do
    in (i)
  in (a, b, c)
-- input: n=5 k=4294967296
-- input: n=0 k=3037000500
-- expect: valid
-- expect: short-circuit 0
