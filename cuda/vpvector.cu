// Plain vector work on the GPU for the brick's own scatters (one rank holding a level: a copy or a sum).
#include "vpatch_cuda.h"
#include "vpcuda_check.h"
#include <cuda_runtime.h>

__global__ void VPVectorAdd(size_t n, const double *__restrict__ x, double *__restrict__ y)
{
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) y[i] += x[i];
}

__global__ void VPVectorAXPY(size_t n, double alpha, const double *__restrict__ x, double *__restrict__ y)
{
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) y[i] += alpha * x[i];
}

/* y += alpha x on n device values (the DG sweep's ghost stretches) */
extern "C" int VPCudaVectorAXPY(size_t n, double alpha, const double *x, double *y)
{
  if (!n) return 0;
  {
    const size_t b = (n + 255) / 256;
    VPVectorAXPY<<<(int)(b > 65536 ? 65536 : b), 256>>>(n, alpha, x, y);
  }
  VP_CHECK(cudaGetLastError());
  return 0;
}

extern "C" int VPCudaVectorCopy(size_t n, int add, const double *x, double *y)
{
  if (!n) return 0;
  if (!add) {
    VP_CHECK(cudaMemcpy(y, x, n * sizeof(double), cudaMemcpyDeviceToDevice));
    return 0;
  }
  {
    const size_t b = (n + 255) / 256;
    VPVectorAdd<<<(int)(b > 65536 ? 65536 : b), 256>>>(n, x, y);
  }
  VP_CHECK(cudaGetLastError());
  return 0;
}

/* The current device's number, its UUID (16 bytes: the same GPU whatever number a rank sees it under) and its free and
   total memory in bytes (the brick's memory check before a solve's first large allocation) */
extern "C" int VPCudaMemoryInfo(int *device, unsigned char uuid[16], size_t *free_bytes, size_t *total_bytes)
{
  cudaDeviceProp prop;
  VP_CHECK(cudaGetDevice(device));
  VP_CHECK(cudaGetDeviceProperties(&prop, *device));
  for (int i = 0; i < 16; i++) uuid[i] = (unsigned char)prop.uuid.bytes[i];
  VP_CHECK(cudaMemGetInfo(free_bytes, total_bytes));
  return 0;
}
