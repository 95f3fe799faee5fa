-- Thesis listing 4.1: an `if` whose branches return arrays of different sizes
-- together with the size (an existential size in the pattern). The thesis returns
-- `y` from the else-branch while binding `x`; the typo is corrected here.
def listing41 (xsize : i64) (ysize : i64) (zcond : bool) : (i64) =
  let (zsize : i64) (zarr : [zsize]i64) = if zcond then
    let (x : [xsize]i64) = iota xsize
    in (xsize, x)
  else
    let (y : [ysize]i64) = iota ysize
    in (ysize, y)
  in (zsize)
-- input: xsize=4 ysize=7 zcond=true
-- input: xsize=4 ysize=7 zcond=false
-- expect: valid
