/* Instantiates the one-patch kernels (vplane_template.h) in double and single precision, and the dense reference solve. */
#include "vpimpl.h"
#include <petscblaslapack.h>

#define VPL_V     double
#define VPL_S     double
#define VPL_OP    VPPatchOp_d
#define VPL_EO    VPEvenOdd_d
#define VPL_EOMAT VPEOMat_d
#define VPL_SUF   _d
#define VPL_APPLY BrickTensorApply1DRange
#include "vplane_template.h"

#define VPL_V     float
#define VPL_S     float
#define VPL_OP    VPPatchOp_f
#define VPL_EO    VPEvenOdd_f
#define VPL_EOMAT VPEOMat_f
#define VPL_SUF   _f
#define VPL_APPLY BrickTensorApply1DRange_f
#include "vplane_template.h"

/* rhs <- A^-1 rhs with the Cholesky factor (LAPACK potrf, upper) of the n x n interior patch matrix
   (n <= 15^3, so it fits a BLAS int). Plain C for use in threads: returns LAPACK's info. */
int VPPatchSolveDense(PetscInt n, const PetscScalar *factor, PetscScalar *rhs)
{
  PetscBLASInt bn = (PetscBLASInt)n, one = 1, info;

  LAPACKpotrs_("U", &bn, &one, factor, &bn, rhs, &bn, &info);
  return (int)info;
}
