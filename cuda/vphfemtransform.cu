// PCHFEM's hierarchical transform on the GPU as level-wise stencils: z = T b = diag(scale) P S^T b and x = T^T y, for n
// right-hand sides held as the columns of column-major double arrays. S = S_level ... S_{m+1}; each S_j (spacing H)
// adds to the nodes new on level j 1/2 of the ends of the coarse edge they halve or 1/4 of the corners of the coarse cell
// they centre. The host's version (src/pc/hfem/hfemstencil.c) is the reference; each pass reads only nodes that it does
// not write, so all passes work in place, one kernel per level.
#include "vphfem_impl.h"
#include <vector>

// x <- S_j^T x: every node of the spacing-2H grid (nc = (nx/2H - 1) x (ny/2H - 1) of them per column) gathers its eight
// spacing-H neighbours, all interior
__global__ void VPHFEMRestrict(int nx, int ny, int H, double *__restrict__ x, size_t ld)
{
  const int cx = nx / (2 * H) - 1, cy = ny / (2 * H) - 1, nc = cx * cy;
  double   *v = x + blockIdx.y * ld; // one column per grid row: 32-bit index arithmetic within it
  for (int p = blockIdx.x * blockDim.x + threadIdx.x; p < nc; p += gridDim.x * blockDim.x) {
    const int    i = 2 * H * (p % cx + 1), j = 2 * H * (p / cx + 1);
    const double e = v[VPHFEMNode(nx, i - H, j)] + v[VPHFEMNode(nx, i + H, j)] + v[VPHFEMNode(nx, i, j - H)] + v[VPHFEMNode(nx, i, j + H)];
    const double d = v[VPHFEMNode(nx, i - H, j - H)] + v[VPHFEMNode(nx, i + H, j - H)] + v[VPHFEMNode(nx, i - H, j + H)] + v[VPHFEMNode(nx, i + H, j + H)];
    v[VPHFEMNode(nx, i, j)] += 0.5 * e + 0.25 * d;
  }
}

// work = S_level^T b (spacing 1) out of place: the copy of b and the finest level in one pass over all nodes, the nodes
// (even, even) of the next coarser grid adding their eight neighbours
__global__ void VPHFEMRestrictFirst(int nx, int ny, const double *__restrict__ b, double *__restrict__ w, size_t ld)
{
  const int     gx = nx - 1, ng = gx * (ny - 1);
  const double *v = b + blockIdx.y * ld;
  for (int p = blockIdx.x * blockDim.x + threadIdx.x; p < ng; p += gridDim.x * blockDim.x) {
    const int i = p % gx + 1, j = p / gx + 1;
    double    r = v[p];
    if (!(i & 1) && !(j & 1)) {
      const double e = v[VPHFEMNode(nx, i - 1, j)] + v[VPHFEMNode(nx, i + 1, j)] + v[VPHFEMNode(nx, i, j - 1)] + v[VPHFEMNode(nx, i, j + 1)];
      const double d = v[VPHFEMNode(nx, i - 1, j - 1)] + v[VPHFEMNode(nx, i + 1, j - 1)] + v[VPHFEMNode(nx, i - 1, j + 1)] + v[VPHFEMNode(nx, i + 1, j + 1)];
      r += 0.5 * e + 0.25 * d;
    }
    w[blockIdx.y * ld + p] = r;
  }
}

__device__ __forceinline__ double At(int nx, int ny, const double *v, int i, int j)
{
  return (i <= 0 || i >= nx || j <= 0 || j >= ny) ? 0.0 : v[VPHFEMNode(nx, i, j)];
}

// x <- S_j x: every node new on level j (spacing H, not on the spacing-2H grid) adds its parents; boundary parents are 0
__global__ void VPHFEMProlong(int nx, int ny, int H, double *__restrict__ x, size_t ld)
{
  const int gx = nx / H - 1, ng = gx * (ny / H - 1);
  double   *v = x + blockIdx.y * ld;
  for (int p = blockIdx.x * blockDim.x + threadIdx.x; p < ng; p += gridDim.x * blockDim.x) {
    const int  a = p % gx + 1, b = p / gx + 1, i = a * H, j = b * H;
    const bool oldx = !(a & 1), oldy = !(b & 1);
    if (oldx && oldy) continue;
    if (oldx) v[VPHFEMNode(nx, i, j)] += 0.5 * (At(nx, ny, v, i, j - H) + At(nx, ny, v, i, j + H));
    else if (oldy) v[VPHFEMNode(nx, i, j)] += 0.5 * (At(nx, ny, v, i - H, j) + At(nx, ny, v, i + H, j));
    else v[VPHFEMNode(nx, i, j)] += 0.25 * (At(nx, ny, v, i - H, j - H) + At(nx, ny, v, i + H, j - H) + At(nx, ny, v, i - H, j + H) + At(nx, ny, v, i + H, j + H));
  }
}

// z[k] = scale[k] w[order[k]] (set order from nodal order), column blockIdx.y
__global__ void VPHFEMGather(int N, const int *__restrict__ order, const double *__restrict__ scale, const double *__restrict__ w, double *__restrict__ z, size_t ld)
{
  const size_t c = blockIdx.y * ld;
  for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < N; k += gridDim.x * blockDim.x) z[c + k] = scale[k] * w[c + order[k]];
}

// x[order[k]] = scale[k] y[k] (nodal order from set order)
__global__ void VPHFEMScatter(int N, const int *__restrict__ order, const double *__restrict__ scale, const double *__restrict__ y, double *__restrict__ x, size_t ld)
{
  const size_t c = blockIdx.y * ld;
  for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < N; k += gridDim.x * blockDim.x) x[c + order[k]] = scale[k] * y[c + k];
}

// a grid of about m threads per column (grid-stride beyond), one grid row per column
static dim3 Grid(size_t m, int n)
{
  size_t b = (m + 255) / 256;
  return dim3((unsigned)(b < 4096 ? (b ? b : 1) : 4096), (unsigned)n);
}

extern "C" int VPCudaHFEMTransformCreate(int nx, int ny, int s, const int *order, const double *scale, VPCudaHFEMTransform *tp)
{
  VPCudaHFEMTransform t = new VPCudaHFEMTransform_s();
  *tp                   = t;
  t->nx = nx, t->ny = ny, t->s = s, t->N = (nx - 1) * (ny - 1);
  VP_CHECK(cudaMalloc(&t->order, sizeof(int) * ((size_t)t->N + 1)));
  VP_CHECK(cudaMalloc(&t->scale, sizeof(double) * ((size_t)t->N + 1)));
  VP_CHECK(cudaMemcpy(t->order, order, sizeof(int) * t->N, cudaMemcpyHostToDevice));
  VP_CHECK(cudaMemcpy(t->scale, scale, sizeof(double) * t->N, cudaMemcpyHostToDevice));
  {
    std::vector<int> place((size_t)t->N + 1);
    for (int k = 0; k < t->N; k++) place[order[k]] = k;
    VP_CHECK(cudaMalloc(&t->place, sizeof(int) * ((size_t)t->N + 1)));
    VP_CHECK(cudaMemcpy(t->place, place.data(), sizeof(int) * ((size_t)t->N + 1), cudaMemcpyHostToDevice));
  }
  {
    std::vector<float> scalef((size_t)t->N + 1);
    for (int k = 0; k < t->N; k++) scalef[k] = (float)scale[k];
    VP_CHECK(cudaMalloc(&t->scalef, sizeof(float) * ((size_t)t->N + 1)));
    VP_CHECK(cudaMemcpy(t->scalef, scalef.data(), sizeof(float) * ((size_t)t->N + 1), cudaMemcpyHostToDevice));
  }
  if (s >= 2 && nx % s == 0 && ny % s == 0) { // the same inner scaling in every macro cell, compared exactly
    const size_t nb = (size_t)(s - 1) * (s - 1), ncell = (size_t)(nx / s) * (ny / s), base = (size_t)t->N - ncell * nb;
    t->cellscale = ncell * nb <= (size_t)t->N;
    for (size_t q = 1; t->cellscale && q < ncell; q++)
      for (size_t l = 0; l < nb; l++)
        if (scale[base + q * nb + l] != scale[base + l]) {
          t->cellscale = 0;
          break;
        }
  }
  return 0;
}

// n <= 65535 columns (one grid row each)
static int Forward(VPCudaHFEMTransform t, int n, const double *b, double *work, double *z, size_t ld)
{
  VPHFEMRestrictFirst<<<Grid(t->N, n), 256>>>(t->nx, t->ny, b, work, ld); // s >= 2: a macro cell has a finer level
  VP_CHECK(cudaGetLastError());
  for (int H = 2; H < t->s; H *= 2) {
    const size_t nc = (size_t)(t->nx / (2 * H) - 1) * (t->ny / (2 * H) - 1);
    if (!nc) continue;
    VPHFEMRestrict<<<Grid(nc, n), 256>>>(t->nx, t->ny, H, work, ld);
    VP_CHECK(cudaGetLastError());
  }
  VPHFEMGather<<<Grid(t->N, n), 256>>>(t->N, t->order, t->scale, work, z, ld);
  VP_CHECK(cudaGetLastError());
  return 0;
}

static int Backward(VPCudaHFEMTransform t, int n, const double *y, double *x, size_t ld)
{
  VPHFEMScatter<<<Grid(t->N, n), 256>>>(t->N, t->order, t->scale, y, x, ld);
  VP_CHECK(cudaGetLastError());
  for (int H = t->s / 2; H >= 1; H /= 2) {
    VPHFEMProlong<<<Grid((size_t)(t->nx / H - 1) * (t->ny / H - 1), n), 256>>>(t->nx, t->ny, H, x, ld);
    VP_CHECK(cudaGetLastError());
  }
  return 0;
}

// the columns in chunks of at most 65535
extern "C" int VPCudaHFEMTransformForward(VPCudaHFEMTransform t, int n, const double *b, double *work, double *z, size_t ld)
{
  if (!t->N) return 0;
  for (int c0 = 0; c0 < n; c0 += 65535) {
    const int    m = n - c0 < 65535 ? n - c0 : 65535;
    const size_t o = (size_t)c0 * ld;
    int          err;
    if ((err = Forward(t, m, b + o, work + o, z + o, ld))) return err;
  }
  return 0;
}

extern "C" int VPCudaHFEMTransformBackward(VPCudaHFEMTransform t, int n, const double *y, double *x, size_t ld)
{
  if (!t->N) return 0;
  for (int c0 = 0; c0 < n; c0 += 65535) {
    const int    m = n - c0 < 65535 ? n - c0 : 65535;
    const size_t o = (size_t)c0 * ld;
    int          err;
    if ((err = Backward(t, m, y + o, x + o, ld))) return err;
  }
  return 0;
}

// ---- node-major variant: the n values of a node are contiguous (element (node k, column c) at k n + c), so every stencil
// and gather reads whole rows of n values; the right-hand sides come in and the solutions go out column-major ----

// w (node-major) = B^T for the N x n column-major B (leading dimension ldb), through 32 x 32 tiles
__global__ void VPHFEMTransposeIn(int N, int n, const double *__restrict__ B, size_t ldb, double *__restrict__ w)
{
  __shared__ double tile[32][33];
  const int k0 = blockIdx.x * 32, c0 = blockIdx.y * 32;
  for (int r = threadIdx.y; r < 32; r += blockDim.y) {
    const int k = k0 + threadIdx.x, c = c0 + r;
    if (k < N && c < n) tile[r][threadIdx.x] = B[(size_t)c * ldb + k];
  }
  __syncthreads();
  for (int r = threadIdx.y; r < 32; r += blockDim.y) {
    const int k = k0 + r, c = c0 + threadIdx.x;
    if (k < N && c < n) w[(size_t)k * n + c] = tile[threadIdx.x][r];
  }
}

// X (column-major, ldx) = w^T
__global__ void VPHFEMTransposeOut(int N, int n, const double *__restrict__ w, double *__restrict__ X, size_t ldx)
{
  __shared__ double tile[32][33];
  const int k0 = blockIdx.x * 32, c0 = blockIdx.y * 32;
  for (int r = threadIdx.y; r < 32; r += blockDim.y) {
    const int k = k0 + r, c = c0 + threadIdx.x;
    if (k < N && c < n) tile[r][threadIdx.x] = w[(size_t)k * n + c];
  }
  __syncthreads();
  for (int r = threadIdx.y; r < 32; r += blockDim.y) {
    const int k = k0 + threadIdx.x, c = c0 + r;
    if (k < N && c < n) X[(size_t)c * ldx + k] = tile[threadIdx.x][r];
  }
}

__device__ __forceinline__ size_t NodeNM(int nx, int i, int j, int n, int c)
{
  return VPHFEMNode(nx, i, j) * n + c;
}

// x <- S_j^T x, node-major: one thread per (coarse node, column)
__global__ void VPHFEMRestrictNM(int nx, int ny, int H, int n, double *__restrict__ v)
{
  const int          cx = nx / (2 * H) - 1, cy = ny / (2 * H) - 1;
  const unsigned int total = (unsigned int)cx * cy * n;
  for (unsigned int t = blockIdx.x * blockDim.x + threadIdx.x; t < total; t += gridDim.x * blockDim.x) {
    const int    c = t % n, p = t / n, i = 2 * H * (p % cx + 1), j = 2 * H * (p / cx + 1);
    const double e = v[NodeNM(nx, i - H, j, n, c)] + v[NodeNM(nx, i + H, j, n, c)] + v[NodeNM(nx, i, j - H, n, c)] + v[NodeNM(nx, i, j + H, n, c)];
    const double d = v[NodeNM(nx, i - H, j - H, n, c)] + v[NodeNM(nx, i + H, j - H, n, c)] + v[NodeNM(nx, i - H, j + H, n, c)] + v[NodeNM(nx, i + H, j + H, n, c)];
    v[NodeNM(nx, i, j, n, c)] += 0.5 * e + 0.25 * d;
  }
}

__device__ __forceinline__ double AtOr0(int nx, int ny, const double *v, int i, int j, int n, int c)
{
  return (i <= 0 || i >= nx || j <= 0 || j >= ny) ? 0.0 : v[NodeNM(nx, i, j, n, c)];
}

// x <- S_j x, node-major
__global__ void VPHFEMProlongNM(int nx, int ny, int H, int n, double *__restrict__ v)
{
  const int          gx = nx / H - 1, gy = ny / H - 1;
  const unsigned int total = (unsigned int)gx * gy * n;
  for (unsigned int t = blockIdx.x * blockDim.x + threadIdx.x; t < total; t += gridDim.x * blockDim.x) {
    const int  c = t % n, p = t / n, a = p % gx + 1, b = p / gx + 1, i = a * H, j = b * H;
    const bool oldx = !(a & 1), oldy = !(b & 1);
    if (oldx && oldy) continue;
    if (oldx) v[NodeNM(nx, i, j, n, c)] += 0.5 * (AtOr0(nx, ny, v, i, j - H, n, c) + AtOr0(nx, ny, v, i, j + H, n, c));
    else if (oldy) v[NodeNM(nx, i, j, n, c)] += 0.5 * (AtOr0(nx, ny, v, i - H, j, n, c) + AtOr0(nx, ny, v, i + H, j, n, c));
    else v[NodeNM(nx, i, j, n, c)] += 0.25 * (AtOr0(nx, ny, v, i - H, j - H, n, c) + AtOr0(nx, ny, v, i + H, j - H, n, c) + AtOr0(nx, ny, v, i - H, j + H, n, c) + AtOr0(nx, ny, v, i + H, j + H, n, c));
  }
}

// z[k] = scale[k] w[order[k]] and its inverse, node-major
__global__ void VPHFEMGatherNM(int N, int n, const int *__restrict__ order, const double *__restrict__ scale, const double *__restrict__ w, double *__restrict__ z)
{
  const unsigned int total = (unsigned int)N * n;
  for (unsigned int t = blockIdx.x * blockDim.x + threadIdx.x; t < total; t += gridDim.x * blockDim.x) {
    const int k = t / n, c = t % n;
    z[t] = scale[k] * w[(size_t)order[k] * n + c];
  }
}
__global__ void VPHFEMScatterNM(int N, int n, const int *__restrict__ order, const double *__restrict__ scale, const double *__restrict__ y, double *__restrict__ w)
{
  const unsigned int total = (unsigned int)N * n;
  for (unsigned int t = blockIdx.x * blockDim.x + threadIdx.x; t < total; t += gridDim.x * blockDim.x) {
    const int k = t / n, c = t % n;
    w[(size_t)order[k] * n + c] = scale[k] * y[t];
  }
}

static unsigned BlocksNM(size_t total)
{
  size_t b = (total + 255) / 256;
  return (unsigned)(b < 65535 * 32 ? (b ? b : 1) : 65535 * 32);
}

extern "C" int VPCudaHFEMTransformForwardNM(VPCudaHFEMTransform t, int n, const double *B, size_t ldb, double *w, double *z)
{
  if (!n || !t->N) return 0;
  if ((size_t)t->N * n >= (size_t)1 << 31) return (int)cudaErrorInvalidValue; // 32-bit element indices
  VPHFEMTransposeIn<<<dim3((t->N + 31) / 32, (n + 31) / 32), dim3(32, 8)>>>(t->N, n, B, ldb, w);
  VP_CHECK(cudaGetLastError());
  for (int H = 1; H < t->s; H *= 2) {
    const size_t nc = (size_t)(t->nx / (2 * H) - 1) * (t->ny / (2 * H) - 1);
    if (!nc) continue;
    VPHFEMRestrictNM<<<BlocksNM(nc * n), 256>>>(t->nx, t->ny, H, n, w);
    VP_CHECK(cudaGetLastError());
  }
  VPHFEMGatherNM<<<BlocksNM((size_t)t->N * n), 256>>>(t->N, n, t->order, t->scale, w, z);
  VP_CHECK(cudaGetLastError());
  return 0;
}

extern "C" int VPCudaHFEMTransformBackwardNM(VPCudaHFEMTransform t, int n, const double *y, double *w, double *X, size_t ldx)
{
  if (!n || !t->N) return 0;
  if ((size_t)t->N * n >= (size_t)1 << 31) return (int)cudaErrorInvalidValue;
  VPHFEMScatterNM<<<BlocksNM((size_t)t->N * n), 256>>>(t->N, n, t->order, t->scale, y, w);
  VP_CHECK(cudaGetLastError());
  for (int H = t->s / 2; H >= 1; H /= 2) {
    VPHFEMProlongNM<<<BlocksNM((size_t)(t->nx / H - 1) * (t->ny / H - 1) * n), 256>>>(t->nx, t->ny, H, n, w);
    VP_CHECK(cudaGetLastError());
  }
  VPHFEMTransposeOut<<<dim3((t->N + 31) / 32, (n + 31) / 32), dim3(32, 8)>>>(t->N, n, w, X, ldx);
  VP_CHECK(cudaGetLastError());
  return 0;
}

extern "C" int VPCudaHFEMTransformDestroy(VPCudaHFEMTransform *tp)
{
  VPCudaHFEMTransform t = *tp;
  if (!t) return 0;
  *tp = NULL;
  VP_CHECK(cudaFree(t->order));
  VP_CHECK(cudaFree(t->place));
  VP_CHECK(cudaFree(t->scale));
  VP_CHECK(cudaFree(t->scalef));
  delete t;
  return 0;
}
