// Internal to cuda/: 8-byte copies from global to shared memory that bypass the registers (cp.async, compute capability
// 8.0 or newer; a plain copy below), for the kernels that fetch the next patch's closure during the current one
// (vpsmooth_mma.cu, vpsmooth_pair.cu).
#pragma once
#include <cuda_runtime.h>

// dst (shared) = *src, or zero where !valid (src is then not read but must be a valid address)
__device__ inline void VPCopyAsync(double *dst, const double *src, bool valid)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const unsigned saddr = (unsigned)__cvta_generic_to_shared(dst);
  asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;" ::"r"(saddr), "l"(src), "r"(valid ? 8 : 0) : "memory");
#else
  *dst = valid ? *src : 0.0;
#endif
}

// closes the group of the copies issued so far
__device__ inline void VPCopyCommit()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;" ::: "memory");
#endif
}

// waits for every committed group of this thread (a barrier then makes them visible to the block)
__device__ inline void VPCopyWait()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group 0;" ::: "memory");
#endif
}
