/* The 1D tensor contraction of bricktensor_template.h on BRICK_LANES_D (double) or BRICK_LANES_F (float) independent
   tensors at once, one per SIMD lane: value i of lane l at [i][l], each value a GCC vector BRICK_LV of scalar type BRICK_LS.
   Instantiated by bricklanes.c. The tensors of a group (cells of a row, vertex patches of one position class) share the
   1D matrix, so each entry is one scalar broadcast to the lanes and each multiply-add one SIMD instruction, as deal.II
   vectorizes across cells; every lane adds j = 0, 1, ... in the order of the one-tensor contraction, so in the portable
   build a lane's result equals BrickTensorApply1DRange's bit for bit. */
#define BRICK_LCAT_(a, b) a##b
#define BRICK_LCAT(a, b)  BRICK_LCAT_(a, b)

/* 4 rows x 2 lines of sums (8 vector registers and 2 more for the lines) where there are 16 registers of the vector width
   (AVX); 4 x 1 in the portable build */
#if defined(__AVX__)
  #define BRICK_LINES2 1
#else
  #define BRICK_LINES2 0
#endif

/* Blocks of outputs: rows [i, i + 4) (or row i) of B times line a (and a + 1) of src. The sums are named scalars of the block
   (an array indexed in a loop stays in memory): independent sums let the SIMD units overlap multiply-adds, where one sum at a
   time waits for its previous add; each sum still adds j = 0, 1, ... in order. */
static inline __attribute__((always_inline)) void BRICK_LCAT(BRICK_LANE_NAME, _Rows4)(PetscInt ncols, PetscInt inner, const BRICK_LS B[], const BRICK_LV src[], BRICK_LV dst[])
{
  BRICK_LV s0 = {0}, s1 = {0}, s2 = {0}, s3 = {0};

  for (PetscInt j = 0; j < ncols; j++) {
    const BRICK_LV x = src[j * inner];
    s0 += B[j] * x;
    s1 += B[ncols + j] * x;
    s2 += B[2 * ncols + j] * x;
    s3 += B[3 * ncols + j] * x;
  }
  dst[0]         = s0;
  dst[inner]     = s1;
  dst[2 * inner] = s2;
  dst[3 * inner] = s3;
}

static inline __attribute__((always_inline)) void BRICK_LCAT(BRICK_LANE_NAME, _Rows4Lines2)(PetscInt ncols, PetscInt inner, const BRICK_LS B[], const BRICK_LV src[], BRICK_LV dst[])
{
  BRICK_LV s0 = {0}, s1 = {0}, s2 = {0}, s3 = {0}, t0 = {0}, t1 = {0}, t2 = {0}, t3 = {0};

  for (PetscInt j = 0; j < ncols; j++) {
    const BRICK_LV x = src[j * inner], y = src[j * inner + 1];
    s0 += B[j] * x;
    t0 += B[j] * y;
    s1 += B[ncols + j] * x;
    t1 += B[ncols + j] * y;
    s2 += B[2 * ncols + j] * x;
    t2 += B[2 * ncols + j] * y;
    s3 += B[3 * ncols + j] * x;
    t3 += B[3 * ncols + j] * y;
  }
  dst[0]             = s0;
  dst[1]             = t0;
  dst[inner]         = s1;
  dst[inner + 1]     = t1;
  dst[2 * inner]     = s2;
  dst[2 * inner + 1] = t2;
  dst[3 * inner]     = s3;
  dst[3 * inner + 1] = t3;
}

static inline __attribute__((always_inline)) void BRICK_LCAT(BRICK_LANE_NAME, _Row1)(PetscInt ncols, PetscInt inner, const BRICK_LS B[], const BRICK_LV src[], BRICK_LV dst[])
{
  BRICK_LV s0 = {0};

  for (PetscInt j = 0; j < ncols; j++) s0 += B[j] * src[j * inner];
  dst[0] = s0;
}

/* out = B applied along direction dir of in, B mout x ncols applied to the nodes [off, off + ncols) of in's extent
   ext[dir] (as BrickTensorApply1DRange), in blocks of 4 rows (x 2 lines with BRICK_LINES2). */
static inline __attribute__((always_inline)) void BRICK_LCAT(BRICK_LANE_NAME, _Body)(PetscInt n, PetscInt off, PetscInt ncols, PetscInt mout, PetscInt inner, PetscInt outer, const BRICK_LS B[], const BRICK_LV in[], BRICK_LV out[])
{
  for (PetscInt o = 0; o < outer; o++) {
    const BRICK_LV *src = in + (o * n + off) * inner;
    BRICK_LV       *dst = out + o * mout * inner;
    PetscInt     i   = 0;
    for (; i + 4 <= mout; i += 4) {
      PetscInt a = 0;
#if BRICK_LINES2
      for (; a + 2 <= inner; a += 2) BRICK_LCAT(BRICK_LANE_NAME, _Rows4Lines2)(ncols, inner, B + i * ncols, src + a, dst + i * inner + a);
#endif
      for (; a < inner; a++) BRICK_LCAT(BRICK_LANE_NAME, _Rows4)(ncols, inner, B + i * ncols, src + a, dst + i * inner + a);
    }
    for (; i < mout; i++)
      for (PetscInt a = 0; a < inner; a++) BRICK_LCAT(BRICK_LANE_NAME, _Row1)(ncols, inner, B + i * ncols, src + a, dst + i * inner + a);
  }
}

void BRICK_LANE_NAME(PetscInt dir, const PetscInt ext[], PetscInt mout, PetscInt off, PetscInt ncols, const BRICK_LS B[], const BRICK_LV in[], BRICK_LV out[])
{
  const PetscInt n     = ext[dir];
  PetscInt       inner, outer;

  BrickTensorLines(dir, ext, &inner, &outer);
  /* the contraction length as a literal (BRICK_CONTRACTION_LENGTHS), so that the sum is unrolled */
  switch (ncols) {
#define BRICK_LCASE(N) \
  case N: \
    BRICK_LCAT(BRICK_LANE_NAME, _Body)(n, off, N, mout, inner, outer, B, in, out); \
    return;
    BRICK_CONTRACTION_LENGTHS(BRICK_LCASE)
#undef BRICK_LCASE
  default:
    break;
  }
  BRICK_LCAT(BRICK_LANE_NAME, _Body)(n, off, ncols, mout, inner, outer, B, in, out);
}

#undef BRICK_LCAT
#undef BRICK_LCAT_
#undef BRICK_LINES2
