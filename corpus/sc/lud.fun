-- LUD's shape (thesis 6.8.2): a flat n x n matrix (n = q*b) in b x b blocks; step s
-- updates the (q-s-1) x (q-s-1) internal blocks below and right of diagonal block s
-- from the perimeter row and column of step s, writing them back with one LMAD slice.
-- sc builds the whole update in place: rows into blocks, blocks into block rows,
-- block rows into the internal region, the region into the matrix.
-- (The arithmetic is a stand-in for LUD's; the access pattern is LUD's.)
def lud (q : i64) (b : i64) (xs : [(q*b)*(q*b)]i64) : ([(q*b)*(q*b)]i64) =
  assume q > 1 && b > 1
  let n = q * b
  let (r : [n*n]i64) = loop (a : [n*n]i64) = (xs) for s < q - 1 do
    let (inner : [q-s-1][q-s-1][b][b]i64) = kernel bi < q - s - 1 do
      let (brow : [q-s-1][b][b]i64) = kernel bj < q - s - 1 do
        let (blk : [b][b]i64) = kernel y < b do
          let (row : [b]i64) = kernel x < b do
            let (v : i64) = a[((s+1)*b + bi*b + y) * n + (s+1)*b + bj*b + x]
            let (l : i64) = a[((s+1)*b + bi*b + y) * n + s*b]
            let (t : i64) = a[(s*b) * n + (s+1)*b + bj*b + x]
            let w = v - (l * t) % 7
            in (w)
          in (row)
        in (blk)
      in (brow)
    let (a2 : [n*n]i64) = a with [(s+1)*b*n + (s+1)*b + {(q-s-1 : b*n), (q-s-1 : b), (b : n), (b : 1)}] = inner
    in (a2)
  in (r)
-- input: q=3 b=2
-- input: q=2 b=3
-- expect: valid
-- expect: short-circuit 4
