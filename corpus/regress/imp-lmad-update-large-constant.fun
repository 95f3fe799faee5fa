-- An LMAD update of constant counts and strides with more points than to-imp enumerates
-- (2^16): its 70000 elements all go to cell 0. Such an LMAD gets the run-time
-- injectivity test (false here: the copy runs in sequence and the last element wins).
def main (n : i64) : ([4]i64) =
  let (f : [4]i64) = replicate 4 0
  let (x : [70000]i64) = iota 70000
  let (g : [4]i64) = f with [0 + {(70000 : 0)}] = x
  in (g)
-- input: n=1
-- expect: valid
-- refuses: 6.4.2 index-function projection
