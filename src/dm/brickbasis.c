/* The 1D Q_k Lagrange basis on Gauss-Lobatto points of the reference interval [0,1]. Everything the
   brick's tensor-product elements need is a product of these 1D functions. */
#include "brickimpl.h"

/* BrickBasisNodes - the k+1 Gauss-Lobatto-Legendre points mapped to [0,1], increasing. */
PetscErrorCode BrickBasisNodes(PetscInt k, PetscReal nodes[])
{
  PetscReal w[BRICK_MAX_DEGREE + 1];

  PetscFunctionBegin;
  PetscCheck(k >= 1 && k <= BRICK_MAX_DEGREE, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Degree %" PetscInt_FMT " outside 1..%d", k, BRICK_MAX_DEGREE);
  PetscCall(PetscDTGaussLobattoLegendreQuadrature(k + 1, PETSCGAUSSLOBATTOLEGENDRE_VIA_NEWTON, nodes, w));
  for (PetscInt i = 0; i <= k; i++) nodes[i] = 0.5 * (nodes[i] + 1.0);
  /* the endpoints exactly, so that shared nodes of neighbouring cells coincide bit for bit */
  nodes[0] = 0.0;
  nodes[k] = 1.0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* BrickBasisEvaluate - values val[q*(k+1)+j] = phi_j(pts[q]) and, if der is not NULL, derivatives
   der[q*(k+1)+j] = phi_j'(pts[q]) of the Lagrange polynomials on the given nodes. */
PetscErrorCode BrickBasisEvaluate(PetscInt k, const PetscReal nodes[], PetscInt npts, const PetscReal pts[], PetscReal val[], PetscReal der[])
{
  PetscFunctionBegin;
  for (PetscInt q = 0; q < npts; q++) {
    const PetscReal x = pts[q];
    for (PetscInt j = 0; j <= k; j++) {
      PetscReal v = 1.0, d = 0.0;
      for (PetscInt m = 0; m <= k; m++) {
        if (m == j) continue;
        v *= (x - nodes[m]) / (nodes[j] - nodes[m]);
      }
      if (der) {
        /* product rule: one factor differentiated at a time */
        for (PetscInt m = 0; m <= k; m++) {
          PetscReal t;
          if (m == j) continue;
          t = 1.0 / (nodes[j] - nodes[m]);
          for (PetscInt l = 0; l <= k; l++) {
            if (l == j || l == m) continue;
            t *= (x - nodes[l]) / (nodes[j] - nodes[l]);
          }
          d += t;
        }
        der[q * (k + 1) + j] = d;
      }
      val[q * (k + 1) + j] = v;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* BrickBasisProlongation - the 1D embedding of one coarse cell into its two children:
   P[i*(k+1)+j] = phi_j(t_i), with t_i the 2k+1 fine nodes in the coarse cell's reference coordinate
   (child 0 holds t_0..t_k, child 1 holds t_k..t_2k; t_k = 1/2 is shared). */
PetscErrorCode BrickBasisProlongation(PetscInt k, const PetscReal nodes[], PetscReal P[])
{
  PetscReal t[2 * BRICK_MAX_DEGREE + 1];

  PetscFunctionBegin;
  for (PetscInt i = 0; i <= k; i++) t[i] = 0.5 * nodes[i];
  for (PetscInt i = 1; i <= k; i++) t[k + i] = 0.5 + 0.5 * nodes[i];
  PetscCall(BrickBasisEvaluate(k, nodes, 2 * k + 1, t, P, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}
