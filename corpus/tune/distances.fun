-- Manhattan distances between n points and m centres of d features (a k-means step):
-- out[i][j] = sum over k of |xs[i][k] - cs[j][k]|. Many points and few centres (tall)
-- fill the machine with the outer kernel; few points and many centres (wide) need the
-- inner kernel on the grid. Three versions behind distances.suff_outer_par_0 /
-- suff_intra_par_0 (docs/tuning.md).
def distances (n : i64) (m : i64) (d : i64) (xs : [n][d]i64) (cs : [m][d]i64) : ([n][m]i64) =
  let (r : [n][m]i64) = kernel i < n do
    let (p : [d]i64) = xs[i]
    let (out : [m]i64) = kernel j < m do
      let (c : [d]i64) = cs[j]
      let z = 0
      let (s : i64) = loop (acc : i64) = (z) for k < d do
        let a = p[k]
        let b = c[k]
        let e = abs (a - b)
        let f = acc + e
        in (f)
      in (s)
    in (out)
  in (r)
-- input: n=3 m=4 d=2
-- input: n=1 m=9 d=3
-- input: n=7 m=1 d=5
-- expect: valid
