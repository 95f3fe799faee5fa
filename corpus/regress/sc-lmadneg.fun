-- An outside review's probe: an LMAD-slice update whose place overlaps itself (cell 4
-- twice). sc refuses to build x there; to-imp copies such an update with sequential
-- loops (the last element written wins, as in the value semantics), not with a kernel
-- whose threads race.
def f (ys0 : [8]i64) : ([8]i64) =
  let (x : [2][2]i64) = kernel k < 2 do
    let (r : [2]i64) = kernel l < 2 do
      let v = k * 10 + l
      in (v)
    in (r)
  let (ys : [8]i64) = ys0 with [4 + {(2 : 1), (2 : -1)}] = x
  in (ys)
-- input: ys0=[0, 0, 0, 0, 0, 0, 0, 0]
-- expect: valid
-- expect: short-circuit 1
-- refuses: 6.4.2 index-function projection
