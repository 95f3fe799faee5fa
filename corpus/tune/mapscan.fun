-- The running example of the autotuning paper (mapscan), as a FUN kernel nest: every
-- element of every row goes through 16 dependent steps that also read its row index.
-- A tall matrix has enough outer parallelism; a wide one needs the inner kernel on
-- the grid too. funmem-cuda generates three versions (outer parallel, a block per row,
-- flattened) behind the thresholds mapscan.suff_outer_par_0 / suff_intra_par_0.
def mapscan (n : i64) (m : i64) (xss : [n][m]i64) : ([n][m]i64) =
  let (r : [n][m]i64) = kernel i < n do
    let (row : [m]i64) = xss[i]
    let (out : [m]i64) = kernel j < m do
      let x = row[j]
      let (y : i64) = loop (acc : i64) = (x) for k < 16 do
        let a = acc * 31 + i
        let b = a % 65521
        in (b)
      in (y)
    in (out)
  in (r)
-- input: n=3 m=5
-- input: n=1 m=40
-- input: n=40 m=1
-- expect: valid
