/* Body of the 1D tensor contraction, instantiated by bricktensor.c for BRICK_T = PetscScalar (matrices
   PetscReal) and BRICK_T = float (matrices float): out = B applied along direction dir of in.
   in has extents ext[0] x ext[1] x ext[2] (x fastest); B is mout x ext[dir], row-major; out has the same
   extents except ext[dir] -> mout and is overwritten. The range version (BRICK_TENSOR_RANGE_NAME) applies B, mout x ncols,
   to the nodes [off, off + ncols) of in along dir only (the patch residuals: rows of the interior, columns of the closure).

   Why two layers: with the 1D size a run-time value the compiler neither unrolls the sums nor vectorizes them, and along x
   (inner = 1) each output was a branchy scalar loop (the contraction took a third of a 3D Q3 vertex-patch solve). The
   dispatcher calls the always-inlined body with the contraction length as a literal (1..21, BRICK_CONTRACTION_LENGTHS: the cells, patches and patch
   closures of Q_1..Q_8), so each becomes fixed-length code; the sums keep their order
   (j = 0, 1, ...), so the portable build computes what it did before (with -march=native the compiler may fuse
   multiply-adds differently). Zero entries of B are no longer skipped: the matrices that reach here are dense
   (eigenvectors, basis values). */
#define BRICK_TCAT_(a, b) a##b
#define BRICK_TCAT(a, b)  BRICK_TCAT_(a, b)
#define BRICK_TBODY       BRICK_TCAT(BRICK_TENSOR_NAME, _Body)

static inline __attribute__((always_inline)) void BRICK_TBODY(PetscInt n, PetscInt off, PetscInt ncols, PetscInt mout, PetscInt inner, PetscInt outer, const BRICK_TB B[], const BRICK_T in[], BRICK_T out[])
{
  if (inner == 1) {
    for (PetscInt o = 0; o < outer; o++) {
      const BRICK_T *src = in + o * n + off;
      BRICK_T       *dst = out + o * mout;
      for (PetscInt i = 0; i < mout; i++) {
        BRICK_T s = 0;
        for (PetscInt j = 0; j < ncols; j++) s += B[i * ncols + j] * src[j];
        dst[i] = s;
      }
    }
    return;
  }
  for (PetscInt o = 0; o < outer; o++) {
    const BRICK_T *src = in + (o * n + off) * inner;
    BRICK_T       *dst = out + o * mout * inner;
    for (PetscInt i = 0; i < mout; i++) {
      BRICK_T *row = dst + i * inner;
      for (PetscInt a = 0; a < inner; a++) row[a] = 0;
      for (PetscInt j = 0; j < ncols; j++) {
        const BRICK_TB b    = B[i * ncols + j];
        const BRICK_T *line = src + j * inner;
        for (PetscInt a = 0; a < inner; a++) row[a] += b * line[a];
      }
    }
  }
}

void BRICK_TENSOR_RANGE_NAME(PetscInt dir, const PetscInt ext[], PetscInt mout, PetscInt off, PetscInt ncols, const BRICK_TB B[], const BRICK_T in[], BRICK_T out[])
{
  const PetscInt n     = ext[dir];
  PetscInt       inner, outer;

  BrickTensorLines(dir, ext, &inner, &outer);
  switch (ncols) {
#define BRICK_TCASE(N) \
  case N: \
    BRICK_TBODY(n, off, N, mout, inner, outer, B, in, out); \
    return;
    BRICK_CONTRACTION_LENGTHS(BRICK_TCASE)
#undef BRICK_TCASE
  default:
    break;
  }
  BRICK_TBODY(n, off, ncols, mout, inner, outer, B, in, out);
}

void BRICK_TENSOR_NAME(PetscInt dir, const PetscInt ext[], PetscInt mout, const BRICK_TB B[], const BRICK_T in[], BRICK_T out[])
{
  BRICK_TENSOR_RANGE_NAME(dir, ext, mout, 0, ext[dir], B, in, out);
}

#undef BRICK_TBODY
#undef BRICK_TCAT
#undef BRICK_TCAT_
