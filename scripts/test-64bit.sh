#!/usr/bin/env bash
# The plugin against PETSc with 64-bit indices (Debian's petsc64-dev: PETSc 3.18 with a 64-bit PetscInt): copies the
# sources to build64/ (so that the 32-bit build in the checkout stays), builds the library, tutorials and tests there
# with no compiler warning allowed, and runs the sections of tests/run.sh that match PATTERN there (default: every
# operator's checks against assembled matrices, the vertex-patch sweeps against dense ones, 1 vs 4 ranks, boundary data
# on boxes and forests (p4est's numbering with 64-bit indices), VTK output read back by VTK; a short subset, since make
# test runs it too). Last line: the runner's "N passed, N failed, N skipped". Usage: scripts/test-64bit.sh [PATTERN]    (make test64 [TESTS64=PATTERN])
set -uo pipefail
cd "$(dirname "$0")/.."
PETSC64=${PETSC64_DIR:-/usr/lib/petscdir/petsc64-3.18}
ARCH64=${PETSC64_ARCH:-x86_64-linux-gnu-real}
pattern=${1:-'^(operators|vertexpatch|ranks|bc|vtk) '}
if [ ! -f "$PETSC64/$ARCH64/include/petscconf.h" ] || ! grep -q "define PETSC_USE_64BIT_INDICES 1" "$PETSC64/$ARCH64/include/petscconf.h"; then
  echo "test-64bit: no PETSc with 64-bit indices in $PETSC64/$ARCH64 (apt-get install petsc64-dev; scripts/setup-debian.sh does)"
  exit 1
fi
mkdir -p build64
# sources only: binaries of the 32-bit build must not pass for 64-bit ones (make would take them as up to date)
rm -rf build64/src build64/include build64/cuda build64/tutorials build64/tests build64/makefile
tar cf - include src cuda tutorials makefile petsc-plugin.conf tests/*.c tests/*.h tests/*.sh tests/*.py tests/*.supp 2>/dev/null | (cd build64 && tar xf -)
cd build64
progs="all $(ls tests/test_*.c tests/plain_*.c | sed 's/\.c$//' | tr '\n' ' ')"
# shellcheck disable=SC2086
if ! make -j"$(nproc)" PETSC_DIR="$PETSC64" PETSC_ARCH="$ARCH64" CUDA=off $progs >build.log 2>&1; then
  tail -20 build.log
  echo "test-64bit: the build against $PETSC64 failed (build64/build.log)"
  exit 1
fi
if grep -E "warning:" build.log >/dev/null; then
  grep -E "warning:" build.log | head -20
  echo "test-64bit: compiler warnings against 64-bit indices (build64/build.log)"
  exit 1
fi
echo "test-64bit: built against $PETSC64 ($ARCH64, 64-bit PetscInt) without warnings; running tests/run.sh '$pattern'"
bash tests/run.sh "$pattern"
