-- A loop updating its parameter whose body reads w, an if's result that is xs at run
-- time (in its own block name, w_mem): the initial value xs shares a root with w, so
-- fun-to-funmem copies it before the loop (by block names alone, w looked unrelated).
def main (c : bool) (xs : [4]i64) : ([4]i64, [4]i64) =
  let (w : [4]i64) = if c then in (xs) else in (xs)
  let (a : [4]i64) = loop (p : [4]i64) = (xs) for j < 3 do
    let (t : i64) = w[j]
    let (u : i64) = t + 100
    let (p2 : [4]i64) = p with [j + 1] = u
    in (p2)
  in (a, a)
-- input: c=true xs=[10, 11, 12, 13]
-- expect: valid
