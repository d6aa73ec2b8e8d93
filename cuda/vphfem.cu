// The dense steps of PCHFEM (method M1 of [RTRZ21]) on the GPU: assembly and inversion of the Schur complement Pi and
// of one macro cell's block C_1 (cuSOLVER), and the products with their inverses in double, single (optionally TF32),
// half or bfloat16 (cuBLAS; tensor cores with float accumulation for the 16-bit formats). The right-hand sides are the
// columns of column-major double arrays in the set order [C; E; I] with leading dimension ld (see vpatch_cuda.h).
#include "vphfem_impl.h"
#include <vector>

// y = x / s in the storage type
template <typename T>
__global__ void VPConvert(size_t n, const double *__restrict__ x, double s, T *__restrict__ y)
{
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) y[i] = FromDouble<T>(x[i] / s);
}

// packed column c = g * per + q of X lives at X + g * ldx + q * rows; scaled (16-bit formats) and converted into a column
// of prow >= rows entries (the padding zero)
template <typename T, bool SCALE>
__global__ void VPPack(int rows, int prow, int per, int ncols, const double *__restrict__ X, size_t ldx, T *__restrict__ P, float *__restrict__ scale)
{
  __shared__ double red[256];
  for (int c = blockIdx.x; c < ncols; c += gridDim.x) {
    const double *x = X + (size_t)(c / per) * ldx + (size_t)(c % per) * rows;
    double        s = 1.0;
    if (SCALE) {
      double m = 0.0;
      for (int r = threadIdx.x; r < rows; r += blockDim.x) m = fmax(m, fabs(x[r]));
      red[threadIdx.x] = m;
      __syncthreads();
      for (int w = blockDim.x / 2; w > 0; w /= 2) {
        if (threadIdx.x < w) red[threadIdx.x] = fmax(red[threadIdx.x], red[threadIdx.x + w]);
        __syncthreads();
      }
      s = red[0] > 0.0 ? red[0] : 1.0;
      __syncthreads();
      if (threadIdx.x == 0) scale[c] = (float)s;
    }
    for (int r = threadIdx.x; r < prow; r += blockDim.x) P[(size_t)c * prow + r] = FromDouble<T>(r < rows ? x[r] / s : 0.0);
  }
}

// Y (same column map as the packing) = s * scale[c] * O (O's columns have prow entries, the first rows of them used)
template <typename TO, bool SCALE>
__global__ void VPUnpack(int rows, int prow, int per, int ncols, const TO *__restrict__ O, const float *__restrict__ scale, double s, double *__restrict__ Y, size_t ldy)
{
  const size_t total = (size_t)rows * ncols;
  for (size_t p = blockIdx.x * (size_t)blockDim.x + threadIdx.x; p < total; p += (size_t)gridDim.x * blockDim.x) {
    const int    r = (int)(p % rows), c = (int)(p / rows);
    const double f = SCALE ? s * (double)scale[c] : s;
    Y[(size_t)(c / per) * ldy + (size_t)(c % per) * rows + r] = f * (double)O[(size_t)c * prow + r];
  }
}

// Lambda -= G_type for every macro cell at its E nodes (cellE < 0: no such node); cells share edges, hence atomics
__global__ void VPCellsSubtract(int ncell, int nr, const int *__restrict__ cellE, const int *__restrict__ celltype, const double *__restrict__ G, int nE, double *__restrict__ L)
{
  for (int c = blockIdx.x; c < ncell; c += gridDim.x) {
    const int    *e = cellE + (size_t)c * nr;
    const double *g = G + (size_t)celltype[c] * nr * nr;
    for (int p = threadIdx.x; p < nr * nr; p += blockDim.x) {
      const int a = e[p % nr], b = e[p / nr];
      if (a >= 0 && b >= 0) atomicAdd(&L[a + (size_t)b * nE], -g[p]);
    }
  }
}

__global__ void VPAddCOO(size_t nnz, const int *__restrict__ ei, const int *__restrict__ ej, const double *__restrict__ ev, int n, double *__restrict__ L)
{
  for (size_t p = blockIdx.x * (size_t)blockDim.x + threadIdx.x; p < nnz; p += (size_t)gridDim.x * blockDim.x) atomicAdd(&L[ei[p] + (size_t)ej[p] * n], ev[p]);
}

__global__ void VPSetDiagonal(int n, double v, double *a)
{
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < (size_t)n; i += (size_t)gridDim.x * blockDim.x) a[i + i * (size_t)n] = v;
}

// a coupling's CSR rows (host arrays) to the device
static int UploadCoupling(VPCudaHFEM h, int which, int nrows, const int *rows, const int *ptr, const int *col, const double *val)
{
  const int nnz = ptr[nrows];
  auto     &cp  = h->couple[which];
  cp.nrows      = nrows;
  VP_CHECK(cudaMalloc(&cp.rows, sizeof(int) * (nrows + 1)));
  VP_CHECK(cudaMalloc(&cp.ptr, sizeof(int) * (nrows + 1)));
  VP_CHECK(cudaMalloc(&cp.col, sizeof(int) * (nnz + 1)));
  VP_CHECK(cudaMalloc(&cp.val, sizeof(double) * (nnz + 1)));
  VP_CHECK(cudaMemcpy(cp.rows, rows, sizeof(int) * nrows, cudaMemcpyHostToDevice));
  VP_CHECK(cudaMemcpy(cp.ptr, ptr, sizeof(int) * (nrows + 1), cudaMemcpyHostToDevice));
  VP_CHECK(cudaMemcpy(cp.col, col, sizeof(int) * nnz, cudaMemcpyHostToDevice));
  VP_CHECK(cudaMemcpy(cp.val, val, sizeof(double) * nnz, cudaMemcpyHostToDevice));
  return 0;
}

extern "C" int VPCudaHFEMCreate(int nC, int nE, int nb, int ncell, int prec, int tf32, const double *LC, const double *B, VPCudaHFEM *hp)
{
  VPCudaHFEM h = new VPCudaHFEM_s();
  *hp          = h;
  h->nC = nC, h->nE = nE, h->nb = nb, h->ncell = ncell, h->prec = prec, h->tf32 = tf32;
  h->sC = h->sPi = 1.0;
  VP_CUBLAS(cublasCreate(&h->blas));
  VP_CUSOLVER(cusolverDnCreate(&h->solver));
  VP_CHECK(cudaMalloc(&h->info, sizeof(int)));
  if (nC && nE) {
    // Ap_CE (nC x nE, column-major) has a few entries a column (a macro hat is bilinear in its cells: it couples only with
    // the edge functions of the edges of its four cells); the fused path multiplies by it sparse, as E rows and as C rows
    std::vector<int>    er, ep(1, 0), ec, cr, cp(1, 0), cc, count(nC + 1, 0);
    std::vector<double> ev, cv;
    for (int e = 0; e < nE; e++) {
      for (int c = 0; c < nC; c++)
        if (B[c + (size_t)e * nC] != 0.0) ec.push_back(c), ev.push_back(B[c + (size_t)e * nC]), count[c]++;
      if ((int)ec.size() > ep.back()) er.push_back(nC + e), ep.push_back((int)ec.size());
    }
    // its transpose, by C rows (counting sort of the entries by column)
    for (int c = 0; c < nC; c++)
      if (count[c]) cr.push_back(c), cp.push_back(cp.back() + count[c]);
    cc.resize(ec.size()), cv.resize(ec.size());
    {
      std::vector<int> next(nC, -1);
      for (size_t r = 0; r < cr.size(); r++) next[cr[r]] = cp[r];
      for (size_t r = 0; r < er.size(); r++)
        for (int k = ep[r]; k < ep[r + 1]; k++) cc[next[ec[k]]] = er[r], cv[next[ec[k]]++] = ev[k];
    }
    int err;
    if ((err = UploadCoupling(h, 2, (int)er.size(), er.data(), ep.data(), ec.data(), ev.data()))) return err;
    if ((err = UploadCoupling(h, 3, (int)cr.size(), cr.data(), cp.data(), cc.data(), cv.data()))) return err;
  }
  if (nC) {
    const double one = 1.0;
    VP_CHECK(cudaMalloc(&h->LC, sizeof(double) * nC * nC));
    VP_CHECK(cudaMemcpy(h->LC, LC, sizeof(double) * nC * nC, cudaMemcpyHostToDevice));
    // A_CC^-1 explicitly: the fused path applies it to n columns as one DGEMM (four triangular solves from the right took
    // 1.8 ms of a 22 ms pass at h = 1/1024 with 256 columns on an H100; A_CC is the prehandled macro-grid Laplacian,
    // kappa about |C|, so the explicit inverse loses nothing visible in double)
    VP_CHECK(cudaMalloc(&h->Ainv, sizeof(double) * nC * nC));
    VP_CHECK(cudaMemset(h->Ainv, 0, sizeof(double) * nC * nC));
    VPSetDiagonal<<<Blocks(nC), 256>>>(nC, 1.0, h->Ainv);
    VP_CHECK(cudaGetLastError());
    VP_CUBLAS(cublasDtrsm(h->blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, nC, nC, &one, h->LC, nC, h->Ainv, nC));
    VP_CUBLAS(cublasDtrsm(h->blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T, CUBLAS_DIAG_NON_UNIT, nC, nC, &one, h->LC, nC, h->Ainv, nC));
    if (nE) {
      VP_CHECK(cudaMalloc(&h->B, sizeof(double) * nC * nE));
      VP_CHECK(cudaMemcpy(h->B, B, sizeof(double) * nC * nE, cudaMemcpyHostToDevice));
      VP_CUBLAS(cublasDtrsm(h->blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, nC, nE, &one, h->LC, nC, h->B, nC));
    }
  }
  return 0;
}

// the extreme eigenvalues' ratio of the symmetric matrix a (lower triangle; a copy is taken); the 64-bit API, as n^2
// passes 2^31 for the Schur complements of fine grids
static int Condition(VPCudaHFEM h, int n, const double *a, double *kappa)
{
  cusolverDnParams_t params;
  double            *c, *w, wlo, whi;
  void              *dwork, *hwork = NULL;
  size_t             wd, wh;
  int                info;
  VP_CHECK(cudaMalloc(&c, sizeof(double) * n * (size_t)n));
  VP_CHECK(cudaMemcpy(c, a, sizeof(double) * n * (size_t)n, cudaMemcpyDeviceToDevice));
  VP_CHECK(cudaMalloc(&w, sizeof(double) * n));
  VP_CUSOLVER(cusolverDnCreateParams(&params));
  VP_CUSOLVER(cusolverDnXsyevd_bufferSize(h->solver, params, CUSOLVER_EIG_MODE_NOVECTOR, CUBLAS_FILL_MODE_LOWER, n, CUDA_R_64F, c, n, CUDA_R_64F, w, CUDA_R_64F, &wd, &wh));
  VP_CHECK(cudaMalloc(&dwork, wd ? wd : 1));
  if (wh) hwork = malloc(wh);
  VP_CUSOLVER(cusolverDnXsyevd(h->solver, params, CUSOLVER_EIG_MODE_NOVECTOR, CUBLAS_FILL_MODE_LOWER, n, CUDA_R_64F, c, n, CUDA_R_64F, w, CUDA_R_64F, dwork, wd, hwork, wh, h->info));
  VP_CHECK(cudaMemcpy(&info, h->info, sizeof(int), cudaMemcpyDeviceToHost));
  VP_CHECK(cudaMemcpy(&wlo, w, sizeof(double), cudaMemcpyDeviceToHost));
  VP_CHECK(cudaMemcpy(&whi, w + n - 1, sizeof(double), cudaMemcpyDeviceToHost));
  free(hwork);
  VP_CHECK(cudaFree(dwork));
  VP_CHECK(cudaFree(w));
  VP_CHECK(cudaFree(c));
  VP_CUSOLVER(cusolverDnDestroyParams(params));
  if (info) return VPC_ERR_NOT_SPD;
  *kappa = whi / wlo;
  return 0;
}

// a (n x n, double) stored in the precision as a / s (s: the largest entry for the 16-bit formats, else 1), padded with
// zeros to the order Padded(n); a is freed unless it is the store (double, no padding)
static int Store(VPCudaHFEM h, int n, double *a, void **store, double *s)
{
  const int    np = Padded(n);
  const size_t nn = (size_t)np * np;
  *s              = 1.0;
  if (np != n) {
    double *b;
    VP_CHECK(cudaMalloc(&b, sizeof(double) * nn));
    VP_CHECK(cudaMemset(b, 0, sizeof(double) * nn));
    VP_CHECK(cudaMemcpy2D(b, sizeof(double) * np, a, sizeof(double) * n, sizeof(double) * n, n, cudaMemcpyDeviceToDevice));
    VP_CHECK(cudaFree(a));
    a = b;
  }
  if (h->prec == VPC_HFEM_DOUBLE) {
    *store = a;
    return 0;
  }
  if (h->prec == VPC_HFEM_HALF || h->prec == VPC_HFEM_BFLOAT16) {
    int64_t idx = 0;
    double  amax;
    VP_CUBLAS(cublasIdamax_64(h->blas, (int64_t)nn, a, 1, &idx));
    VP_CHECK(cudaMemcpy(&amax, a + (idx - 1), sizeof(double), cudaMemcpyDeviceToHost));
    *s = fabs(amax) > 0 ? fabs(amax) : 1.0;
  }
  VP_CHECK(cudaMalloc(store, StorageSize(h->prec) * nn));
  if (h->prec == VPC_HFEM_SINGLE) VPConvert<float><<<Blocks(nn), 256>>>(nn, a, *s, (float *)*store);
  else if (h->prec == VPC_HFEM_HALF) VPConvert<__half><<<Blocks(nn), 256>>>(nn, a, *s, (__half *)*store);
  else VPConvert<__nv_bfloat16><<<Blocks(nn), 256>>>(nn, a, *s, (__nv_bfloat16 *)*store);
  VP_CHECK(cudaGetLastError());
  VP_CHECK(cudaFree(a));
  return 0;
}


// *inv (new, n x n) = the inverse of a (symmetric positive definite, lower triangle; a is freed): a Cholesky
// factorization and the identity's columns solved with it, by the 64-bit API (potri's 32-bit workspace does not reach
// the n^2 > 2^31 of the Schur complements of fine grids)
static int Invert(VPCudaHFEM h, int n, double *a, double **inv)
{
  cusolverDnParams_t params;
  void              *dwork, *hwork = NULL;
  size_t             wd, wh;
  int                info;
  VP_CUSOLVER(cusolverDnCreateParams(&params));
  VP_CUSOLVER(cusolverDnXpotrf_bufferSize(h->solver, params, CUBLAS_FILL_MODE_LOWER, n, CUDA_R_64F, a, n, CUDA_R_64F, &wd, &wh));
  VP_CHECK(cudaMalloc(&dwork, wd ? wd : 1));
  if (wh) hwork = malloc(wh);
  VP_CUSOLVER(cusolverDnXpotrf(h->solver, params, CUBLAS_FILL_MODE_LOWER, n, CUDA_R_64F, a, n, CUDA_R_64F, dwork, wd, hwork, wh, h->info));
  VP_CHECK(cudaMemcpy(&info, h->info, sizeof(int), cudaMemcpyDeviceToHost));
  free(hwork);
  VP_CHECK(cudaFree(dwork));
  if (info) return VPC_ERR_NOT_SPD;
  VP_CHECK(cudaMalloc(inv, sizeof(double) * n * (size_t)n));
  VP_CHECK(cudaMemset(*inv, 0, sizeof(double) * n * (size_t)n));
  VPSetDiagonal<<<Blocks(n), 256>>>(n, 1.0, *inv);
  VP_CHECK(cudaGetLastError());
  VP_CUSOLVER(cusolverDnXpotrs(h->solver, params, CUBLAS_FILL_MODE_LOWER, n, n, CUDA_R_64F, a, n, CUDA_R_64F, *inv, n, h->info));
  VP_CHECK(cudaMemcpy(&info, h->info, sizeof(int), cudaMemcpyDeviceToHost));
  VP_CUSOLVER(cusolverDnDestroyParams(params));
  VP_CHECK(cudaFree(a));
  if (info) return VPC_ERR_NOT_SPD;
  return 0;
}

extern "C" int VPCudaHFEMSetCinv(VPCudaHFEM h, const double *Cinv)
{
  const size_t nn = (size_t)h->nb * h->nb;
  double      *a;
  if (!h->nb) return 0;
  VP_CHECK(cudaMalloc(&a, sizeof(double) * nn));
  VP_CHECK(cudaMemcpy(a, Cinv, sizeof(double) * nn, cudaMemcpyHostToDevice));
  return Store(h, h->nb, a, &h->Cinv, &h->sC);
}

// a (host, nv doubles) stored in the precision as a / s (s: the largest entry for the 16-bit formats, else 1)
static int StoreHost(VPCudaHFEM h, size_t nv, const double *a, void **store, double *s)
{
  double *d;
  *s = 1.0;
  if (h->prec == VPC_HFEM_HALF || h->prec == VPC_HFEM_BFLOAT16) {
    double m = 0.0;
    for (size_t k = 0; k < nv; k++) m = fmax(m, fabs(a[k]));
    *s = m > 0.0 ? m : 1.0;
  }
  VP_CHECK(cudaMalloc(&d, sizeof(double) * (nv + 1)));
  VP_CHECK(cudaMemcpy(d, a, sizeof(double) * nv, cudaMemcpyHostToDevice));
  if (h->prec == VPC_HFEM_DOUBLE) {
    *store = d;
    return 0;
  }
  VP_CHECK(cudaMalloc(store, StorageSize(h->prec) * (nv + 1)));
  if (h->prec == VPC_HFEM_SINGLE) VPConvert<float><<<Blocks(nv), 256>>>(nv, d, *s, (float *)*store);
  else if (h->prec == VPC_HFEM_HALF) VPConvert<__half><<<Blocks(nv), 256>>>(nv, d, *s, (__half *)*store);
  else VPConvert<__nv_bfloat16><<<Blocks(nv), 256>>>(nv, d, *s, (__nv_bfloat16 *)*store);
  VP_CHECK(cudaGetLastError());
  VP_CHECK(cudaFree(d));
  return 0;
}

extern "C" int VPCudaHFEMSetFold(VPCudaHFEM h, int ns, double alpha, const double *Cinv, const double *G)
{
  const int    nb = h->nb, prow = Padded(nb), K = prow + ns;
  std::vector<double> fa((size_t)prow * ns, 0.0), fb((size_t)K * prow, 0.0);
  int          err;
  if (!nb || ns <= 0 || ns % 8) return (int)cudaErrorInvalidValue; // ns = 4 s, s >= 2: 16-byte aligned blocks
  // FA (prow x ns): G with zero padding rows; FB (K x prow): C_1^-1 above, -G^T / alpha below (column-major)
  for (int p = 0; p < ns; p++)
    for (int l = 0; l < nb; l++) fa[l + (size_t)p * prow] = G[l + (size_t)p * nb];
  for (int l = 0; l < nb; l++) {
    for (int k = 0; k < nb; k++) fb[k + (size_t)l * K] = Cinv[k + (size_t)l * nb];
    for (int p = 0; p < ns; p++) fb[prow + p + (size_t)l * K] = -G[l + (size_t)p * nb] / alpha;
  }
  VP_CHECK(cudaFree(h->FA));
  VP_CHECK(cudaFree(h->FB));
  h->FA = h->FB = NULL;
  if ((err = StoreHost(h, fa.size(), fa.data(), &h->FA, &h->sFA))) return err;
  if ((err = StoreHost(h, fb.size(), fb.data(), &h->FB, &h->sFB))) return err;
  h->ns    = ns;
  h->alpha = alpha;
  return 0;
}

extern "C" int VPCudaHFEMSetPi(VPCudaHFEM h, size_t nnz, const int *ei, const int *ej, const double *ev, int ntype, int nr, const double *G, const int *cellE, const int *celltype, double *kappa)
{
  const int    nE = h->nE, nC = h->nC;
  const size_t nn = (size_t)nE * nE;
  double      *L, *dev, *dG;
  int         *dei, *dej, *dcellE, *dtype;
  if (!nE) return 0;
  VP_CHECK(cudaMalloc(&L, sizeof(double) * nn));
  VP_CHECK(cudaMemset(L, 0, sizeof(double) * nn));
  // the prehandled E-E block (sparse), then Lambda = E - sum_cells D_k C_1^-1 D_k^T (eq. 13)
  VP_CHECK(cudaMalloc(&dei, sizeof(int) * (nnz + 1)));
  VP_CHECK(cudaMalloc(&dej, sizeof(int) * (nnz + 1)));
  VP_CHECK(cudaMalloc(&dev, sizeof(double) * (nnz + 1)));
  VP_CHECK(cudaMemcpy(dei, ei, sizeof(int) * nnz, cudaMemcpyHostToDevice));
  VP_CHECK(cudaMemcpy(dej, ej, sizeof(int) * nnz, cudaMemcpyHostToDevice));
  VP_CHECK(cudaMemcpy(dev, ev, sizeof(double) * nnz, cudaMemcpyHostToDevice));
  VPAddCOO<<<Blocks(nnz), 256>>>(nnz, dei, dej, dev, nE, L);
  VP_CHECK(cudaGetLastError());
  VP_CHECK(cudaFree(dei));
  VP_CHECK(cudaFree(dej));
  VP_CHECK(cudaFree(dev));
  if (nr && h->ncell) {
    VP_CHECK(cudaMalloc(&dG, sizeof(double) * (size_t)ntype * nr * nr));
    VP_CHECK(cudaMalloc(&dcellE, sizeof(int) * (size_t)h->ncell * nr));
    VP_CHECK(cudaMalloc(&dtype, sizeof(int) * (size_t)h->ncell));
    VP_CHECK(cudaMemcpy(dG, G, sizeof(double) * (size_t)ntype * nr * nr, cudaMemcpyHostToDevice));
    VP_CHECK(cudaMemcpy(dcellE, cellE, sizeof(int) * (size_t)h->ncell * nr, cudaMemcpyHostToDevice));
    VP_CHECK(cudaMemcpy(dtype, celltype, sizeof(int) * (size_t)h->ncell, cudaMemcpyHostToDevice));
    VPCellsSubtract<<<h->ncell < 65535 ? h->ncell : 65535, 256>>>(h->ncell, nr, dcellE, dtype, dG, nE, L);
    VP_CHECK(cudaGetLastError());
    VP_CHECK(cudaFree(dG));
    VP_CHECK(cudaFree(dcellE));
    VP_CHECK(cudaFree(dtype));
  }
  // Pi = Lambda - B^T B (eq. 14), lower triangle
  if (nC) {
    const double mone = -1.0, one = 1.0;
    VP_CUBLAS(cublasDsyrk(h->blas, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T, nE, nC, &mone, h->B, nC, &one, L, nE));
  }
  if (kappa) {
    int err = Condition(h, nE, L, kappa);
    if (err) return err;
  }
  {
    double *inv;
    int     err = Invert(h, nE, L, &inv);
    if (err) return err;
    return Store(h, nE, inv, &h->Piinv, &h->sPi);
  }
}

// Y (column map of the packing: rows x (per * groups) at X + g ldx + q rows) = M X, M (rows x rows, stored with the
// padded order) in the precision; step: the first of the three timer steps (pack, product, unpack) of this inverse
static int ApplyInverse(VPCudaHFEM h, const void *M, double sM, int rows, int per, int groups, const double *X, size_t ldx, double *Y, size_t ldy, int step)
{
  const int    ncols = per * groups, prow = Padded(rows);
  const size_t nvals = (size_t)rows * ncols, pvals = (size_t)prow * ncols;
  const int    pb    = ncols < 65535 ? ncols : 65535;
  int          err;
  if (!rows || !ncols) return 0;
  if ((err = Grow(&h->pack, &h->packcap, StorageSize(h->prec) * pvals))) return err;
  if ((err = Grow(&h->out, &h->outcap, (h->prec == VPC_HFEM_DOUBLE ? sizeof(double) : sizeof(float)) * pvals))) return err;
  if ((err = Grow((void **)&h->colscale, &h->colcap, sizeof(float) * ncols))) return err;
  switch (h->prec) {
  case VPC_HFEM_DOUBLE: {
    const double one = 1.0, zero = 0.0;
    VP_TICK();
    VPPack<double, false><<<pb, 256>>>(rows, prow, per, ncols, X, ldx, (double *)h->pack, h->colscale);
    VP_CHECK(cudaGetLastError());
    VP_TOCK(step);
    VP_TICK();
    VP_CUBLAS(cublasDgemm(h->blas, CUBLAS_OP_N, CUBLAS_OP_N, prow, ncols, prow, &one, (const double *)M, prow, (const double *)h->pack, prow, &zero, (double *)h->out, prow));
    VP_TOCK(step + 1);
    VP_TICK();
    VPUnpack<double, false><<<Blocks(nvals), 256>>>(rows, prow, per, ncols, (const double *)h->out, h->colscale, sM, Y, ldy);
    break;
  }
  case VPC_HFEM_SINGLE: {
    const float one = 1.0f, zero = 0.0f;
    VP_TICK();
    VPPack<float, false><<<pb, 256>>>(rows, prow, per, ncols, X, ldx, (float *)h->pack, h->colscale);
    VP_CHECK(cudaGetLastError());
    VP_TOCK(step);
    VP_TICK();
    VP_CUBLAS(cublasGemmEx(h->blas, CUBLAS_OP_N, CUBLAS_OP_N, prow, ncols, prow, &one, M, CUDA_R_32F, prow, h->pack, CUDA_R_32F, prow, &zero, h->out, CUDA_R_32F, prow, h->tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    VP_TOCK(step + 1);
    VP_TICK();
    VPUnpack<float, false><<<Blocks(nvals), 256>>>(rows, prow, per, ncols, (const float *)h->out, h->colscale, sM, Y, ldy);
    break;
  }
  default: {
    const float          one = 1.0f, zero = 0.0f;
    const cudaDataType_t t   = h->prec == VPC_HFEM_HALF ? CUDA_R_16F : CUDA_R_16BF;
    VP_TICK();
    if (h->prec == VPC_HFEM_HALF) VPPack<__half, true><<<pb, 256>>>(rows, prow, per, ncols, X, ldx, (__half *)h->pack, h->colscale);
    else VPPack<__nv_bfloat16, true><<<pb, 256>>>(rows, prow, per, ncols, X, ldx, (__nv_bfloat16 *)h->pack, h->colscale);
    VP_CHECK(cudaGetLastError());
    VP_TOCK(step);
    VP_TICK();
    VP_CUBLAS(cublasGemmEx(h->blas, CUBLAS_OP_N, CUBLAS_OP_N, prow, ncols, prow, &one, M, t, prow, h->pack, t, prow, &zero, h->out, CUDA_R_32F, prow, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    VP_TOCK(step + 1);
    VP_TICK();
    VPUnpack<float, true><<<Blocks(nvals), 256>>>(rows, prow, per, ncols, (const float *)h->out, h->colscale, sM, Y, ldy);
  }
  }
  VP_CHECK(cudaGetLastError());
  VP_TOCK(step + 2);
  return 0;
}

extern "C" int VPCudaHFEMForward(VPCudaHFEM h, int n, double *Z, double *Y, int ld)
{
  const int    nC = h->nC, nE = h->nE;
  const double one = 1.0, mone = -1.0;
  int          err;
  for (int k = 0; k < VPC_HFEM_NSTEP; k++) h->last[k] = 0.0; // a new solve
  VP_TICK();
  if (nC) VP_CUBLAS(cublasDtrsm(h->blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, nC, n, &one, h->LC, nC, Z, ld));
  VP_TOCK(VPC_HFEM_STEP_MACRO);
  if ((err = ApplyInverse(h, h->Cinv, h->sC, h->nb, h->ncell, n, Z + nC + nE, ld, Y + nC + nE, ld, VPC_HFEM_STEP_PACK_C))) return err;
  VP_TICK();
  if (nC && nE) VP_CUBLAS(cublasDgemm(h->blas, CUBLAS_OP_T, CUBLAS_OP_N, nE, n, nC, &mone, h->B, nC, Z, ld, &one, Z + nC, ld));
  VP_TOCK(VPC_HFEM_STEP_MACRO);
  return 0;
}

extern "C" int VPCudaHFEMMiddle(VPCudaHFEM h, int n, double *Z, double *Y, int ld)
{
  const int    nC = h->nC, nE = h->nE;
  const double one = 1.0, mone = -1.0;
  int          err;
  if (!nE) return 0;
  if ((err = ApplyInverse(h, h->Piinv, h->sPi, nE, 1, n, Z + nC, ld, Y + nC, ld, VPC_HFEM_STEP_PACK_PI))) return err;
  VP_TICK();
  if (nC) VP_CUBLAS(cublasDgemm(h->blas, CUBLAS_OP_N, CUBLAS_OP_N, nC, n, nE, &mone, h->B, nC, Y + nC, ld, &one, Z, ld));
  VP_TOCK(VPC_HFEM_STEP_MACRO);
  return 0;
}

extern "C" int VPCudaHFEMBackward(VPCudaHFEM h, int n, double *Z, double *Y, int ld)
{
  const int    nC = h->nC, nE = h->nE;
  const double one = 1.0;
  int          err;
  if (nE && (err = ApplyInverse(h, h->Cinv, h->sC, h->nb, h->ncell, n, Z + nC + nE, ld, Y + nC + nE, ld, VPC_HFEM_STEP_PACK_C))) return err;
  if (nC) {
    VP_TICK();
    VP_CUBLAS(cublasDtrsm(h->blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T, CUBLAS_DIAG_NON_UNIT, nC, n, &one, h->LC, nC, Z, ld));
    VP_CHECK(cudaMemcpy2D(Y, sizeof(double) * ld, Z, sizeof(double) * ld, sizeof(double) * nC, n, cudaMemcpyDeviceToDevice));
    VP_TOCK(VPC_HFEM_STEP_MACRO);
  }
  return 0;
}

// Z[rows[q]] -= sum_k val[k] Y[col[k]] for the coupled rows q, column blockIdx.y
__global__ void VPHFEMCouple(int nrows, const int *__restrict__ rows, const int *__restrict__ ptr, const int *__restrict__ col, const double *__restrict__ val, const double *__restrict__ Y, double *__restrict__ Z, size_t ld)
{
  const size_t c = blockIdx.y * ld;
  for (int q = blockIdx.x * blockDim.x + threadIdx.x; q < nrows; q += gridDim.x * blockDim.x) {
    double sum = 0.0;
    for (int k = ptr[q]; k < ptr[q + 1]; k++) sum += val[k] * Y[c + col[k]];
    Z[c + rows[q]] -= sum;
  }
}

extern "C" int VPCudaHFEMSetCoupling(VPCudaHFEM h, int which, int nrows, const int *rows, const int *ptr, const int *col, const double *val)
{
  int err;
  if (which < 0 || which > 1) return (int)cudaErrorInvalidValue;
  if ((err = UploadCoupling(h, which, nrows, rows, ptr, col, val))) return err;
  if (which == 1) {
    // the fused path reads D^T by I row: the offsets of every I row, empty rows included
    const int        nI = h->nb * h->ncell, base = h->nC + h->nE;
    std::vector<int> full((size_t)nI + 1);
    int              q = 0;
    for (int r = 0; r <= nI; r++) {
      while (q < nrows && rows[q] - base < r) q++;
      full[r] = q < nrows ? ptr[q] : ptr[nrows];
    }
    std::vector<int> row((size_t)ptr[nrows] + 1);
    for (int r = 0; r < nrows; r++)
      for (int k = ptr[r]; k < ptr[r + 1]; k++) row[k] = rows[r] - base;
    VP_CHECK(cudaMalloc(&h->dtptr, sizeof(int) * ((size_t)nI + 1)));
    VP_CHECK(cudaMemcpy(h->dtptr, full.data(), sizeof(int) * ((size_t)nI + 1), cudaMemcpyHostToDevice));
    h->dtnnz = (size_t)ptr[nrows];
    VP_CHECK(cudaMalloc(&h->dtrow, sizeof(int) * row.size()));
    VP_CHECK(cudaMemcpy(h->dtrow, row.data(), sizeof(int) * row.size(), cudaMemcpyHostToDevice));
  }
  return 0;
}

extern "C" int VPCudaHFEMCouple(VPCudaHFEM h, int which, int n, const double *Y, double *Z, int ld)
{
  const auto &cp = h->couple[which];
  if (!cp.nrows) return 0;
  for (int c0 = 0; c0 < n; c0 += 65535) {
    const int    m = n - c0 < 65535 ? n - c0 : 65535;
    const size_t o = (size_t)c0 * ld, b = ((size_t)cp.nrows + 255) / 256;
    VPHFEMCouple<<<dim3((unsigned)(b < 4096 ? b : 4096), (unsigned)m), 256>>>(cp.nrows, cp.rows, cp.ptr, cp.col, cp.val, Y + o, Z + o, (size_t)ld);
    VP_CHECK(cudaGetLastError());
  }
  return 0;
}

// ---- the whole solve with node-major work arrays (element (row k, column c) at k n + c; see VPCudaHFEMSolveNM) ----

// the largest |X| of each column c of each block q (rows x n at X + q rows n) over a chunk of rows, then over the chunks
__global__ void VPNMColMaxPartial(int rows, int n, int chunk, int nchunk, const double *__restrict__ X, float *__restrict__ partial)
{
  const int q = blockIdx.x / nchunk, k = blockIdx.x % nchunk, i0 = k * chunk, i1 = min(rows, i0 + chunk);
  for (int c = threadIdx.x; c < n; c += blockDim.x) {
    double m = 0.0;
    for (int i = i0; i < i1; i++) m = fmax(m, fabs(X[((size_t)q * rows + i) * n + c]));
    partial[(size_t)blockIdx.x * n + c] = (float)m;
  }
}
__global__ void VPNMColMaxFinal(int groups, int n, int nchunk, const float *__restrict__ partial, float *__restrict__ scale)
{
  const unsigned int total = (unsigned int)groups * n;
  for (unsigned int t = blockIdx.x * blockDim.x + threadIdx.x; t < total; t += gridDim.x * blockDim.x) {
    const unsigned int q = t / n, c = t % n;
    float              m = 0.0f;
    for (int k = 0; k < nchunk; k++) m = fmaxf(m, partial[((size_t)q * nchunk + k) * n + c]);
    scale[t] = m > 0.0f ? m : 1.0f;
  }
}

// P (blocks prow x n, padding rows zero) = X / scale, converted
template <typename T, bool SCALE>
__global__ void VPNMPack(int rows, int prow, int groups, int n, const double *__restrict__ X, const float *__restrict__ scale, T *__restrict__ P)
{
  const unsigned int total = (unsigned int)groups * prow * n;
  for (unsigned int t = blockIdx.x * blockDim.x + threadIdx.x; t < total; t += gridDim.x * blockDim.x) {
    const unsigned int c = t % n, r = t / n, i = r % prow, q = r / prow;
    double             v = i < (unsigned int)rows ? X[((size_t)q * rows + i) * n + c] : 0.0;
    if (SCALE) v *= (double)(1.0f / scale[q * n + c]); // a float reciprocal, not a double division per value (16-bit formats)
    P[t] = FromDouble<T>(v);
  }
}

// Y (blocks rows x n) = s scale O (blocks prow x n; TRANS: one block, O column-major prow x n, as the GEMM of Pi^-1 leaves it)
template <typename TO, bool SCALE, bool TRANS>
__global__ void VPNMUnpack(int rows, int prow, int groups, int n, const TO *__restrict__ O, const float *__restrict__ scale, double s, double *__restrict__ Y)
{
  const unsigned int total = (unsigned int)groups * rows * n;
  for (unsigned int t = blockIdx.x * blockDim.x + threadIdx.x; t < total; t += gridDim.x * blockDim.x) {
    const unsigned int c = t % n, r = t / n, i = r % rows, q = r / rows;
    const double       f = SCALE ? s * (double)scale[q * n + c] : s;
    Y[t] = f * (double)O[TRANS ? (size_t)c * prow + i : ((size_t)q * prow + i) * n + c];
  }
}

// the same for one block with O column-major (TRANS above) through 32 x 32 tiles in shared memory: the reads of O run along
// its columns and the writes of Y along its rows (the element-wise TRANS read walked O with a stride of prow per thread,
// one sector per value). Block (32, 8), tile (blockIdx.x: 32 rows, blockIdx.y: 32 columns).
template <typename TO, bool SCALE>
__global__ void __launch_bounds__(256) VPNMUnpackTiled(int rows, int prow, int n, const TO *__restrict__ O, const float *__restrict__ scale, double s, double *__restrict__ Y)
{
  __shared__ TO tile[32][33];
  const int     i0 = blockIdx.x * 32, c0 = blockIdx.y * 32, tx = threadIdx.x, ty = threadIdx.y;
  for (int k = ty; k < 32; k += 8) {
    const int c = c0 + k, i = i0 + tx;
    if (c < n && i < rows) tile[k][tx] = O[(size_t)c * prow + i];
  }
  __syncthreads();
  const int c = c0 + tx;
  if (c >= n) return;
  const double f = SCALE ? s * (double)scale[c] : s;
  for (int k = ty; k < 32; k += 8) {
    const int i = i0 + k;
    if (i < rows) Y[(size_t)i * n + c] = f * (double)tile[tx][k];
  }
}

// Z[rows[q]] -= sum_k val[k] Y[col[k]], node-major: one thread per (row, column)
__global__ void VPNMCouple(int nrows, int n, const int *__restrict__ rows, const int *__restrict__ ptr, const int *__restrict__ col, const double *__restrict__ val, const double *__restrict__ Y, double *__restrict__ Z)
{
  const unsigned int total = (unsigned int)nrows * n;
  for (unsigned int t = blockIdx.x * blockDim.x + threadIdx.x; t < total; t += gridDim.x * blockDim.x) {
    const unsigned int q = t / n, c = t % n;
    double             sum = 0.0;
    for (int k = ptr[q]; k < ptr[q + 1]; k++) sum += val[k] * Y[(size_t)col[k] * n + c];
    Z[(size_t)rows[q] * n + c] -= sum;
  }
}

static unsigned BlocksNM(size_t total)
{
  size_t b = (total + 255) / 256;
  return (unsigned)(b < 65535 * 32 ? (b ? b : 1) : 65535 * 32);
}

int VPHFEMInverseProduct(VPCudaHFEM h, const void *M, int prow, int groups, int n)
{
  // one block (Pi^-1) with several columns: M P^T, column-major out (the long side as the GEMM's rows: 688 against 470
  // TFLOP/s for 61,504^2 times 256 columns in half on an H100)
  const bool trans = groups == 1 && n > 1;
  const bool                one_col = n == 1; // one column: the blocks are vectors, one GEMM M [x_1 ... x_groups] (tensor cores, not a batch of GEMVs)
  const cudaDataType_t      t = h->prec == VPC_HFEM_DOUBLE ? CUDA_R_64F : (h->prec == VPC_HFEM_SINGLE ? CUDA_R_32F : (h->prec == VPC_HFEM_HALF ? CUDA_R_16F : CUDA_R_16BF));
  const cudaDataType_t      to = h->prec == VPC_HFEM_DOUBLE ? CUDA_R_64F : CUDA_R_32F;
  const cublasComputeType_t ct = h->prec == VPC_HFEM_DOUBLE ? CUBLAS_COMPUTE_64F : (h->prec == VPC_HFEM_SINGLE && h->tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F);
  const double              oned = 1.0, zerod = 0.0;
  const float               onef = 1.0f, zerof = 0.0f;
  const void               *one = h->prec == VPC_HFEM_DOUBLE ? (const void *)&oned : (const void *)&onef, *zero = h->prec == VPC_HFEM_DOUBLE ? (const void *)&zerod : (const void *)&zerof;
  if (one_col) VP_CUBLAS(cublasGemmEx(h->blas, CUBLAS_OP_N, CUBLAS_OP_N, prow, groups, prow, one, M, t, prow, h->pack, t, prow, zero, h->out, to, prow, ct, CUBLAS_GEMM_DEFAULT));
  else if (trans) VP_CUBLAS(cublasGemmEx(h->blas, CUBLAS_OP_N, CUBLAS_OP_T, prow, n, prow, one, M, t, prow, h->pack, t, n, zero, h->out, to, prow, ct, CUBLAS_GEMM_DEFAULT));
  else VP_CUBLAS(cublasGemmStridedBatchedEx(h->blas, CUBLAS_OP_N, CUBLAS_OP_N, n, prow, prow, one, h->pack, t, n, (long long)n * prow, M, t, prow, 0, zero, h->out, to, n, (long long)n * prow, groups, ct, CUBLAS_GEMM_DEFAULT));
  return 0;
}

// Y = M X for every block q (rows x n, node-major) of X, M (rows x rows, stored padded) in the precision: one strided
// batched GEMM Y_q^T = X_q^T M (M is symmetric) over the packed, per-column scaled blocks (one block: M X_1^T)
int VPHFEMApplyInverseNM(VPCudaHFEM h, const void *M, double sM, int rows, int groups, int n, const double *X, double *Y, int step)
{
  const int    prow = Padded(rows), chunk = 256, nchunk = (rows + chunk - 1) / chunk;
  const size_t pvals = (size_t)groups * prow * n;
  const bool   scaled = h->prec == VPC_HFEM_HALF || h->prec == VPC_HFEM_BFLOAT16;
  const size_t osize = h->prec == VPC_HFEM_DOUBLE ? sizeof(double) : sizeof(float);
  // one block (Pi^-1) with several columns: the product is column-major (VPHFEMInverseProduct), unpacked with a
  // transposing read
  const bool   trans = groups == 1 && n > 1;
  int          err;
  if (!rows || !groups || !n) return 0;
  if (pvals >= (size_t)1 << 31) return (int)cudaErrorInvalidValue; // 32-bit element indices
  if ((err = Grow(&h->pack, &h->packcap, StorageSize(h->prec) * pvals))) return err;
  if ((err = Grow(&h->out, &h->outcap, osize * pvals))) return err;
  if ((err = Grow((void **)&h->colscale, &h->colcap, sizeof(float) * groups * n))) return err;
  VP_TICK();
  if (scaled) {
    if ((err = Grow((void **)&h->partial, &h->partialcap, sizeof(float) * groups * nchunk * n))) return err;
    VPNMColMaxPartial<<<groups * nchunk, 256>>>(rows, n, chunk, nchunk, X, h->partial);
    VP_CHECK(cudaGetLastError());
    VPNMColMaxFinal<<<BlocksNM((size_t)groups * n), 256>>>(groups, n, nchunk, h->partial, h->colscale);
    VP_CHECK(cudaGetLastError());
  }
  switch (h->prec) {
  case VPC_HFEM_DOUBLE:
    VPNMPack<double, false><<<BlocksNM(pvals), 256>>>(rows, prow, groups, n, X, h->colscale, (double *)h->pack);
    break;
  case VPC_HFEM_SINGLE:
    VPNMPack<float, false><<<BlocksNM(pvals), 256>>>(rows, prow, groups, n, X, h->colscale, (float *)h->pack);
    break;
  case VPC_HFEM_HALF:
    VPNMPack<__half, true><<<BlocksNM(pvals), 256>>>(rows, prow, groups, n, X, h->colscale, (__half *)h->pack);
    break;
  default:
    VPNMPack<__nv_bfloat16, true><<<BlocksNM(pvals), 256>>>(rows, prow, groups, n, X, h->colscale, (__nv_bfloat16 *)h->pack);
  }
  VP_CHECK(cudaGetLastError());
  VP_TOCK(step);
  VP_TICK();
  if ((err = VPHFEMInverseProduct(h, M, prow, groups, n))) return err;
  VP_TOCK(step + 1);
  VP_TICK();
  const size_t vals = (size_t)groups * rows * n;
  if (trans && (n + 31) / 32 <= 65535) {
    const dim3 grid((unsigned)((rows + 31) / 32), (unsigned)((n + 31) / 32)), block(32, 8);
    if (h->prec == VPC_HFEM_DOUBLE) VPNMUnpackTiled<double, false><<<grid, block>>>(rows, prow, n, (const double *)h->out, h->colscale, sM, Y);
    else if (scaled) VPNMUnpackTiled<float, true><<<grid, block>>>(rows, prow, n, (const float *)h->out, h->colscale, sM, Y);
    else VPNMUnpackTiled<float, false><<<grid, block>>>(rows, prow, n, (const float *)h->out, h->colscale, sM, Y);
  } else if (trans) {
    if (h->prec == VPC_HFEM_DOUBLE) VPNMUnpack<double, false, true><<<BlocksNM(vals), 256>>>(rows, prow, groups, n, (const double *)h->out, h->colscale, sM, Y);
    else if (scaled) VPNMUnpack<float, true, true><<<BlocksNM(vals), 256>>>(rows, prow, groups, n, (const float *)h->out, h->colscale, sM, Y);
    else VPNMUnpack<float, false, true><<<BlocksNM(vals), 256>>>(rows, prow, groups, n, (const float *)h->out, h->colscale, sM, Y);
  } else {
    if (h->prec == VPC_HFEM_DOUBLE) VPNMUnpack<double, false, false><<<BlocksNM(vals), 256>>>(rows, prow, groups, n, (const double *)h->out, h->colscale, sM, Y);
    else if (scaled) VPNMUnpack<float, true, false><<<BlocksNM(vals), 256>>>(rows, prow, groups, n, (const float *)h->out, h->colscale, sM, Y);
    else VPNMUnpack<float, false, false><<<BlocksNM(vals), 256>>>(rows, prow, groups, n, (const float *)h->out, h->colscale, sM, Y);
  }
  VP_CHECK(cudaGetLastError());
  VP_TOCK(step + 2);
  return 0;
}

int VPHFEMCoupleNM(VPCudaHFEM h, int which, int n, const double *Y, double *Z)
{
  const auto &cp = h->couple[which];
  if (!cp.nrows) return 0;
  VPNMCouple<<<BlocksNM((size_t)cp.nrows * n), 256>>>(cp.nrows, n, cp.rows, cp.ptr, cp.col, cp.val, Y, Z);
  VP_CHECK(cudaGetLastError());
  return 0;
}

extern "C" int VPCudaHFEMSolveNM(VPCudaHFEM h, VPCudaHFEMTransform t, int n, const double *Bc, size_t ldb, double *Xc, size_t ldx)
{
  const int    nC = h->nC, nE = h->nE, nI = h->nb * h->ncell, N = nC + nE + nI;
  const size_t bytes = sizeof(double) * (size_t)N * n;
  const double one = 1.0, mone = -1.0;
  double      *Z, *Y, *W;
  int          err;
  if (!n || !N) return 0;
  if ((size_t)N * n >= (size_t)1 << 31) return (int)cudaErrorInvalidValue; // 32-bit element indices
  if ((err = Grow((void **)&h->nmZ, &h->nmcap[0], bytes))) return err;
  if ((err = Grow((void **)&h->nmY, &h->nmcap[1], bytes))) return err;
  if ((err = Grow((void **)&h->nmW, &h->nmcap[2], bytes))) return err;
  Z = h->nmZ, Y = h->nmY, W = h->nmW;
  for (int k = 0; k < VPC_HFEM_NSTEP; k++) h->last[k] = 0.0; // a new solve
  VP_TICK();
  if ((err = VPCudaHFEMTransformForwardNM(t, n, Bc, ldb, W, Z))) return err;
  VP_TOCK(VPC_HFEM_STEP_TRANSFORM);
  // forward: Z_C = L_C^-1 Z_C (Z_C^T L_C^-T), Y_I = C^-1 Z_I, Z_E -= B^T Z_C (Z_C^T B)
  VP_TICK();
  if (nC) VP_CUBLAS(cublasDtrsm(h->blas, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T, CUBLAS_DIAG_NON_UNIT, n, nC, &one, h->LC, nC, Z, n));
  VP_TOCK(VPC_HFEM_STEP_MACRO);
  if ((err = VPHFEMApplyInverseNM(h, h->Cinv, h->sC, h->nb, h->ncell, n, Z + (size_t)(nC + nE) * n, Y + (size_t)(nC + nE) * n, VPC_HFEM_STEP_PACK_C))) return err;
  VP_TICK();
  if (nC && nE) VP_CUBLAS(cublasDgemm(h->blas, CUBLAS_OP_N, CUBLAS_OP_N, n, nE, nC, &mone, Z, n, h->B, nC, &one, Z + (size_t)nC * n, n));
  VP_TOCK(VPC_HFEM_STEP_MACRO);
  if (nE) {
    // middle: Z_E -= D Y_I, Y_E = Pi^-1 Z_E, Z_C -= B Y_E (Y_E^T B^T)
    VP_TICK();
    if ((err = VPHFEMCoupleNM(h, 0, n, Y, Z))) return err;
    VP_TOCK(VPC_HFEM_STEP_COUPLE);
    if ((err = VPHFEMApplyInverseNM(h, h->Piinv, h->sPi, nE, 1, n, Z + (size_t)nC * n, Y + (size_t)nC * n, VPC_HFEM_STEP_PACK_PI))) return err;
    VP_TICK();
    if (nC) VP_CUBLAS(cublasDgemm(h->blas, CUBLAS_OP_N, CUBLAS_OP_T, n, nC, nE, &mone, Y + (size_t)nC * n, n, h->B, nC, &one, Z, n));
    VP_TOCK(VPC_HFEM_STEP_MACRO);
    // backward: Z_I -= D^T Y_E, Y_I = C^-1 Z_I
    VP_TICK();
    if ((err = VPHFEMCoupleNM(h, 1, n, Y, Z))) return err;
    VP_TOCK(VPC_HFEM_STEP_COUPLE);
    if ((err = VPHFEMApplyInverseNM(h, h->Cinv, h->sC, h->nb, h->ncell, n, Z + (size_t)(nC + nE) * n, Y + (size_t)(nC + nE) * n, VPC_HFEM_STEP_PACK_C))) return err;
  }
  VP_TICK();
  if (nC) {
    // Y_C = L_C^-T Z_C (Z_C^T L_C^-1)
    VP_CUBLAS(cublasDtrsm(h->blas, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, n, nC, &one, h->LC, nC, Z, n));
    VP_CHECK(cudaMemcpyAsync(Y, Z, sizeof(double) * (size_t)nC * n, cudaMemcpyDeviceToDevice, 0));
  }
  VP_TOCK(VPC_HFEM_STEP_MACRO);
  VP_TICK();
  if ((err = VPCudaHFEMTransformBackwardNM(t, n, Y, W, Xc, ldx))) return err;
  VP_TOCK(VPC_HFEM_STEP_TRANSFORM);
  return 0;
}

extern "C" int VPCudaHFEMSetTimers(VPCudaHFEM h, int on)
{
  if (on && !h->timers) {
    VP_CHECK(cudaEventCreate(&h->ev[0]));
    VP_CHECK(cudaEventCreate(&h->ev[1]));
  }
  if (!on && h->timers) {
    VP_CHECK(cudaEventDestroy(h->ev[0]));
    VP_CHECK(cudaEventDestroy(h->ev[1]));
  }
  h->timers = on;
  return 0;
}

extern "C" int VPCudaHFEMGetTimes(VPCudaHFEM h, double ms[], double last[])
{
  for (int k = 0; k < VPC_HFEM_NSTEP; k++) ms[k] = h->ms[k], last[k] = h->last[k];
  return 0;
}

extern "C" int VPCudaHFEMDestroy(VPCudaHFEM *hp)
{
  VPCudaHFEM h = *hp;
  if (!h) return 0;
  *hp = NULL;
  VP_CHECK(cudaFree(h->LC));
  VP_CHECK(cudaFree(h->B));
  VP_CHECK(cudaFree(h->Cinv));
  VP_CHECK(cudaFree(h->Piinv));
  VP_CHECK(cudaFree(h->pack));
  VP_CHECK(cudaFree(h->out));
  VP_CHECK(cudaFree(h->colscale));
  VP_CHECK(cudaFree(h->info));
  if (h->timers) {
    VP_CHECK(cudaEventDestroy(h->ev[0]));
    VP_CHECK(cudaEventDestroy(h->ev[1]));
  }
  VP_CHECK(cudaFree(h->nmZ));
  VP_CHECK(cudaFree(h->nmY));
  VP_CHECK(cudaFree(h->nmW));
  VP_CHECK(cudaFree(h->partial));
  VP_CHECK(cudaFree(h->dtptr));
  VP_CHECK(cudaFree(h->dtrow));
  VP_CHECK(cudaFree(h->dtslot));
  VP_CHECK(cudaFree(h->Ainv));
  VP_CHECK(cudaFree(h->cellZ));
  VP_CHECK(cudaFree(h->FA));
  VP_CHECK(cudaFree(h->FB));
  VP_CHECK(cudaFree(h->cellpack));
  VP_CHECK(cudaFree(h->cellscale));
  for (int w = 0; w < 4; w++) {
    VP_CHECK(cudaFree(h->couple[w].rows));
    VP_CHECK(cudaFree(h->couple[w].ptr));
    VP_CHECK(cudaFree(h->couple[w].col));
    VP_CHECK(cudaFree(h->couple[w].val));
  }
  VP_CUBLAS(cublasDestroy(h->blas));
  VP_CUSOLVER(cusolverDnDestroy(h->solver));
  delete h;
  return 0;
}
