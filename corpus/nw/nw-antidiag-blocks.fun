-- NW in FUN: the blocked anti-diagonal as an LMAD slice of the flat matrix, plus
-- the row above and the column left of each block (the slices NW's blocks read).
def nw_blocks (q : i64) (b : i64) (i : i64) (xs : [(q*b+1)*(q*b+1)]i64) : ([(q*b+1)*(q*b+1)]i64) =
  assume q > 0 && b > 0 && 0 <= i && i < q
  let n = q * b + 1
  let (mat : [n][n]i64) = xs[0 + {(n : n), (n : 1)}]
  let (blk : [i+1][b][b]i64) = xs[i*b + n + 1 + {(i+1 : n*b - b), (b : n), (b : 1)}]
  let (upd : [i+1][b][b]i64) = kernel k < i+1 do
    let br = k
    let bc = i - k
    let (top : [b]i64) = mat[br * b, bc * b + 1 : b]
    let (left : [b]i64) = mat[br * b + 1 : b, bc * b]
    let (res : [b][b]i64) = kernel r < b do
      let (row : [b]i64) = kernel c < b do
        let (t : i64) = top[c]
        let (l : i64) = left[r]
        let (v : i64) = blk[k, r, c]
        let w = max(v, t + l)
        in (w)
      in (row)
    in (res)
  let (xs2 : [n*n]i64) = xs with [i*b + n + 1 + {(i+1 : n*b - b), (b : n), (b : 1)}] = upd
  in (xs2)
-- input: q=2 b=2 i=1
-- expect: valid
-- expect: short-circuit 3
