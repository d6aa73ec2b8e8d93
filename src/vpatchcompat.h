/* Every difference between the PETSc versions the plugin builds against (3.18 Debian, 3.22 CUDA) lives here. */
#pragma once

#include <petscversion.h>

/* The context destroy of KSPSetConvergenceTest(): PETSc up to 3.22 passes the context, from 3.23 on its address. */
#if PETSC_VERSION_LT(3, 23, 0)
  #define VP_CTX_DESTROY_ARG      void *
  #define VP_CTX_DESTROY_DEREF(p) (p)
  #define VP_CTX_DESTROY_CALL(f, ctx) (f)(ctx)
#else
  #define VP_CTX_DESTROY_ARG      void **
  #define VP_CTX_DESTROY_DEREF(p) (*(p))
  #define VP_CTX_DESTROY_CALL(f, ctx) (f)(&(ctx))
#endif

#if PETSC_VERSION_LT(3, 19, 0)
/* 3.19 introduced the named success code; 3.18 returns plain 0. */
#  define PETSC_SUCCESS ((PetscErrorCode)0)
#endif
