/* The roundings of PCHFEM's host emulation of the 16-bit and TF32 formats (hfemhost.c), in a header of their own so that
   tests/test_rounding.c checks them against exact values. */
#pragma once

#include <math.h>
#include <petscmath.h>

/* v rounded to nearest (ties to even) with bits significant bits, exponents below emin (frexp's) on a fixed grid */
static inline float PCHFEMRoundBits(float v, int bits, int emin)
{
  int e;
  if (v == 0.0f) return v;
  (void)frexpf(v, &e);
  if (e < emin) e = emin;
  return ldexpf(nearbyintf(ldexpf(v, bits - e)), e - bits);
}

/* IEEE half: 11 significant bits, subnormals down to 2^-24, past its largest finite value (65504) infinite, as the
   GPU's conversion */
static inline float PCHFEMRoundHalf(float v)
{
  const float r = PCHFEMRoundBits(v, 11, -13);
  return PetscAbsReal(r) > 65504.0f ? (r > 0 ? PETSC_INFINITY : PETSC_NINFINITY) : r;
}

/* bfloat16: 8 significant bits, float's exponent range */
static inline float PCHFEMRoundBFloat16(float v)
{
  return PCHFEMRoundBits(v, 8, -125);
}

/* TF32: 11 significant bits, float's exponent range */
static inline float PCHFEMRoundTF32(float v)
{
  return PCHFEMRoundBits(v, 11, -125);
}
