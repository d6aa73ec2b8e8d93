/* Body of the 1D tensor contraction, instantiated by bricktensor.c for BRICK_T = PetscScalar (matrices
   PetscReal) and BRICK_T = float (matrices float): out = B applied along direction dir of in.
   in has extents ext[0] x ext[1] x ext[2] (x fastest); B is mout x ext[dir], row-major; out has the same
   extents except ext[dir] -> mout and is overwritten. */
void BRICK_TENSOR_NAME(PetscInt dir, const PetscInt ext[], PetscInt mout, const BRICK_TB B[], const BRICK_T in[], BRICK_T out[])
{
  const PetscInt n     = ext[dir];
  PetscInt       inner = 1, outer = 1;

  for (PetscInt d = 0; d < dir; d++) inner *= ext[d];
  for (PetscInt d = dir + 1; d < 3; d++) outer *= ext[d];
  for (PetscInt o = 0; o < outer; o++) {
    const BRICK_T *src = in + o * n * inner;
    BRICK_T       *dst = out + o * mout * inner;
    for (PetscInt i = 0; i < mout; i++) {
      BRICK_T *row = dst + i * inner;
      for (PetscInt a = 0; a < inner; a++) row[a] = 0;
      for (PetscInt j = 0; j < n; j++) {
        const BRICK_TB b    = B[i * n + j];
        const BRICK_T *line = src + j * inner;
        if (b == 0) continue;
        for (PetscInt a = 0; a < inner; a++) row[a] += b * line[a];
      }
    }
  }
}
