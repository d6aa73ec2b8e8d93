// C0IP (biharmonic, C0 interior penalty) on a forest brick, on the GPU: the matrix-free product cell by cell and face by
// face, and the vertex-patch step with each patch's solver (fast diagonalization by position class, or the dense
// Cholesky factor of its pattern) on the patch's local residual or the global one. The CPU code of src/mat/c0ipforest.c
// and src/pc/vertexpatch/vpforestc0ip.c is the reference; the tables are the forest's (node: (k+1)^dim local-vector
// positions per cell, -1 on the Dirichlet boundary; face: 2 dim neighbours per cell, lower then upper along x, y, z, -1
// on the boundary; patchcell: 2^dim cells per patch around its vertex). One thread block per cell or patch, the block-wide
// contractions of vpcontract.h.
#include "vpatch_cuda.h"
#include "vpcuda_check.h"
#include "vpcontract.h"
#include "vpfdm.h"
#include <cuda_runtime.h>

struct VPCudaC0IPForest_s {
  VPCudaC0IPCell *cell; // device copy
  int             dim, n, nv, ncells, nblocks;
  int            *node, *face;
  size_t          nlocal, shared;
};

// v = the cell term applied to u: sum_d H_d M M + 2 sum_{d<e} L_d L_e M (w: 8 nv)
__device__ void VPC0IPCellApply(const VPCudaC0IPCell *c, int nv, const double *u, double *v, double *w)
{
  const int n = c->n, ext[3] = {n, n, c->dim == 3 ? n : 1};
  double   *xm = w, *xl = xm + nv, *xh = xl + nv, *t = xh + nv, *s = t + nv, *q = s + nv, *mm = q + nv, *lmml = mm + nv;

  VPContract<double>(0, ext, n, 0, n, c->M[0], u, xm);
  VPContract<double>(0, ext, n, 0, n, c->L[0], u, xl);
  VPContract<double>(0, ext, n, 0, n, c->H[0], u, xh);
  if (c->dim == 2) {
    VPContract<double>(1, ext, n, 0, n, c->M[1], xh, v);
    VPContract<double>(1, ext, n, 0, n, c->H[1], xm, t);
    VPContract<double>(1, ext, n, 0, n, c->L[1], xl, s);
    for (int i = threadIdx.x; i < nv; i += blockDim.x) v[i] += t[i] + 2.0 * s[i];
    __syncthreads();
    return;
  }
  VPContract<double>(1, ext, n, 0, n, c->M[1], xh, s);
  VPContract<double>(1, ext, n, 0, n, c->H[1], xm, t);
  VPContract<double>(1, ext, n, 0, n, c->L[1], xl, q);
  for (int i = threadIdx.x; i < nv; i += blockDim.x) s[i] += t[i] + 2.0 * q[i];
  __syncthreads();
  VPContract<double>(1, ext, n, 0, n, c->M[1], xm, mm);
  VPContract<double>(1, ext, n, 0, n, c->M[1], xl, lmml);
  VPContract<double>(1, ext, n, 0, n, c->L[1], xm, t);
  for (int i = threadIdx.x; i < nv; i += blockDim.x) lmml[i] += t[i];
  __syncthreads();
  VPContract<double>(2, ext, n, 0, n, c->M[2], s, v);
  VPContract<double>(2, ext, n, 0, n, c->H[2], mm, t);
  VPContract<double>(2, ext, n, 0, n, c->L[2], lmml, q);
  for (int i = threadIdx.x; i < nv; i += blockDim.x) v[i] += t[i] + 2.0 * q[i];
  __syncthreads();
}

// the face normal to d: side < 0 interior (vl/vu += its term on the lower cell's ul and the upper cell's uu; vl or vu
// nullptr: that side's rows not formed), side 0/1 a boundary face of one cell (ul, vl); w: 5 nv
__device__ void VPC0IPFaceApply(const VPCudaC0IPCell *c, int nv, int d, int side, const double *ul, const double *uu, double *vl, double *vu, double *w)
{
  const int     n = c->n, ext[3] = {n, n, c->dim == 3 ? n : 1};
  int           text[3] = {ext[0], ext[1], ext[2]};
  double       *tj = w, *ta = tj + nv, *tmp = ta + nv, *g = tmp + nv, *out = g + nv;
  const double *Jl = side < 0 ? c->J[d] : c->Jb[d][side], *Al = side < 0 ? c->A[d] : c->Ab[d][side];
  const double  sigma = side < 0 ? c->sigma[d] : c->sigmab[d];

  text[d]      = 1;
  const int nt = text[0] * text[1] * text[2];
  VPContract<double>(d, ext, 1, 0, n, Jl, ul, tj);
  VPContract<double>(d, ext, 1, 0, n, Al, ul, ta);
  if (side < 0) {
    VPContract<double>(d, ext, 1, 0, n, c->J[d] + n, uu, tmp);
    VPContract<double>(d, ext, 1, 0, n, c->A[d] + n, uu, out);
    for (int i = threadIdx.x; i < nt; i += blockDim.x) {
      tj[i] += tmp[i];
      ta[i] += out[i];
    }
    __syncthreads();
  }
  for (int e = 0; e < c->dim; e++) { // the tangential masses
    if (e == d) continue;
    VPContract<double>(e, text, n, 0, n, c->M[e], tj, tmp);
    VPContract<double>(e, text, n, 0, n, c->M[e], ta, out);
    for (int i = threadIdx.x; i < nt; i += blockDim.x) {
      tj[i] = tmp[i];
      ta[i] = out[i];
    }
    __syncthreads();
  }
  for (int i = threadIdx.x; i < nt; i += blockDim.x) g[i] = sigma * tj[i] - ta[i];
  __syncthreads();
  for (int s = 0; s < (side < 0 ? 2 : 1); s++) { // v = J (x) g - A (x) M tj: expansions along d
    const double *J = side < 0 ? c->J[d] + s * n : Jl, *A = side < 0 ? c->A[d] + s * n : Al;
    double       *v = s ? vu : vl;
    if (!v) continue; // a side whose rows the caller does not need (the same for the whole block)
    VPContract<double>(d, text, n, 0, 1, J, g, out);
    VPContract<double>(d, text, n, 0, 1, A, tj, tmp);
    for (int i = threadIdx.x; i < nv; i += blockDim.x) v[i] += out[i] - tmp[i];
    __syncthreads();
  }
}

// y (zeroed) += each owned cell's term, its boundary faces and its upper faces (each interior face once, by its lower
// cell); cells share nodes, so the sums are atomic
__global__ void VPC0IPForestKernel(const VPCudaC0IPCell *c, int nv, int ncells, const int *node, const int *face, const double *__restrict__ x, double *y)
{
  extern __shared__ double mem[];
  double   *u = mem, *un = u + nv, *v = un + nv, *vn = v + nv, *w = vn + nv;
  const int nf = 2 * c->dim;
  for (int cell = blockIdx.x; cell < ncells; cell += gridDim.x) {
    const int *idx = node + (size_t)cell * nv;
    for (int i = threadIdx.x; i < nv; i += blockDim.x) u[i] = idx[i] >= 0 ? x[idx[i]] : 0.0;
    __syncthreads();
    VPC0IPCellApply(c, nv, u, v, w);
    for (int e = 0; e < nf; e++) {
      const int nb = face[(size_t)cell * nf + e], d = e / 2, side = e % 2; // the same for the whole block
      if (nb < 0) VPC0IPFaceApply(c, nv, d, side, u, nullptr, v, nullptr, w);
      else if (side == 1) {
        const int *nidx = node + (size_t)nb * nv;
        for (int i = threadIdx.x; i < nv; i += blockDim.x) {
          un[i] = nidx[i] >= 0 ? x[nidx[i]] : 0.0;
          vn[i] = 0.0;
        }
        __syncthreads();
        VPC0IPFaceApply(c, nv, d, -1, u, un, v, vn, w);
        for (int i = threadIdx.x; i < nv; i += blockDim.x)
          if (nidx[i] >= 0) atomicAdd(&y[nidx[i]], vn[i]);
        __syncthreads();
      }
    }
    for (int i = threadIdx.x; i < nv; i += blockDim.x)
      if (idx[i] >= 0) atomicAdd(&y[idx[i]], v[i]);
    __syncthreads();
  }
}

extern "C" int VPCudaC0IPForestCreate(const VPCudaC0IPCell *cell, int ncells, int ntable, const int *node, const int *face, size_t nlocal, VPCudaC0IPForest *out)
{
  VPCudaC0IPForest op = new VPCudaC0IPForest_s();
  int              dev, nsm, optin;

  op->dim    = cell->dim;
  op->n      = cell->n;
  op->nv     = cell->dim == 3 ? cell->n * cell->n * cell->n : cell->n * cell->n;
  op->ncells = ncells;
  op->nlocal = nlocal;
  op->shared = 12 * (size_t)op->nv * sizeof(double);
  VP_CHECK(cudaGetDevice(&dev));
  VP_CHECK(cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, dev));
  VP_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  if (op->shared > (size_t)optin) {
    delete op;
    return (int)cudaErrorInvalidConfiguration;
  }
  if (op->shared > 48 * 1024) VP_CHECK(cudaFuncSetAttribute((const void *)VPC0IPForestKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)op->shared));
  op->nblocks = 16 * nsm;
  VP_CHECK(cudaMalloc(&op->cell, sizeof(VPCudaC0IPCell)));
  VP_CHECK(cudaMemcpy(op->cell, cell, sizeof(VPCudaC0IPCell), cudaMemcpyHostToDevice));
  VP_CHECK(cudaMalloc(&op->node, ((size_t)ntable * op->nv + 1) * sizeof(int)));
  VP_CHECK(cudaMemcpy(op->node, node, (size_t)ntable * op->nv * sizeof(int), cudaMemcpyHostToDevice));
  VP_CHECK(cudaMalloc(&op->face, ((size_t)ncells * 2 * op->dim + 1) * sizeof(int)));
  VP_CHECK(cudaMemcpy(op->face, face, (size_t)ncells * 2 * op->dim * sizeof(int), cudaMemcpyHostToDevice));
  *out = op;
  return 0;
}

// y = A x on the local vectors (x with its ghosts; y: the cells' sums, ghosts included, for the local-to-global add)
extern "C" int VPCudaC0IPForestApply(VPCudaC0IPForest op, const double *x, double *y)
{
  const int blocks = op->ncells < op->nblocks ? op->ncells : op->nblocks;
  VP_CHECK(cudaMemsetAsync(y, 0, op->nlocal * sizeof(double)));
  if (op->ncells == 0) return 0;
  VPC0IPForestKernel<<<blocks, 128, op->shared>>>(op->cell, op->nv, op->ncells, op->node, op->face, x, y);
  VP_CHECK(cudaGetLastError());
  return 0;
}

extern "C" int VPCudaC0IPForestDestroy(VPCudaC0IPForest *op)
{
  if (!*op) return 0;
  VP_CHECK(cudaFree((*op)->cell));
  VP_CHECK(cudaFree((*op)->node));
  VP_CHECK(cudaFree((*op)->face));
  delete *op;
  *op = nullptr;
  return 0;
}

// ---- the patch step ----

struct VPCudaC0IPPatches_s {
  VPCudaPatchOp_d *op_d;
  VPCudaPatchOp_f *op_f;
  VPCudaC0IPCell  *cell; // the local residual's cell pieces (device copy; NULL: global residual only)
  int              dim, k, nv, ni, nint, nblocks;
  int             *patchcell, *node, *face, *ppattern, *cls; // cls: 3 per pattern, cls[0] < 0 where the pattern's factor solves
  long long       *foff;                              // per pattern: its factor's offset in factors, -1: none
  double          *factors;
  size_t           shared, sharedlocal; // bytes a block: global residual, local residual
};

// the local-vector position of interior node q of patch p (closure coordinates 1..2k-1)
__device__ inline int VPC0IPInteriorNode(const int *patchcell, const int *node, int dim, int k, int nv, int ni, int p, int q)
{
  const int c[3] = {1 + q % ni, 1 + (q / ni) % ni, dim == 3 ? 1 + q / (ni * ni) : 0}, N = k + 1;
  const int b0 = c[0] > k, b1 = c[1] > k, b2 = dim == 3 && c[2] > k;
  const int cell = patchcell[p * (1 << dim) + (b0 | (b1 << 1) | (b2 << 2))];
  return node[(size_t)cell * nv + (c[0] - b0 * k) + N * ((c[1] - b1 * k) + N * (c[2] - b2 * k))];
}

// r = U^-1 U^-T r with U the upper Cholesky factor (column-major, m x m): two triangular sweeps, a column per step
__device__ void VPC0IPDenseSolve(int m, const double *U, double *r)
{
  for (int j = 0; j < m; j++) { // U^T y = r
    if (threadIdx.x == 0) r[j] /= U[j + (size_t)j * m];
    __syncthreads();
    for (int i = j + 1 + threadIdx.x; i < m; i += blockDim.x) r[i] -= U[j + (size_t)i * m] * r[j];
    __syncthreads();
  }
  for (int j = m - 1; j >= 0; j--) { // U x = y
    if (threadIdx.x == 0) r[j] /= U[j + (size_t)j * m];
    __syncthreads();
    for (int i = threadIdx.x; i < j; i += blockDim.x) r[i] -= U[i + (size_t)j * m] * r[j];
    __syncthreads();
  }
}

// interior index (0..ni^dim) of node i of patch cell b, or -1 on the patch boundary (vpforestc0ip.c's VPC0IPInterior)
__device__ inline int VPC0IPCellInterior(int dim, int k, int b, int i)
{
  const int N = k + 1, ni = 2 * k - 1, a[3] = {i % N, (i / N) % N, i / (N * N)};
  int       idx = 0;
  for (int d = dim - 1; d >= 0; d--) {
    const int pos = ((b >> d) & 1) * k + a[d];
    if (pos < 1 || pos > 2 * k - 1) return -1;
    idx = idx * ni + pos - 1;
  }
  return idx;
}

// r -= (A x) on the interior nodes of patch p, cell by cell: its cell term, its outer faces (only its own rows), the faces
// inside the patch once from their lower cell (both cells' rows); the CPU's VPC0IPPatchResidual; w: 12 nv
__device__ void VPC0IPPatchResidual(const VPCudaC0IPPatches_s &s, int p, const double *__restrict__ x, double *r, double *w)
{
  const int  nv = s.nv, nf = 2 * s.dim, *pc = s.patchcell + (size_t)p * (1 << s.dim);
  double    *u = w, *un = u + nv, *v = un + nv, *vn = v + nv, *cw = vn + nv;
  for (int b = 0; b < (1 << s.dim); b++) {
    const int *idx = s.node + (size_t)pc[b] * nv;
    for (int i = threadIdx.x; i < nv; i += blockDim.x) u[i] = idx[i] >= 0 ? x[idx[i]] : 0.0;
    __syncthreads();
    VPC0IPCellApply(s.cell, nv, u, v, cw);
    for (int d = 0; d < s.dim; d++) {
      const int up = (b >> d) & 1, nb = s.face[(size_t)pc[b] * nf + 2 * d + up]; // the outer face: away from the vertex
      if (nb < 0) VPC0IPFaceApply(s.cell, nv, d, up, u, nullptr, v, nullptr, cw);
      else {
        const int *nidx = s.node + (size_t)nb * nv;
        for (int i = threadIdx.x; i < nv; i += blockDim.x) un[i] = nidx[i] >= 0 ? x[nidx[i]] : 0.0;
        __syncthreads();
        if (up) VPC0IPFaceApply(s.cell, nv, d, -1, u, un, v, nullptr, cw);
        else VPC0IPFaceApply(s.cell, nv, d, -1, un, u, nullptr, v, cw);
      }
      if (!up) { // the face inside the patch towards cell b + 2^d: both cells' rows, the other's straight into r
        const int  b2 = b | (1 << d);
        const int *nidx = s.node + (size_t)pc[b2] * nv;
        for (int i = threadIdx.x; i < nv; i += blockDim.x) {
          un[i] = nidx[i] >= 0 ? x[nidx[i]] : 0.0;
          vn[i] = 0.0;
        }
        __syncthreads();
        VPC0IPFaceApply(s.cell, nv, d, -1, u, un, v, vn, cw);
        for (int i = threadIdx.x; i < nv; i += blockDim.x) { // a cell's nodes have distinct interior indices
          const int ii = VPC0IPCellInterior(s.dim, s.k, b2, i);
          if (ii >= 0) r[ii] -= vn[i];
        }
        __syncthreads();
      }
    }
    for (int i = threadIdx.x; i < nv; i += blockDim.x) {
      const int ii = VPC0IPCellInterior(s.dim, s.k, b, i);
      if (ii >= 0) r[ii] -= v[i];
    }
    __syncthreads();
  }
}

// patches [start, end) of one color: target[interior] += omega A_p^-1 r, r = b - A x on the patch (x non-NULL: the
// local residual; the ghosted iterate, which may be target itself: a color's patches write no node another reads) or
// b[interior] (the global residual)
template <typename T, typename Op>
__global__ void VPC0IPPatchKernel(VPCudaC0IPPatches_s s, const Op *op, int start, int end, const double *x, const double *__restrict__ b, double *target, double omega)
{
  extern __shared__ double smem[];
  const int n = s.nint;
  double   *r = smem;
  T        *rt = (T *)(smem + n), *a = rt + n, *bb = a + n, *z = bb + n;
  for (int p = start + blockIdx.x; p < end; p += gridDim.x) {
    const int q = s.ppattern[p];
    for (int i = threadIdx.x; i < n; i += blockDim.x) r[i] = b[VPC0IPInteriorNode(s.patchcell, s.node, s.dim, s.k, s.nv, s.ni, p, i)];
    __syncthreads();
    if (x) VPC0IPPatchResidual(s, p, x, r, smem + n); // the same branch for every block
    if (s.foff[q] >= 0) { // the exact factor of the pattern, in double
      VPC0IPDenseSolve(n, s.factors + s.foff[q], r);
      for (int i = threadIdx.x; i < n; i += blockDim.x) target[VPC0IPInteriorNode(s.patchcell, s.node, s.dim, s.k, s.nv, s.ni, p, i)] += omega * r[i];
    } else {
      const int cls[3] = {s.cls[3 * q], s.cls[3 * q + 1], s.cls[3 * q + 2]};
      for (int i = threadIdx.x; i < n; i += blockDim.x) rt[i] = (T)r[i];
      __syncthreads();
      VPFDMSolve<T, Op>(op, cls, rt, a, bb, z);
      for (int i = threadIdx.x; i < n; i += blockDim.x) target[VPC0IPInteriorNode(s.patchcell, s.node, s.dim, s.k, s.nv, s.ni, p, i)] += omega * (double)z[i];
    }
    __syncthreads();
  }
}

extern "C" int VPCudaC0IPPatchesCreate(const VPCudaPatchOp_d *op_d, const VPCudaPatchOp_f *op_f, int k, int npatches, const int *patchcell, int ncells, const int *node, const int *face, const VPCudaC0IPCell *cell, const int *ppattern,
                                       int npatterns, const int *cls, const double *const *factor, VPCudaC0IPPatches *out)
{
  VPCudaC0IPPatches s = new VPCudaC0IPPatches_s();
  const int         dim = op_d->dim, N = k + 1;
  long long        *foff = new long long[npatterns + 1], total = 0;
  int               dev, nsm, optin;
  size_t            most;

  s->dim  = dim;
  s->k    = k;
  s->nv   = dim == 3 ? N * N * N : N * N;
  s->ni   = op_d->ni;
  s->nint = dim == 3 ? s->ni * s->ni * s->ni : s->ni * s->ni;
  for (int q = 0; q < npatterns; q++) {
    foff[q] = factor[q] ? total : -1;
    if (factor[q]) total += (long long)s->nint * s->nint;
  }
  // r, then the solve's four arrays; the local residual's cell work (12 nv) shares their space
  s->shared      = 5 * (size_t)s->nint * sizeof(double);
  s->sharedlocal = ((size_t)s->nint + (4 * (size_t)s->nint > 12 * (size_t)s->nv ? 4 * (size_t)s->nint : 12 * (size_t)s->nv)) * sizeof(double);
  most           = face ? s->sharedlocal : s->shared;
  VP_CHECK(cudaGetDevice(&dev));
  VP_CHECK(cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, dev));
  VP_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  if (most > (size_t)optin) {
    delete[] foff;
    delete s;
    return (int)cudaErrorInvalidConfiguration;
  }
  if (most > 48 * 1024) {
    VP_CHECK(cudaFuncSetAttribute((const void *)VPC0IPPatchKernel<double, VPCudaPatchOp_d>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)most));
    VP_CHECK(cudaFuncSetAttribute((const void *)VPC0IPPatchKernel<float, VPCudaPatchOp_f>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)most));
  }
  s->nblocks = 16 * nsm;
  VP_CHECK(cudaMalloc(&s->op_d, sizeof(VPCudaPatchOp_d)));
  VP_CHECK(cudaMalloc(&s->op_f, sizeof(VPCudaPatchOp_f)));
  VP_CHECK(cudaMemcpy(s->op_d, op_d, sizeof(VPCudaPatchOp_d), cudaMemcpyHostToDevice));
  VP_CHECK(cudaMemcpy(s->op_f, op_f, sizeof(VPCudaPatchOp_f), cudaMemcpyHostToDevice));
  VP_CHECK(cudaMalloc(&s->patchcell, ((size_t)npatches * (1 << dim) + 1) * sizeof(int)));
  VP_CHECK(cudaMemcpy(s->patchcell, patchcell, (size_t)npatches * (1 << dim) * sizeof(int), cudaMemcpyHostToDevice));
  VP_CHECK(cudaMalloc(&s->node, ((size_t)ncells * s->nv + 1) * sizeof(int)));
  VP_CHECK(cudaMemcpy(s->node, node, (size_t)ncells * s->nv * sizeof(int), cudaMemcpyHostToDevice));
  if (face) {
    VP_CHECK(cudaMalloc(&s->face, ((size_t)ncells * 2 * dim + 1) * sizeof(int)));
    VP_CHECK(cudaMemcpy(s->face, face, (size_t)ncells * 2 * dim * sizeof(int), cudaMemcpyHostToDevice));
    VP_CHECK(cudaMalloc(&s->cell, sizeof(VPCudaC0IPCell)));
    VP_CHECK(cudaMemcpy(s->cell, cell, sizeof(VPCudaC0IPCell), cudaMemcpyHostToDevice));
  }
  VP_CHECK(cudaMalloc(&s->ppattern, ((size_t)npatches + 1) * sizeof(int)));
  VP_CHECK(cudaMemcpy(s->ppattern, ppattern, (size_t)npatches * sizeof(int), cudaMemcpyHostToDevice));
  VP_CHECK(cudaMalloc(&s->cls, (3 * (size_t)npatterns + 1) * sizeof(int)));
  VP_CHECK(cudaMemcpy(s->cls, cls, 3 * (size_t)npatterns * sizeof(int), cudaMemcpyHostToDevice));
  VP_CHECK(cudaMalloc(&s->foff, ((size_t)npatterns + 1) * sizeof(long long)));
  VP_CHECK(cudaMemcpy(s->foff, foff, (size_t)npatterns * sizeof(long long), cudaMemcpyHostToDevice));
  VP_CHECK(cudaMalloc(&s->factors, ((size_t)total + 1) * sizeof(double)));
  for (int q = 0; q < npatterns; q++)
    if (factor[q]) VP_CHECK(cudaMemcpy(s->factors + foff[q], factor[q], (size_t)s->nint * s->nint * sizeof(double), cudaMemcpyHostToDevice));
  delete[] foff;
  *out = s;
  return 0;
}

extern "C" int VPCudaC0IPPatchesStep(VPCudaC0IPPatches s, int single, int start, int end, const double *x, const double *b, double *target, double omega)
{
  const int    n = end - start, blocks = n < s->nblocks ? n : s->nblocks;
  const size_t shared = x ? s->sharedlocal : s->shared;
  if (n <= 0) return 0;
  if (x && !s->face) return (int)cudaErrorInvalidValue; // made without the local residual's tables
  if (single) VPC0IPPatchKernel<float, VPCudaPatchOp_f><<<blocks, 128, shared>>>(*s, s->op_f, start, end, x, b, target, omega);
  else VPC0IPPatchKernel<double, VPCudaPatchOp_d><<<blocks, 128, shared>>>(*s, s->op_d, start, end, x, b, target, omega);
  VP_CHECK(cudaGetLastError());
  return 0;
}

extern "C" int VPCudaC0IPPatchesDestroy(VPCudaC0IPPatches *s)
{
  if (!*s) return 0;
  VP_CHECK(cudaFree((*s)->op_d));
  VP_CHECK(cudaFree((*s)->op_f));
  VP_CHECK(cudaFree((*s)->patchcell));
  VP_CHECK(cudaFree((*s)->node));
  VP_CHECK(cudaFree((*s)->face));
  VP_CHECK(cudaFree((*s)->cell));
  VP_CHECK(cudaFree((*s)->ppattern));
  VP_CHECK(cudaFree((*s)->cls));
  VP_CHECK(cudaFree((*s)->foff));
  VP_CHECK(cudaFree((*s)->factors));
  delete *s;
  *s = nullptr;
  return 0;
}
