/* Instantiates the per-patch kernels in double and single precision, and the dense reference solve. */
#include "vpimpl.h"
#include <petscblaslapack.h>

#define VP_T     double
#define VP_SUF   _d
#define VP_APPLY       BrickTensorApply1D
#define VP_APPLY_RANGE BrickTensorApply1DRange
#include "vpkernel_template.h"
#undef VP_T
#undef VP_SUF
#undef VP_APPLY
#undef VP_APPLY_RANGE

#define VP_T     float
#define VP_SUF   _f
#define VP_APPLY       BrickTensorApply1D_f
#define VP_APPLY_RANGE BrickTensorApply1DRange_f
#include "vpkernel_template.h"
#undef VP_T
#undef VP_SUF
#undef VP_APPLY
#undef VP_APPLY_RANGE

/* rhs <- A^-1 rhs with the Cholesky factor (LAPACK potrf, upper) of the n x n interior patch matrix
   (n <= 15^3, so it fits a BLAS int). Plain C for use in threads: returns LAPACK's info. */
int VPPatchSolveDense(PetscInt n, const PetscScalar *factor, PetscScalar *rhs)
{
  PetscBLASInt bn = (PetscBLASInt)n, one = 1, info;

  LAPACKpotrs_("U", &bn, &one, factor, &bn, rhs, &bn, &info);
  return (int)info;
}
