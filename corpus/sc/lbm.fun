-- LBM's shape (thesis 6.8.4): a time loop around a map over cells whose body computes
-- the cell's q distribution values as an array (collision, here a stand-in relaxation
-- toward the mean of the cell and its neighbour). sc builds each cell's array directly
-- in its row of the next grid.
def lbm (steps : i64) (cells : i64) (q : i64) (g0 : [cells][q]i64) : ([cells][q]i64) =
  assume cells >= 2 && q >= 1 && steps >= 0
  let (g : [cells][q]i64) = loop (cur : [cells][q]i64) = (g0) for s < steps do
    let (next : [cells][q]i64) = kernel c < cells do
      let nb = (c + 1) % cells
      let (dist : [q]i64) = kernel d < q do
        let (f : i64) = cur[c, d]
        let (h : i64) = cur[nb, d]
        let w = f + (h - f) / 2
        in (w)
      in (dist)
    in (next)
  in (g)
-- input: steps=3 cells=4 q=3
-- input: steps=1 cells=2 q=5
-- expect: valid
-- expect: short-circuit 1
