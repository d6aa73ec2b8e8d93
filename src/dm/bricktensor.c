/* Sum factorization: one 1D matrix applied along one direction of a tensor of values. Operators,
   transfers, the load vector and the vertex-patch kernels are products of such contractions, which keeps
   their cost at O(k^(d+1)) per cell instead of O(k^(2d)). Double (PetscScalar) and single precision. */
#include "brickimpl.h"

#define BRICK_TENSOR_NAME       BrickTensorApply1D
#define BRICK_TENSOR_RANGE_NAME BrickTensorApply1DRange
#define BRICK_T           PetscScalar
#define BRICK_TB          PetscReal
#include "bricktensor_template.h"
#undef BRICK_TENSOR_NAME
#undef BRICK_TENSOR_RANGE_NAME
#undef BRICK_T
#undef BRICK_TB

#define BRICK_TENSOR_NAME       BrickTensorApply1D_f
#define BRICK_TENSOR_RANGE_NAME BrickTensorApply1DRange_f
#define BRICK_T           float
#define BRICK_TB          float
#include "bricktensor_template.h"
#undef BRICK_TENSOR_NAME
#undef BRICK_TENSOR_RANGE_NAME
#undef BRICK_T
#undef BRICK_TB
