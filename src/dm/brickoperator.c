/* The registry of brick operators. The DM layer only knows the DMBrickOperatorOps table an operator
   fills; the operators themselves live in src/mat and register here at package initialization. */
#include "brickimpl.h"

static PetscFunctionList DMBrickOperatorList = NULL;

/*@C
   DMBrickRegisterOperator - adds an operator that bricks can discretize (-dm_brick_operator name)

   Not Collective

   Input Parameters:
+  name  - the operator's name
-  setup - fills the brick's operator table (ghost width, minimal degree, matrix constructors)

   Level: developer

.seealso: `DMBRICK`, `DMBrickSetOperator()`
@*/
PetscErrorCode DMBrickRegisterOperator(const char name[], PetscErrorCode (*setup)(DM))
{
  PetscFunctionBegin;
  PetscCall(VPatchInitializePackage());
  PetscCall(PetscFunctionListAdd(&DMBrickOperatorList, name, setup));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PETSC_INTERN PetscErrorCode DMBrickOperatorListDestroy_Private(void)
{
  PetscFunctionBegin;
  PetscCall(PetscFunctionListDestroy(&DMBrickOperatorList));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PETSC_INTERN PetscErrorCode DMBrickOperatorList_Private(PetscFunctionList *list)
{
  PetscFunctionBegin;
  *list = DMBrickOperatorList;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PETSC_INTERN PetscErrorCode DMBrickOperatorSetUp_Private(DM dm)
{
  DM_Brick *brick             = (DM_Brick *)dm->data;
  PetscErrorCode (*setup)(DM) = NULL;

  PetscFunctionBegin;
  PetscCall(PetscFunctionListFind(DMBrickOperatorList, brick->opname, &setup));
  if (!setup) {
    char         known[256] = "";
    const char **names;
    int          n;
    PetscCall(PetscFunctionListGet(DMBrickOperatorList, &names, &n));
    for (int i = 0; i < n; i++) {
      if (i) PetscCall(PetscStrlcat(known, ", ", sizeof(known)));
      PetscCall(PetscStrlcat(known, names[i], sizeof(known)));
    }
    PetscCall(PetscFree(names));
    SETERRQ(PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_UNKNOWN_TYPE, "-dm_brick_operator %s: unknown operator; allowed: %s", brick->opname, known);
  }
  PetscCall(PetscMemzero(&brick->op, sizeof(brick->op)));
  /* an operator that says nothing gets the usual 1 (multiplicative) and one over the patches per cell (additive) */
  for (PetscInt d = 0; d < 4; d++) {
    brick->op.multiplicative_damping[d] = 1.0;
    brick->op.additive_damping[d]       = 1.0 / (PetscReal)(1 << d);
  }
  PetscCall((*setup)(dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}
