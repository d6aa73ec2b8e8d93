/* Sum factorization on a SIMD group of tensors (bricklanes_template.h): double and single precision. */
#include "brickimpl.h"

#define BRICK_LANE_NAME BrickLaneApply1D
#define BRICK_LV        BrickLaneD
#define BRICK_LS        double
#include "bricklanes_template.h"
#undef BRICK_LANE_NAME
#undef BRICK_LV
#undef BRICK_LS

#define BRICK_LANE_NAME BrickLaneApply1D_f
#define BRICK_LV        BrickLaneF
#define BRICK_LS        float
#include "bricklanes_template.h"
#undef BRICK_LANE_NAME
#undef BRICK_LV
#undef BRICK_LS

/* the vector instructions of this build's SIMD groups, for the views */
const char *BrickSIMDInstructionSet(void)
{
#if defined(__AVX512F__)
  return "AVX-512 build, 4 doubles a vector";
#elif defined(__AVX__)
  return "AVX build, 4 doubles a vector";
#else
  return "portable SSE2 build, 2 doubles a vector";
#endif
}
