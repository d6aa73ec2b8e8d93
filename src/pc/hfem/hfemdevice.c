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
  err = VPCudaHFEMSetTimers(h, (int)hf->timers);
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "PCHFEM: CUDA error in VPCudaHFEMSetTimers: %s", VPCudaErrorString(err));
  err = VPCudaHFEMSetCinv(h, Cinv);
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "PCHFEM: CUDA error storing C_1^-1: %s", VPCudaErrorString(err));
  if (hf->folded) {
    PetscBLASInt ns;
    PetscCall(PetscBLASIntCast(hf->ns, &ns));
    err = VPCudaHFEMSetFold(h, ns, (double)hf->alpha, Cinv, hf->Gs);
    PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "PCHFEM: CUDA error storing the folded couplings (-pc_hfem_fold): %s", VPCudaErrorString(err));
  }
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

/* the rows of the set-order block [r0, r0 + nr) x [c0, c0 + nc) of the sparse A that have entries in it (the explicit zero
   diagonal of D and D^T lies outside), as the GPU's coupling which */
static PetscErrorCode SetCoupling(VPCudaHFEM h, int which, Mat A, PetscInt r0, PetscInt nr, PetscInt c0, PetscInt nc, PetscInt *nentries)
{
  PetscInt nrows = 0, nnz = 0;
  int     *rows, *ptr, *col, err;
  double  *val;

  PetscFunctionBegin;
  for (PetscInt pass = 0; pass < 2; pass++) {
    nrows = nnz = 0;
    for (PetscInt r = r0; r < r0 + nr; r++) {
      PetscInt           ncols, had = nnz;
      const PetscInt    *cols;
      const PetscScalar *vals;
      PetscCall(MatGetRow(A, r, &ncols, &cols, &vals));
      for (PetscInt t = 0; t < ncols; t++)
        if (cols[t] >= c0 && cols[t] < c0 + nc) {
          if (pass) {
            PetscCall(PetscMPIIntCast(cols[t], &col[nnz]));
            val[nnz] = PetscRealPart(vals[t]);
          }
          nnz++;
        }
      PetscCall(MatRestoreRow(A, r, &ncols, &cols, &vals));
      if (nnz > had) {
        if (pass) {
          PetscCall(PetscMPIIntCast(r, &rows[nrows]));
          PetscCall(PetscMPIIntCast(nnz, &ptr[nrows + 1]));
        }
        nrows++;
      }
    }
    if (!pass) {
      PetscCall(PetscMalloc4(nrows + 1, &rows, nrows + 1, &ptr, nnz + 1, &col, nnz + 1, &val));
      ptr[0] = 0;
    }
  }
  err = VPCudaHFEMSetCoupling(h, which, (int)nrows, rows, ptr, col, val);
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "PCHFEM: CUDA error in VPCudaHFEMSetCoupling: %s", VPCudaErrorString(err));
  PetscCall(PetscFree4(rows, ptr, col, val));
  *nentries = nnz;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* D and D^T on the GPU as kernels on their coupled rows (no N x n products) */
PetscErrorCode PCHFEMSetUpCoupling_Device(PC pc)
{
  PC_HFEM *hf = (PC_HFEM *)pc->data;

  PetscFunctionBegin;
  PetscCall(SetCoupling((VPCudaHFEM)hf->gpu, 0, hf->D, hf->nC, hf->nE, hf->nC + hf->nE, hf->nI, &hf->nnzD));
  PetscCall(SetCoupling((VPCudaHFEM)hf->gpu, 1, hf->Dt, hf->nC + hf->nE, hf->nI, hf->nC, hf->nE, &hf->nnzDt));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Z -= D Y (which 0) or D^T Y (1) on the GPU */
static PetscErrorCode Couple(PC pc, int which, PetscInt ld)
{
  PC_HFEM           *hf = (PC_HFEM *)pc->data;
  PetscScalar       *z;
  const PetscScalar *y;
  int                err;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(PC_HFEMApplyD, pc, 0, 0, 0));
  PetscCall(MatDenseCUDAGetArray(hf->Z, &z));
  PetscCall(MatDenseCUDAGetArrayRead(hf->Y, &y));
  PetscCall(PetscLogGpuTimeBegin());
  err = VPCudaHFEMCouple((VPCudaHFEM)hf->gpu, which, (int)hf->wcols, y, z, (int)ld);
  PetscCall(PetscLogGpuTimeEnd());
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "PCHFEM: CUDA error in the E-I coupling: %s", VPCudaErrorString(err));
  PetscCall(MatDenseCUDARestoreArrayRead(hf->Y, &y));
  PetscCall(MatDenseCUDARestoreArray(hf->Z, &z));
  PetscCall(PetscLogGpuFlops(2.0 * hf->wcols * (which ? hf->nnzDt : hf->nnzD)));
  PetscCall(PetscLogEventEnd(PC_HFEMApplyD, pc, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* whether n columns are solved by the node-major path (-pc_hfem_node_major, the stencils, at least 8 columns, 32-bit
   element indices): with one column the layouts are the same and the column-major stages are faster (H100, h = 1/1024,
   half: 3.4 ms against 4.5 ms); with 256 columns the node-major pass is 1.25x faster (25.7 ms against 32 ms) */
PetscErrorCode PCHFEMNodeMajor_Device(PC pc, PetscInt n, PetscBool *nm)
{
  PC_HFEM *hf = (PC_HFEM *)pc->data;

  PetscFunctionBegin;
  *nm = (PetscBool)(hf->device && hf->stencil && hf->nodemajor && n >= 8 && (PetscInt64)hf->N * n < ((PetscInt64)1 << 31) && (PetscInt64)hf->nb * hf->ncell * n < ((PetscInt64)1 << 30));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* whether the node-major solve takes the fused path (-pc_hfem_fused, and a macro cell's closure fits the shared memory) */
PetscErrorCode PCHFEMFused_Device(PC pc, PetscBool *fused)
{
  PC_HFEM *hf = (PC_HFEM *)pc->data;

  PetscFunctionBegin;
  *fused = (PetscBool)(hf->fused && hf->gpu && hf->gputransform && VPCudaHFEMCellsFit((VPCudaHFEM)hf->gpu, (VPCudaHFEMTransform)hf->gputransform));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* n right-hand sides b (column-major, ldb, device) solved into x (ldx) in one call: transform, couplings and dense stages on
   node-major work arrays, macro cell by macro cell (cuda/vphfemcell.cu, VPCudaHFEMSolveCells) or level by level over the
   whole grid (cuda/vphfem.cu, VPCudaHFEMSolveNM) */
PetscErrorCode PCHFEMSolveNodeMajor_Device(PC pc, PetscInt n, const PetscScalar *b, PetscInt ldb, PetscScalar *x, PetscInt ldx)
{
  PC_HFEM  *hf = (PC_HFEM *)pc->data;
  PetscBool fused;
  int       err;

  PetscFunctionBegin;
  PetscCall(PCHFEMFused_Device(pc, &fused));
  PetscCall(PetscLogEventBegin(PC_HFEMApplyDense, pc, 0, 0, 0));
  PetscCall(PetscLogGpuTimeBegin());
  if (fused) err = VPCudaHFEMSolveCells((VPCudaHFEM)hf->gpu, (VPCudaHFEMTransform)hf->gputransform, (int)n, b, (size_t)ldb, x, (size_t)ldx);
  else err = VPCudaHFEMSolveNM((VPCudaHFEM)hf->gpu, (VPCudaHFEMTransform)hf->gputransform, (int)n, b, (size_t)ldb, x, (size_t)ldx);
  PetscCall(PetscLogGpuTimeEnd());
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "PCHFEM: CUDA error in the node-major solve (-pc_hfem_node_major%s%s): %s (code %d)", fused ? ", -pc_hfem_fused" : "", fused && hf->folded ? ", -pc_hfem_fold" : "", VPCudaErrorString(err), err);
  /* the flops done: with the folded couplings (fused path) G^T Z_I and [C^-1 | -G] for each cell (no sparse D, D^T) */
  if (fused && hf->folded) PetscCall(PetscLogGpuFlops(n * (2.0 * hf->nE * hf->nE + 2.0 * hf->nb * (hf->nb + 2.0 * hf->ns) * hf->ncell + 4.0 * hf->nC * hf->nE + 2.0 * hf->nC * hf->nC)));
  else PetscCall(PetscLogGpuFlops(n * (2.0 * hf->nE * hf->nE + 4.0 * hf->nb * hf->nb * hf->ncell + 4.0 * hf->nC * hf->nE + 2.0 * hf->nC * hf->nC + 2.0 * (hf->nnzD + hf->nnzDt))));
  PetscCall(PetscLogEventEnd(PC_HFEMApplyDense, pc, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one solve of the columns of Bin into Xo on the GPU */
PetscErrorCode PCHFEMSolveStages_Device(PC pc)
{
  PC_HFEM           *hf = (PC_HFEM *)pc->data;
  VPCudaHFEM         h  = (VPCudaHFEM)hf->gpu;
  PetscScalar  *z, *y;
  PetscInt      ld;
  int           err;
  PetscBLASInt  n, ild;

  PetscFunctionBegin;
  PetscCall(PetscBLASIntCast(hf->wcols, &n));
  PetscCall(PCHFEMTransformForward_Private(pc));
  PetscCall(PetscLogEventBegin(PC_HFEMApplyDense, pc, 0, 0, 0));
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
  PetscCall(PetscLogEventEnd(PC_HFEMApplyDense, pc, 0, 0, 0));
  PetscCall(Couple(pc, 0, ld)); /* Z_E -= D Y_I */
  PetscCall(PetscLogEventBegin(PC_HFEMApplyDense, pc, 0, 0, 0));
  PetscCall(MatDenseCUDAGetArray(hf->Z, &z));
  PetscCall(MatDenseCUDAGetArray(hf->Y, &y));
  PetscCall(PetscLogGpuTimeBegin());
  err = VPCudaHFEMMiddle(h, n, z, y, ild);
  PetscCall(PetscLogGpuTimeEnd());
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "PCHFEM: CUDA error in the middle stage: %s", VPCudaErrorString(err));
  PetscCall(MatDenseCUDARestoreArray(hf->Y, &y));
  PetscCall(MatDenseCUDARestoreArray(hf->Z, &z));
  PetscCall(PetscLogEventEnd(PC_HFEMApplyDense, pc, 0, 0, 0));
  PetscCall(Couple(pc, 1, ld)); /* Z_I -= D^T Y_E */
  PetscCall(PetscLogEventBegin(PC_HFEMApplyDense, pc, 0, 0, 0));
  PetscCall(MatDenseCUDAGetArray(hf->Z, &z));
  PetscCall(MatDenseCUDAGetArray(hf->Y, &y));
  PetscCall(PetscLogGpuTimeBegin());
  err = VPCudaHFEMBackward(h, n, z, y, ild);
  PetscCall(PetscLogGpuTimeEnd());
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "PCHFEM: CUDA error in the backward stage: %s", VPCudaErrorString(err));
  PetscCall(MatDenseCUDARestoreArray(hf->Y, &y));
  PetscCall(MatDenseCUDARestoreArray(hf->Z, &z));
  PetscCall(PetscLogGpuFlops(n * (2.0 * hf->nE * hf->nE + 4.0 * hf->nb * hf->nb * hf->ncell + 4.0 * hf->nC * hf->nE + 2.0 * hf->nC * hf->nC)));
  PetscCall(PetscLogEventEnd(PC_HFEMApplyDense, pc, 0, 0, 0));
  PetscCall(PCHFEMTransformBackward_Private(pc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the step times of -pc_hfem_gpu_timers, summed over all solves since the setup */
PetscErrorCode PCHFEMViewTimes_Device(PC pc, PetscViewer viewer)
{
  PC_HFEM   *hf = (PC_HFEM *)pc->data;
  VPCudaHFEM h  = (VPCudaHFEM)hf->gpu;
  double     ms[VPC_HFEM_NSTEP], last[VPC_HFEM_NSTEP];
  const char *what[2] = {"all solves so far", "the last solve"};
  int        err;

  PetscFunctionBegin;
  if (!h || !hf->timers) PetscFunctionReturn(PETSC_SUCCESS);
  err = VPCudaHFEMGetTimes(h, ms, last);
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "PCHFEM: CUDA error in VPCudaHFEMGetTimes: %s", VPCudaErrorString(err));
  for (PetscInt k = 0; k < 2; k++) {
    const double *t = k ? last : ms;
    PetscCall(PetscViewerASCIIPrintf(viewer, "  GPU step times (ms, %s): C^-1 pack %.3f, product %.3f, unpack %.3f; Pi^-1 pack %.3f, product %.3f, unpack %.3f; L_C and B (double) %.3f; node-major path: transform %.3f, couplings %.3f\n", what[k], t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7], t[8]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCHFEMReset_Device(PC pc)
{
  PC_HFEM   *hf = (PC_HFEM *)pc->data;
  VPCudaHFEM h  = (VPCudaHFEM)hf->gpu;
  int        err;

  PetscFunctionBegin;
  if (h && hf->timers) {
    PetscViewer v;
    PetscCall(PetscViewerASCIIGetStdout(PetscObjectComm((PetscObject)pc), &v));
    PetscCall(PCHFEMViewTimes_Device(pc, v));
  }
  err     = VPCudaHFEMDestroy(&h);
  hf->gpu = NULL;
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "PCHFEM: CUDA error in VPCudaHFEMDestroy: %s", VPCudaErrorString(err));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif
