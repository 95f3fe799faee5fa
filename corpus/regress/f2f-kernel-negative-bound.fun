-- fun-to-funmem's allocation for a kernel's result sits at the kernel's bound, where the
-- source checks that the bound is not negative: with k = -1 every stage ends with the
-- size error at 5:33; placed at the binding, the allocation ended the lowered program at
-- 5:22.
def f (k : i64) : ([k]i64) =
  let (w : [k]i64) = kernel q < k do
    in (q)
  in (w)
-- input: k=-1
-- input: k=3
-- expect: error size
