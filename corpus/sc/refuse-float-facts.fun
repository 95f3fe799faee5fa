-- Issue 42, class 2: `h * h < h` holds for h = 0.5, but read as a fact over integers it
-- has no solution, and every question would be "proved". Facts over floats are not
-- facts: the place i * 3 is not provably inside ys, and the update keeps its own check
-- (the run-time check cannot move above the kernel, whose addition may overflow).
def floats (h : f64) (i : i64) (n : i64) (ys0 : [9]i64) : ([9]i64) =
  assume h * h < h
  let (x : [n]i64) = kernel k < n do
    let v = k + 1
    in (v)
  let (ys : [9]i64) = ys0 with [i * 3 : n] = x
  in (ys)
-- input: h=0.5 i=7 n=3
-- expect: error bounds
-- input: h=0.5 i=1 n=3
-- expect: short-circuit 0
-- refuses: bounds
