-- OptionPricing's shape (thesis 6.8.5): a map over paths whose body builds a path of
-- Brownian increments (its own array), then a second array from it (the bridge, here a
-- running combination), which is the path's result. sc builds the bridge directly in
-- the path's row of the result; the increments stay private to the thread.
def pricing (paths : i64) (steps : i64) (seeds : [paths]i64) : ([paths][steps]i64) =
  assume paths >= 1 && steps >= 1
  let (prices : [paths][steps]i64) = kernel p < paths do
    let (sd : i64) = seeds[p]
    let (incs : [steps]i64) = kernel t < steps do
      let z = (sd * 31 + t * 17) % 101 - 50
      in (z)
    let (bridge : [steps]i64) = kernel t2 < steps do
      let (a : i64) = incs[t2]
      let (b : i64) = incs[0]
      let v = a + b * t2
      in (v)
    in (bridge)
  in (prices)
-- input: paths=3 steps=4
-- input: paths=1 steps=1
-- expect: valid
-- expect: short-circuit 1
