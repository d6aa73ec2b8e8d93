/* Even-odd decomposition of centro-symmetric 1D matrices (brickevenodd_template.h): the laplace cell product's mass and
   stiffness contractions at about half the multiply-adds, on one cell (double) and on a SIMD group of cells. */
#include "brickimpl.h"

/*
   BrickEvenOddCreate - the even-odd halves of an n x n row-major matrix B that is centro-symmetric to rounding; returns
   the largest |B[i][j] - B[n-1-i][n-1-j]| relative to max |B| in asym (the caller decides whether that is rounding).
   The halves are built from the rows i < h alone.
*/
void BrickEvenOddCreate(PetscInt n, const PetscReal B[], BrickEvenOdd *eo, PetscReal *asym)
{
  const PetscInt m = n / 2, h = n - m;
  PetscReal      big = 0.0, diff = 0.0;

  eo->n = n;
  for (PetscInt i = 0; i < n * n; i++) big = PetscMax(big, PetscAbsReal(B[i]));
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt j = 0; j < n; j++) diff = PetscMax(diff, PetscAbsReal(B[i * n + j] - B[(n - 1 - i) * n + n - 1 - j]));
  *asym = big > 0 ? diff / big : 0.0;
  for (PetscInt i = 0; i < h; i++)
    for (PetscInt j = 0; j < h; j++) eo->E[i * h + j] = j < m ? 0.5 * (B[i * n + j] + B[i * n + n - 1 - j]) : B[i * n + j];
  for (PetscInt i = 0; i < m; i++)
    for (PetscInt j = 0; j < m; j++) eo->O[i * m + j] = 0.5 * (B[i * n + j] - B[i * n + n - 1 - j]);
}

#define BRICK_EO_NAME BrickEvenOddApply1D
#define BRICK_EO_T    PetscScalar
#include "brickevenodd_template.h"

#define BRICK_EO_NAME BrickEvenOddLaneApply1D
#define BRICK_EO_T    BrickLaneD
#include "brickevenodd_template.h"
