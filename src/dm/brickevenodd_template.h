/* The even-odd contraction of brickevenodd.c for a value type BRICK_EO_T (a scalar, or a SIMD lane vector of
   bricklanes_template.h): out = B applied along direction dir of in, where B is n x n and centro-symmetric
   (B[n-1-i][n-1-j] = B[i][j], as the 1D mass and stiffness matrices of Q_k on Gauss-Lobatto nodes are). With m = n/2 and
   h = n - m, the sums e_j = u_j + u_{n-1-j} and differences o_j = u_j - u_{n-1-j} (j < m; e_m = u_m when n is odd) give
     P = E e (h x h),  Q = O o (m x m),  out_i = P_i + Q_i,  out_{n-1-i} = P_i - Q_i,  out_m = P_m (n odd),
   so a line costs h^2 + m^2 multiply-adds instead of n^2, about half. The scalar and lane instantiations run the same
   operations in the same order, so a lane's result equals the scalar one bit for bit in the portable build. */
#define BRICK_EO_CAT_(a, b) a##b
#define BRICK_EO_CAT(a, b)  BRICK_EO_CAT_(a, b)
#define BRICK_EO_BODY       BRICK_EO_CAT(BRICK_EO_NAME, _Body)

static inline __attribute__((always_inline)) void BRICK_EO_BODY(PetscInt n, PetscInt inner, PetscInt outer, const BrickEvenOdd *B, const BRICK_EO_T in[], BRICK_EO_T out[])
{
  const PetscInt m = n / 2, h = n - m;

  for (PetscInt o = 0; o < outer; o++) {
    const BRICK_EO_T *src = in + o * n * inner;
    BRICK_EO_T       *dst = out + o * n * inner;
    for (PetscInt a = 0; a < inner; a++) {
      BRICK_EO_T e[(BRICK_MAX_DEGREE + 2) / 2], d[(BRICK_MAX_DEGREE + 1) / 2];
      for (PetscInt j = 0; j < m; j++) {
        e[j] = src[j * inner + a] + src[(n - 1 - j) * inner + a];
        d[j] = src[j * inner + a] - src[(n - 1 - j) * inner + a];
      }
      if (h > m) e[m] = src[m * inner + a];
      for (PetscInt i = 0; i < m; i++) {
        BRICK_EO_T p = e[0] * B->E[i * h], q = d[0] * B->O[i * m];
        for (PetscInt j = 1; j < h; j++) p += e[j] * B->E[i * h + j];
        for (PetscInt j = 1; j < m; j++) q += d[j] * B->O[i * m + j];
        dst[i * inner + a]           = p + q;
        dst[(n - 1 - i) * inner + a] = p - q;
      }
      if (h > m) {
        BRICK_EO_T p = e[0] * B->E[m * h];
        for (PetscInt j = 1; j < h; j++) p += e[j] * B->E[m * h + j];
        dst[m * inner + a] = p;
      }
    }
  }
}

void BRICK_EO_NAME(PetscInt dir, const PetscInt ext[], const BrickEvenOdd *B, const BRICK_EO_T in[], BRICK_EO_T out[])
{
  PetscInt inner, outer;

  BrickTensorLines(dir, ext, &inner, &outer);
  /* the size as a literal, so that the sums unroll and e, d stay in registers */
  switch (B->n) {
#define BRICK_EO_CASE(N) \
  case N: \
    BRICK_EO_BODY(N, inner, outer, B, in, out); \
    return;
    BRICK_EO_CASE(2) BRICK_EO_CASE(3) BRICK_EO_CASE(4) BRICK_EO_CASE(5) BRICK_EO_CASE(6) BRICK_EO_CASE(7) BRICK_EO_CASE(8) BRICK_EO_CASE(9)
#undef BRICK_EO_CASE
  default:
    BRICK_EO_BODY(B->n, inner, outer, B, in, out);
  }
}

#undef BRICK_EO_BODY
#undef BRICK_EO_CAT
#undef BRICK_EO_CAT_
#undef BRICK_EO_NAME
#undef BRICK_EO_T
