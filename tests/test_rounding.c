static const char help[] = "Checks PCHFEM's host roundings to half, bfloat16 and TF32 (src/pc/hfem/hfemround.h) against exact values:\n"
                           "representable values kept, ties to even, the last bit of each format, half's subnormals and overflow.\n";

#include "checks.h"
#include "pc/hfem/hfemround.h"

static PetscErrorCode Expect(const char fmt[], float (*round)(float), float v, float exact)
{
  char      what[160];
  const float r = round(v);

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(what, sizeof(what), "%s(%.10g) = %.10g (exact %.10g)", fmt, (double)v, (double)r, (double)exact));
  PetscCall(CheckTrue(what, (PetscBool)(r == exact || (PetscIsInfReal(r) && PetscIsInfReal(exact) && (r > 0) == (exact > 0)))));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  const float one = 1.0f;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  /* half: 11 significant bits, spacing 2^-10 at 1 */
  PetscCall(Expect("half", PCHFEMRoundHalf, one + ldexpf(1, -10), one + ldexpf(1, -10)));        /* representable: kept */
  PetscCall(Expect("half", PCHFEMRoundHalf, one + ldexpf(1, -11), one));                         /* tie: to even (1) */
  PetscCall(Expect("half", PCHFEMRoundHalf, one + ldexpf(3, -11), one + ldexpf(1, -9)));         /* tie: to even (up) */
  PetscCall(Expect("half", PCHFEMRoundHalf, one + ldexpf(1, -11) + ldexpf(1, -20), one + ldexpf(1, -10))); /* above the tie */
  PetscCall(Expect("half", PCHFEMRoundHalf, -3.14159265f, -3.140625f));
  PetscCall(Expect("half", PCHFEMRoundHalf, 65504.0f, 65504.0f));                                /* largest finite */
  PetscCall(Expect("half", PCHFEMRoundHalf, 65519.0f, 65504.0f));                                /* below the halfway point */
  PetscCall(Expect("half", PCHFEMRoundHalf, 65520.0f, PETSC_INFINITY));                          /* rounds to 65536: overflow */
  PetscCall(Expect("half", PCHFEMRoundHalf, -70000.0f, PETSC_NINFINITY));
  PetscCall(Expect("half", PCHFEMRoundHalf, ldexpf(1, -24), ldexpf(1, -24)));                    /* smallest subnormal */
  PetscCall(Expect("half", PCHFEMRoundHalf, ldexpf(1, -25), 0.0f));                              /* tie below it: to even (0) */
  PetscCall(Expect("half", PCHFEMRoundHalf, ldexpf(3, -26), ldexpf(1, -24)));
  PetscCall(Expect("half", PCHFEMRoundHalf, ldexpf(3, -25), ldexpf(1, -23)));                    /* subnormal tie: to even */
  PetscCall(Expect("half", PCHFEMRoundHalf, ldexpf(1, -14) + ldexpf(1, -25), ldexpf(1, -14)));  /* smallest normal: subnormal spacing */
  PetscCall(Expect("half", PCHFEMRoundHalf, 0.0f, 0.0f));
  /* bfloat16: 8 significant bits, spacing 2^-7 at 1, float's range */
  PetscCall(Expect("bfloat16", PCHFEMRoundBFloat16, one + ldexpf(1, -7), one + ldexpf(1, -7)));
  PetscCall(Expect("bfloat16", PCHFEMRoundBFloat16, one + ldexpf(1, -8), one));
  PetscCall(Expect("bfloat16", PCHFEMRoundBFloat16, one + ldexpf(3, -8), one + ldexpf(1, -6)));
  PetscCall(Expect("bfloat16", PCHFEMRoundBFloat16, -3.14159265f, -3.140625f));
  PetscCall(Expect("bfloat16", PCHFEMRoundBFloat16, 1e30f, ldexpf(202, 92)));                   /* 1e30 = 1.5777218 2^99 = 201.95 2^92 */
  PetscCall(Expect("bfloat16", PCHFEMRoundBFloat16, ldexpf(1, -126), ldexpf(1, -126)));
  /* TF32: 11 significant bits like half, float's range (no overflow at 65520, no subnormal grid at 2^-25) */
  PetscCall(Expect("tf32", PCHFEMRoundTF32, one + ldexpf(1, -11), one));
  PetscCall(Expect("tf32", PCHFEMRoundTF32, one + ldexpf(3, -11), one + ldexpf(1, -9)));
  PetscCall(Expect("tf32", PCHFEMRoundTF32, 65520.0f, 65536.0f));
  PetscCall(Expect("tf32", PCHFEMRoundTF32, ldexpf(3, -26), ldexpf(3, -26)));
  PetscCall(PetscFinalize());
  return (int)check_failures;
}
