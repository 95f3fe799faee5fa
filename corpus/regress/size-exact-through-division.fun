-- A size (a*c - b*c)/c: its division's operand a*c - b*c is evaluated over the integers
-- too (5, though a*c leaves i64), as the type checker's equal sizes ((a-b)*c)/c require.
def f (a : i64) (b : i64) (c : i64) : ([(a*c - b*c)/c]i64) =
  let (s : [(a*c-b*c)/c]i64) = scratch
  in (s)
-- input: a=4611686018427387904 b=4611686018427387903 c=5
-- input: a=3 b=1 c=2
-- expect: valid
