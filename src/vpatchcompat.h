/* Every difference between the PETSc versions the plugin builds against (3.18 Debian, 3.22 CUDA) lives here. */
#pragma once

#include <petscversion.h>

#if PETSC_VERSION_LT(3, 19, 0)
/* 3.19 introduced the named success code; 3.18 returns plain 0. */
#  define PETSC_SUCCESS ((PetscErrorCode)0)
#endif
