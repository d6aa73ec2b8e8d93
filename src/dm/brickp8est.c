/* The 3D (p8est) build of brickp4est.c: p4est's own way of compiling one source for both dimensions. */
#include <p4est_to_p8est.h>
#include "brickp4est.c"
