/* Sum factorization: one 1D matrix applied along one direction of a tensor of values. Operators,
   transfers and the load vector are products of such contractions, which is what keeps their cost at
   O(k^(d+1)) per cell instead of O(k^(2d)). */
#include "brickimpl.h"

/* BrickTensorApply1D - out = B applied along direction dir of the tensor in.

   in has extents ext[0] x ext[1] x ext[2] (x fastest); B is mout x ext[dir], row-major; out has the
   same extents except ext[dir] -> mout. out is overwritten. */
void BrickTensorApply1D(PetscInt dir, const PetscInt ext[], PetscInt mout, const PetscReal B[], const PetscScalar in[], PetscScalar out[])
{
  const PetscInt n     = ext[dir];
  PetscInt       inner = 1, outer = 1;

  for (PetscInt d = 0; d < dir; d++) inner *= ext[d];
  for (PetscInt d = dir + 1; d < 3; d++) outer *= ext[d];
  for (PetscInt o = 0; o < outer; o++) {
    const PetscScalar *src = in + o * n * inner;
    PetscScalar       *dst = out + o * mout * inner;
    for (PetscInt i = 0; i < mout; i++) {
      PetscScalar *row = dst + i * inner;
      for (PetscInt a = 0; a < inner; a++) row[a] = 0.0;
      for (PetscInt j = 0; j < n; j++) {
        const PetscReal    b    = B[i * n + j];
        const PetscScalar *line = src + j * inner;
        if (b == 0.0) continue;
        for (PetscInt a = 0; a < inner; a++) row[a] += b * line[a];
      }
    }
  }
}
