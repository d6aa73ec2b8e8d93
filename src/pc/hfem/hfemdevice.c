/* PCHFEM's dense stages on the GPU (see hfemimpl.h): the glue between the PC and cuda/vphfem.cu. Pi is assembled and
   inverted on the GPU (its size, |E|^2, is what limits the method); C_1^-1 comes from the host. */
#include "hfemimpl.h"
#if defined(VP_HAVE_CUDA)
  #include <petscdevice_cuda.h>
  #include "vpatch_cuda.h"

/* indices (-1: none) as the int of the CUDA interface */
static PetscErrorCode IntCopy(PetscInt n, const PetscInt *in, PetscBLASInt **out)
{
  PetscFunctionBegin;
  PetscCall(PetscMalloc1(n + 1, out));
  for (PetscInt i = 0; i < n; i++) {
    if (in[i] < 0) (*out)[i] = -1;
    else PetscCall(PetscBLASIntCast(in[i], &(*out)[i]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCHFEMSetUpDense_Device(PC pc, const PCHFEMParts *parts, PetscScalar *Cinv)
{
  PC_HFEM   *hf = (PC_HFEM *)pc->data;
  VPCudaHFEM h  = NULL;
  int          err;
  PetscBLASInt nC, nE, nb, ncell, nr, ntype, *ei, *ej, *cellE, *celltype;
  double     kappa = 0.0;

  PetscFunctionBegin;
  PetscCall(PetscBLASIntCast(hf->nC, &nC));
  PetscCall(PetscBLASIntCast(hf->nE, &nE));
  PetscCall(PetscBLASIntCast(hf->nb, &nb));
  PetscCall(PetscBLASIntCast(hf->ncell, &ncell));
  PetscCall(PetscBLASIntCast(parts->nr, &nr));
  PetscCall(PetscBLASIntCast(parts->ntype, &ntype));
  err = VPCudaHFEMCreate(nC, nE, nb, ncell, (int)hf->precision, (int)hf->tf32, hf->LC, hf->B, &h);
  hf->gpu = h;
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "PCHFEM: CUDA error in VPCudaHFEMCreate: %s", VPCudaErrorString(err));
  err = VPCudaHFEMSetCinv(h, Cinv);
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "PCHFEM: CUDA error storing C_1^-1: %s", VPCudaErrorString(err));
  PetscCall(PetscFree(Cinv));
  PetscCall(IntCopy(parts->nnz, parts->ei, &ei));
  PetscCall(IntCopy(parts->nnz, parts->ej, &ej));
  PetscCall(IntCopy(hf->ncell * parts->nr, parts->cellE, &cellE));
  PetscCall(IntCopy(hf->ncell, parts->celltype, &celltype));
  PetscCall(PetscLogGpuTimeBegin());
  err = VPCudaHFEMSetPi(h, (size_t)parts->nnz, ei, ej, parts->ev, ntype, nr, parts->G, cellE, celltype, hf->condition ? &kappa : NULL);
  PetscCall(PetscLogGpuTimeEnd());
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "PCHFEM: CUDA error assembling or inverting Pi (%" PetscInt_FMT " x %" PetscInt_FMT ") on the GPU: %s (code %d)", hf->nE, hf->nE, VPCudaErrorString(err), err);
  PetscCall(PetscLogGpuFlops((double)hf->nE * hf->nE * hf->nE + 2.0 * hf->nC * hf->nE * hf->nE));
  hf->kappaPi = kappa;
  PetscCall(PetscFree(ei));
  PetscCall(PetscFree(ej));
  PetscCall(PetscFree(cellE));
  PetscCall(PetscFree(celltype));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one solve of the columns of Bin into Xo on the GPU */
PetscErrorCode PCHFEMSolveStages_Device(PC pc)
{
  PC_HFEM           *hf = (PC_HFEM *)pc->data;
  VPCudaHFEM         h  = (VPCudaHFEM)hf->gpu;
  PetscScalar       *z, *y;
  const PetscScalar *w;
  PetscInt           ld;
  int                err;
  PetscBLASInt       n, ild;

  PetscFunctionBegin;
  PetscCall(PetscBLASIntCast(hf->wcols, &n));
  PetscCall(MatProductNumeric(hf->Z));
  PetscCall(MatDenseGetLDA(hf->Z, &ld));
  PetscCall(PetscBLASIntCast(ld, &ild));
  PetscCall(MatDenseCUDAGetArray(hf->Z, &z));
  PetscCall(MatDenseCUDAGetArray(hf->Y, &y));
  PetscCall(PetscLogGpuTimeBegin());
  err = VPCudaHFEMForward(h, n, z, y, ild);
  PetscCall(PetscLogGpuTimeEnd());
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "PCHFEM: CUDA error in the forward stage: %s", VPCudaErrorString(err));
  PetscCall(MatDenseCUDARestoreArray(hf->Y, &y));
  PetscCall(MatDenseCUDARestoreArray(hf->Z, &z));
  PetscCall(MatProductNumeric(hf->W));
  PetscCall(MatDenseCUDAGetArray(hf->Z, &z));
  PetscCall(MatDenseCUDAGetArray(hf->Y, &y));
  PetscCall(MatDenseCUDAGetArrayRead(hf->W, &w));
  PetscCall(PetscLogGpuTimeBegin());
  err = VPCudaHFEMMiddle(h, n, z, y, w, ild);
  PetscCall(PetscLogGpuTimeEnd());
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "PCHFEM: CUDA error in the middle stage: %s", VPCudaErrorString(err));
  PetscCall(MatDenseCUDARestoreArrayRead(hf->W, &w));
  PetscCall(MatDenseCUDARestoreArray(hf->Y, &y));
  PetscCall(MatDenseCUDARestoreArray(hf->Z, &z));
  PetscCall(MatProductNumeric(hf->W2));
  PetscCall(MatDenseCUDAGetArray(hf->Z, &z));
  PetscCall(MatDenseCUDAGetArray(hf->Y, &y));
  PetscCall(MatDenseCUDAGetArrayRead(hf->W2, &w));
  PetscCall(PetscLogGpuTimeBegin());
  err = VPCudaHFEMBackward(h, n, z, y, w, ild);
  PetscCall(PetscLogGpuTimeEnd());
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "PCHFEM: CUDA error in the backward stage: %s", VPCudaErrorString(err));
  PetscCall(MatDenseCUDARestoreArrayRead(hf->W2, &w));
  PetscCall(MatDenseCUDARestoreArray(hf->Y, &y));
  PetscCall(MatDenseCUDARestoreArray(hf->Z, &z));
  PetscCall(MatProductNumeric(hf->Xo));
  PetscCall(PetscLogGpuFlops(n * (2.0 * hf->nE * hf->nE + 4.0 * hf->nb * hf->nb * hf->ncell + 4.0 * hf->nC * hf->nE + 2.0 * hf->nC * hf->nC)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCHFEMReset_Device(PC pc)
{
  PC_HFEM   *hf = (PC_HFEM *)pc->data;
  VPCudaHFEM h  = (VPCudaHFEM)hf->gpu;
  int        err;

  PetscFunctionBegin;
  err     = VPCudaHFEMDestroy(&h);
  hf->gpu = NULL;
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "PCHFEM: CUDA error in VPCudaHFEMDestroy: %s", VPCudaErrorString(err));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif
