// Device-to-device messages between the processes of one host (src/dm/brickexchange.c): a receive buffer exported
// through CUDA IPC, and the kernels that pack values straight into a peer's buffer (stores over NVLink or PCIe peer
// access) and unpack one's own. Index lists are int, values double in units of bs consecutive values. All work goes
// on the legacy default stream, as the plugin's other kernels and PETSc's vector kernels do.
#include "vpatch_cuda.h"
#include "vpcuda_check.h"
#include <cuda_runtime.h>
#include <string.h>

static_assert(sizeof(cudaIpcMemHandle_t) == VPC_IPC_HANDLE_BYTES, "VPC_IPC_HANDLE_BYTES must be the size of cudaIpcMemHandle_t");

static int VPGrid(size_t n)
{
  const size_t b = (n + 255) / 256;
  return (int)(b > 65536 ? 65536 : b);
}

extern "C" int VPCudaExchangeAlloc(size_t nvalues, double **buf, void *handle)
{
  cudaIpcMemHandle_t h;
  *buf = NULL;
  // cudaMalloc, not the stream-ordered pool: only cudaMalloc's allocations can be exported through cudaIpcGetMemHandle
  VP_CHECK(cudaMalloc((void **)buf, (nvalues ? nvalues : 1) * sizeof(double)));
  VP_CHECK(cudaIpcGetMemHandle(&h, *buf));
  memcpy(handle, &h, sizeof(h));
  return 0;
}

extern "C" int VPCudaExchangeFree(double *buf)
{
  if (buf) VP_CHECK(cudaFree(buf));
  return 0;
}

extern "C" int VPCudaExchangeOpen(const void *handle, double **peer)
{
  cudaIpcMemHandle_t h;
  memcpy(&h, handle, sizeof(h));
  *peer = NULL;
  VP_CHECK(cudaIpcOpenMemHandle((void **)peer, h, cudaIpcMemLazyEnablePeerAccess));
  return 0;
}

extern "C" int VPCudaExchangeClose(double *peer)
{
  if (peer) VP_CHECK(cudaIpcCloseMemHandle(peer));
  return 0;
}

extern "C" int VPCudaExchangeIndices(size_t n, const int *host, int **dev)
{
  *dev = NULL;
  if (!n) return 0;
  VP_CHECK(cudaMalloc((void **)dev, n * sizeof(int)));
  VP_CHECK(cudaMemcpy(*dev, host, n * sizeof(int), cudaMemcpyHostToDevice));
  return 0;
}

extern "C" int VPCudaExchangeFreeIndices(int *dev)
{
  if (dev) VP_CHECK(cudaFree(dev));
  return 0;
}

// dst[k bs + c] = src[idx[k] bs + c]; dst may be a peer's buffer
__global__ void VPExchangePack(size_t n, int bs, const int *__restrict__ idx, const double *__restrict__ src, double *__restrict__ dst)
{
  for (size_t e = blockIdx.x * (size_t)blockDim.x + threadIdx.x; e < n * bs; e += (size_t)gridDim.x * blockDim.x) {
    const size_t k = e / bs, c = e - k * bs;
    dst[e] = src[(size_t)idx[k] * bs + c];
  }
}

// dst[didx[k] bs + c] (=, +=) src[sidx[k] bs + c], sidx NULL: src[k bs + c]. A sum is atomic: one destination may
// receive from several entries.
__global__ void VPExchangeMove(size_t n, int bs, int add, const int *__restrict__ sidx, const int *__restrict__ didx, const double *__restrict__ src, double *__restrict__ dst)
{
  for (size_t e = blockIdx.x * (size_t)blockDim.x + threadIdx.x; e < n * bs; e += (size_t)gridDim.x * blockDim.x) {
    const size_t k = e / bs, c = e - k * bs;
    const double v = src[sidx ? (size_t)sidx[k] * bs + c : e];
    double      *d = &dst[(size_t)didx[k] * bs + c];
    if (add) atomicAdd(d, v);
    else *d = v;
  }
}

extern "C" int VPCudaExchangePack(size_t n, int bs, const int *idx, const double *src, double *dst)
{
  if (!n) return 0;
  VPExchangePack<<<VPGrid(n * bs), 256>>>(n, bs, idx, src, dst);
  VP_CHECK(cudaGetLastError());
  return 0;
}

extern "C" int VPCudaExchangeMove(size_t n, int bs, int add, const int *sidx, const int *didx, const double *src, double *dst)
{
  if (!n) return 0;
  VPExchangeMove<<<VPGrid(n * bs), 256>>>(n, bs, add, sidx, didx, src, dst);
  VP_CHECK(cudaGetLastError());
  return 0;
}

// zeroes n values of a neighbour's buffer (opened through CUDA IPC) on the legacy default stream: the graph's first
// stores over the link at set-up, not in the first exchange of a solve
extern "C" int VPCudaExchangeTouch(size_t n, double *dst)
{
  if (!n) return 0;
  VP_CHECK(cudaMemsetAsync(dst, 0, n * sizeof(double), 0));
  return 0;
}

// an event after this rank's packs on the legacy default stream: waiting for it lets later work on the stream run on
extern "C" int VPCudaExchangeMarkCreate(void **mark)
{
  cudaEvent_t e;
  VP_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  *mark = (void *)e;
  return 0;
}

extern "C" int VPCudaExchangeMark(void *mark)
{
  VP_CHECK(cudaEventRecord((cudaEvent_t)mark, 0));
  return 0;
}

extern "C" int VPCudaExchangeWait(void *mark)
{
  VP_CHECK(cudaEventSynchronize((cudaEvent_t)mark));
  return 0;
}

extern "C" int VPCudaExchangeMarkDestroy(void *mark)
{
  if (mark) VP_CHECK(cudaEventDestroy((cudaEvent_t)mark));
  return 0;
}

// A block of n1 x n2 rows of n0 values: dst[z dplane + y drow + i] (=, +=) src[z splane + y srow + i]; the owned block
// of a rank between its global array and its place in the ghosted local array. I is the type of the flat index: a
// 32-bit one where the block allows, since 64-bit divisions cost about as much as the copy's memory traffic.
template <typename I>
__global__ void VPBoxMoveKernel(I n0, I n1, I n, const double *__restrict__ src, size_t srow, size_t splane, double *__restrict__ dst, size_t drow, size_t dplane, int add)
{
  for (I e = blockIdx.x * (I)blockDim.x + threadIdx.x; e < n; e += (I)gridDim.x * blockDim.x) {
    const I      i = e % n0, yz = e / n0, y = yz % n1, z = yz / n1;
    const double v = src[z * splane + y * srow + i];
    double      *d = &dst[z * dplane + y * drow + i];
    if (add) *d += v;
    else *d = v;
  }
}

extern "C" int VPCudaBoxMove(int n0, int n1, int n2, const double *src, size_t srow, size_t splane, double *dst, size_t drow, size_t dplane, int add)
{
  const size_t n = (size_t)n0 * n1 * n2;
  if (!n) return 0;
  if (n < ((size_t)1 << 31)) VPBoxMoveKernel<unsigned><<<VPGrid(n), 256>>>((unsigned)n0, (unsigned)n1, (unsigned)n, src, srow, splane, dst, drow, dplane, add);
  else VPBoxMoveKernel<size_t><<<VPGrid(n), 256>>>((size_t)n0, (size_t)n1, n, src, srow, splane, dst, drow, dplane, add);
  VP_CHECK(cudaGetLastError());
  return 0;
}
