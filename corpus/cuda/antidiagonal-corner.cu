// A blocked anti-diagonal update (NW's wavefront): block b updates the tile at block
// row b and block column diag - b, with the border, (B + 1) x (B + 1) cells, so the
// tiles of neighbouring blocks share one corner cell: block b's thread 0 writes
// (r0 + B, c0) in its last row, block b + 1's thread B - 1 writes it as its extra
// column. A race at B = 2, q = 2 under the usual facts.
// expect: race
__global__ void diag_update(int* m, int cols, int diag, int q) {
  __requires(cols == q * blockDim.x + 1);
  __requires(diag < q);
  __requires(gridDim.x == diag + 1);
  int b = blockIdx.x, t = threadIdx.x, B = blockDim.x;
  int r0 = b * B, c0 = (diag - b) * B;
  for (int r = 0; r <= B; r++) {
    m[(r0 + r) * cols + c0 + t] = 1;
    if (t == B - 1) m[(r0 + r) * cols + c0 + B] = 1;
  }
}
