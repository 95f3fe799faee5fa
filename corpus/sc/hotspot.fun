-- Hotspot's shape (thesis 6.8.3): each step builds the next temperature grid from
-- separately computed parts (top row, inner rows, bottom row), concatenated. sc builds
-- every part directly in its place of the next grid: the concat operands (and the
-- rows of each part) are short-circuited, so the concatenations copy nothing.
def hotspot (steps : i64) (n : i64) (m : i64) (t0 : [n][m]i64) : ([n][m]i64) =
  assume n >= 3 && m >= 1 && steps >= 0
  let (t : [n][m]i64) = loop (cur : [n][m]i64) = (t0) for s < steps do
    let (top : [1][m]i64) = kernel a < 1 do
      let (r : [m]i64) = kernel j < m do
        let (u : i64) = cur[0, j]
        let (d : i64) = cur[1, j]
        let w = (3 * u + d) / 4
        in (w)
      in (r)
    let (mid : [n - 2][m]i64) = kernel i < n - 2 do
      let (r : [m]i64) = kernel j < m do
        let (u : i64) = cur[i, j]
        let (c : i64) = cur[i + 1, j]
        let (d : i64) = cur[i + 2, j]
        let w = (u + 2 * c + d) / 4
        in (w)
      in (r)
    let (bot : [1][m]i64) = kernel a < 1 do
      let (r : [m]i64) = kernel j < m do
        let (u : i64) = cur[n - 2, j]
        let (d : i64) = cur[n - 1, j]
        let w = (u + 3 * d) / 4
        in (w)
      in (r)
    let (upper : [n - 1][m]i64) = concat top mid
    let (next : [n][m]i64) = concat upper bot
    in (next)
  in (t)
-- input: steps=3 n=5 m=4
-- input: steps=2 n=3 m=1
-- expect: valid
-- expect: short-circuit 7
