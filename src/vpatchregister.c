/* Package registration: the types and operators the plugin adds to PETSc, and its log events. */
#include "dm/brickimpl.h"
#include "mat/brickelement.h"

PETSC_EXTERN PetscErrorCode DMCreate_Brick(DM);
PETSC_EXTERN PetscErrorCode PCCreate_VertexPatch(PC);
PETSC_EXTERN PetscErrorCode PCCreate_HFEM(PC);
PETSC_EXTERN PetscErrorCode PCCreate_DenseInverse(PC);
PETSC_INTERN PetscErrorCode DMBrickOperatorListDestroy_Private(void);

PetscLogEvent DMBRICK_ForestMesh, DMBRICK_ForestLayout, DMBRICK_ForestTransferSetUp;
PetscLogEvent DMBRICK_Setup, DMBRICK_Assemble, DMBRICK_Interpolate, DMBRICK_Restrict, DMBRICK_LoadVector, DMBRICK_L2Error, DMBRICK_Exchange, DMBRICK_ExchangeSetUp, DMBRICK_VTKWrite;
PetscLogEvent PC_VertexPatchSetUp, PC_VertexPatchSmooth, PC_VertexPatchSchedule, PC_VertexPatchGPUSetUp, PC_VertexPatchGhostSetUp;
PetscLogEvent PC_HFEMSetUp, PC_HFEMApply, PC_HFEMTransform, PC_HFEMInvert, PC_HFEMApplyT, PC_HFEMApplyD, PC_HFEMApplyDense;

static PetscBool VPatchPackageInitialized = PETSC_FALSE;

/*@C
   VPatchFinalizePackage - frees what `VPatchInitializePackage()` registered; called by `PetscFinalize()`

   Level: developer

.seealso: `VPatchInitializePackage()`
@*/
PetscErrorCode VPatchFinalizePackage(void)
{
  PetscFunctionBegin;
  PetscCall(DMBrickOperatorListDestroy_Private());
  VPatchPackageInitialized = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
   VPatchInitializePackage - registers the DM type "brick" (`DMBRICK`), its operators, the PC type "vertexpatch"
   (`PCVERTEXPATCH`) and the log events.
   Programs linked with the plugin call it (or `DMBrickCreate()`, which does) before `DMSetType()`;
   `-dll_append lib/libpetscvpatch.so` calls it for programs that are not.

   Level: developer

.seealso: `PetscDLLibraryRegister_petscvpatch()`, `VPatchFinalizePackage()`
@*/
PetscErrorCode VPatchInitializePackage(void)
{
  PetscFunctionBegin;
  if (VPatchPackageInitialized) PetscFunctionReturn(PETSC_SUCCESS);
  VPatchPackageInitialized = PETSC_TRUE;
  PetscCall(DMInitializePackage());
  PetscCall(KSPInitializePackage());
  PetscCall(DMRegister(DMBRICK, DMCreate_Brick));
  PetscCall(DMBrickRegisterOperator("laplace", DMBrickOperatorCreate_Laplace));
  PetscCall(DMBrickRegisterOperator("c0ip", DMBrickOperatorCreate_C0IP));
  PetscCall(DMBrickRegisterOperator("sipg", DMBrickOperatorCreate_SIPG));
  PetscCall(PCRegister("vertexpatch", PCCreate_VertexPatch));
  PetscCall(PCRegister("hfem", PCCreate_HFEM));
  PetscCall(PCRegister("denseinverse", PCCreate_DenseInverse));
  PetscCall(PetscLogEventRegister("BrickSetUp", DM_CLASSID, &DMBRICK_Setup));
  PetscCall(PetscLogEventRegister("BrickAssemble", DM_CLASSID, &DMBRICK_Assemble));
  PetscCall(PetscLogEventRegister("BrickInterp", DM_CLASSID, &DMBRICK_Interpolate));
  PetscCall(PetscLogEventRegister("BrickRestrict", DM_CLASSID, &DMBRICK_Restrict));
  PetscCall(PetscLogEventRegister("BrickLoadVector", DM_CLASSID, &DMBRICK_LoadVector));
  PetscCall(PetscLogEventRegister("BrickVTKWrite", DM_CLASSID, &DMBRICK_VTKWrite));
  PetscCall(PetscLogEventRegister("BrickL2Error", DM_CLASSID, &DMBRICK_L2Error));
  PetscCall(PetscLogEventRegister("BrickGPUExchange", DM_CLASSID, &DMBRICK_Exchange));
  PetscCall(PetscLogEventRegister("BrickGPUExchSetUp", DM_CLASSID, &DMBRICK_ExchangeSetUp));
  PetscCall(PetscLogEventRegister("BrickForestMesh", DM_CLASSID, &DMBRICK_ForestMesh));
  PetscCall(PetscLogEventRegister("BrickForestLayout", DM_CLASSID, &DMBRICK_ForestLayout));
  PetscCall(PetscLogEventRegister("BrickForestTrSetUp", DM_CLASSID, &DMBRICK_ForestTransferSetUp));
  PetscCall(PetscLogEventRegister("VPatchSetUp", PC_CLASSID, &PC_VertexPatchSetUp));
  PetscCall(PetscLogEventRegister("VPatchSmooth", PC_CLASSID, &PC_VertexPatchSmooth));
  PetscCall(PetscLogEventRegister("VPatchSchedule", PC_CLASSID, &PC_VertexPatchSchedule));
  PetscCall(PetscLogEventRegister("VPatchGPUSetUp", PC_CLASSID, &PC_VertexPatchGPUSetUp));
  PetscCall(PetscLogEventRegister("VPatchGhostSetUp", PC_CLASSID, &PC_VertexPatchGhostSetUp));
  PetscCall(PetscLogEventRegister("HFEMSetUp", PC_CLASSID, &PC_HFEMSetUp));
  PetscCall(PetscLogEventRegister("HFEMApply", PC_CLASSID, &PC_HFEMApply));
  PetscCall(PetscLogEventRegister("HFEMTransform", PC_CLASSID, &PC_HFEMTransform));
  PetscCall(PetscLogEventRegister("HFEMInvert", PC_CLASSID, &PC_HFEMInvert));
  PetscCall(PetscLogEventRegister("HFEMApplyT", PC_CLASSID, &PC_HFEMApplyT));
  PetscCall(PetscLogEventRegister("HFEMApplyD", PC_CLASSID, &PC_HFEMApplyD));
  PetscCall(PetscLogEventRegister("HFEMApplyDense", PC_CLASSID, &PC_HFEMApplyDense));
  PetscCall(PetscRegisterFinalize(VPatchFinalizePackage));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
   PetscDLLibraryRegister_petscvpatch - entry point PETSc calls when the plugin is loaded with
   -dll_append (or -dll_prepend) lib/libpetscvpatch.so

   Level: developer

.seealso: `VPatchInitializePackage()`
@*/
PETSC_EXTERN PetscErrorCode PetscDLLibraryRegister_petscvpatch(void)
{
  PetscFunctionBegin;
  PetscCall(VPatchInitializePackage());
  PetscFunctionReturn(PETSC_SUCCESS);
}
