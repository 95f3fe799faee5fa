-- Futhark coalescing/concat/iotas.fut: both iotas are built in the concatenation
-- (Futhark: 1 allocation).
def main (i : i64) (j : i64) : ([i + j]i64) =
  let (a : [i]i64) = iota i
  let (b : [j]i64) = iota j
  let (c : [i + j]i64) = concat a b
  in (c)
-- input: i=2 j=4
-- expect: valid
-- expect: short-circuit 0
-- refuses: 6.2 (1) destination memory
-- refuses: 6.2 (1) destination memory
