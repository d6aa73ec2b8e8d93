#!/usr/bin/env bash
# Builds a CUDA-enabled PETSc for petsc-vpatch on a fresh Debian 12 machine with the CUDA toolkit in
# /usr/local/cuda, from Debian's own PETSc source package (3.22.5, the one Debian 13 ships), and installs it
# as a prefix. Then: make PETSC_DIR=<prefix> (petsc-plugin.conf: PETSC_DIR=<prefix>, PETSC_ARCH empty).
#
#   scripts/build-petsc-cuda.sh [--prefix DIR] [--cuda-arch 90] [--jobs N] [--workdir DIR] [--64-bit-indices]
#
# --64-bit-indices builds PETSc with 64-bit PetscInt (--with-64-bit-indices), for problems past 2^31 unknowns;
# put it in its own prefix (for example --prefix /opt/petsc-cuda64) and build the plugin there with
# make PETSC_DIR=/opt/petsc-cuda64 (a plugin build is for one PetscInt size).
#
# Debian's petsc-dev (3.18) has no CUDA, and PETSc 3.22 predates CUDA 13, which removed a few interfaces PETSc
# uses (the NVTX library, thrust::unary_function / thrust::identity / thrust/async, two clock-rate fields of
# cudaDeviceProp, three cuFFT result codes): step 3 adapts those lines of the source. Takes about 6 minutes on
# 2 cores. Needs apt access to a Debian mirror (the one this machine's apt already uses).
set -euo pipefail
prefix=/opt/petsc-cuda
arch=90
jobs=$(nproc)
work=/tmp/petsc-cuda-src
index64=0
while [ $# -gt 0 ]; do
  case $1 in
  --prefix) prefix=$2; shift 2 ;;
  --cuda-arch) arch=$2; shift 2 ;;
  --jobs) jobs=$2; shift 2 ;;
  --workdir) work=$2; shift 2 ;;
  --64-bit-indices) index64=1; shift ;;
  *) echo "usage: $0 [--prefix DIR] [--cuda-arch CC] [--jobs N] [--workdir DIR] [--64-bit-indices]" >&2; exit 2 ;;
  esac
done
ver=3.22.5
cuda=/usr/local/cuda
[ -x "$cuda/bin/nvcc" ] || { echo "no CUDA toolkit at $cuda (nvcc missing)" >&2; exit 1; }
sudo=""
[ "$(id -u)" = 0 ] || sudo=sudo

echo "== 1. build dependencies (apt)"
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q build-essential python3 xz-utils openmpi-bin libopenmpi-dev libblas-dev liblapack-dev >/dev/null

echo "== 2. Debian's PETSc $ver source (the upstream tarball of the trixie package)"
mkdir -p "$work/lists/partial" "$work/cache/archives/partial"
# the first non-security mirror of the apt configuration (deb822 .sources files, or a classic sources.list)
mirror=$( (sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/*.sources 2>/dev/null; awk '$1 == "deb" {print $2}' /etc/apt/sources.list 2>/dev/null) | tr ' ' '\n' | grep -v security | head -1 || true)
[ -n "$mirror" ] || { echo "no Debian mirror found in the apt configuration" >&2; exit 1; }
echo "deb-src $mirror trixie main" >"$work/sources.list"
aptsrc=(-o "Dir::Etc::SourceList=$work/sources.list" -o "Dir::Etc::SourceParts=/dev/null" -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache")
apt-get "${aptsrc[@]}" update >/dev/null
cd "$work"
apt-get "${aptsrc[@]}" source --download-only "petsc=${ver}+dfsg1-2" >/dev/null 2>&1 || true
tarball=$(ls petsc_${ver}+dfsg1.orig.tar.* 2>/dev/null | head -1)
[ -n "$tarball" ] || { echo "could not download the PETSc $ver source from $mirror" >&2; exit 1; }
rm -rf "petsc-$ver"
tar -xf "$tarball"
cd "petsc-$ver"

echo "== 3. adapt PETSc $ver to CUDA 13"
# replace FILE OLD NEW: exactly the given text, and fail loudly if it is not there (another PETSc version)
replace() {
  python3 -c 'import sys
p, a, b = sys.argv[1:4]
s = open(p).read()
if a not in s: sys.exit("%s: expected text not found: %r" % (p, a[:60]))
open(p, "w").write(s.replace(a, b))' "$@"
}
replace config/BuildSystem/config/packages/cuda.py "['libcudart.a','libnvToolsExt.a']," "['libcudart.a'],"
replace config/BuildSystem/config/packages/cuda.py "['cudart.lib','nvToolsExt.lib']]" "['cudart.lib']]"
replace src/sys/logging/handler/impls/nvtx/lognvtx.c "#include <nvToolsExt.h>" "#include <nvtx3/nvToolsExt.h>"
replace src/sys/classes/random/impls/curand/curand2.cu ": public thrust::unary_function<PetscReal, PetscReal> {" " {"
f=src/mat/impls/aij/seq/seqcusparse/aijcusparse.cu
replace $f "#include <thrust/async/for_each.h>" ""
replace $f "#define PETSC_HAVE_THRUST_ASYNC 1" ""
replace $f "#include <thrust/adjacent_difference.h>" "#include <thrust/adjacent_difference.h>
#include <cuda/std/functional>"
replace $f "thrust::identity<int>()" "cuda::std::identity()"
replace src/sys/objects/device/impls/cupm/cupmdevice.cxx "dprop_.clockRate" "0"
replace src/sys/objects/device/impls/cupm/cupmdevice.cxx "dprop_.memoryClockRate" "0"
for code in CUFFT_INCOMPLETE_PARAMETER_LIST CUFFT_PARSE_ERROR CUFFT_LICENSE_ERROR; do
  replace src/sys/error/err.c "  case $code:
    return \"$code\";
" ""
done

echo "== 3b. count device flops in double precision"
# PETSc 3.22 passes a vector kernel's flop count to PetscLogGpuFlops() as an int product (2 * n, nv * 2 * n, ...)
# that overflows past 2^31 flops in one call (VecMAXPY of 6 vectors of 451M entries gave -9.36e+08 flops, and
# -log_view then stops with "Minimum flop ... is negative"); promote each product's first factor to double.
f=src/vec/vec/impls/seq/cupm/vecseqcupm_impl.hpp
replace $f "PetscLogGpuFlops((alphaIsOne ? 1 : 2) * n)" "PetscLogGpuFlops((alphaIsOne ? 1.0 : 2.0) * n)"
replace $f "PetscLogGpuFlops(2 * n" "PetscLogGpuFlops(2.0 * n"
replace $f "PetscLogGpuFlops(nv * 2 * n)" "PetscLogGpuFlops(2.0 * nv * n)"
replace $f "PetscLogGpuFlops(nv * (2 * n - 1))" "PetscLogGpuFlops(nv * (2.0 * n - 1))"
replace $f "PetscLogGpuFlops((betaIsZero ? 1 : 3) * n)" "PetscLogGpuFlops((betaIsZero ? 1.0 : 3.0) * n)"
replace $f "    PetscInt   flopCount = 0;" "    PetscLogDouble flopCount = 0;"
replace $f "flopCount = std::max(n - 1, 0);" "flopCount = std::max(n - 1.0, 0.0);"
replace $f "flopCount += std::max(2 * n - 1, 0);" "flopCount += std::max(2.0 * n - 1, 0.0);"
replace src/ksp/pc/impls/pbjacobi/cuda/pbjacobi_cuda.cu "PetscLogGpuFlops(bs * bs * mbs * 2)" "PetscLogGpuFlops(2.0 * bs * bs * mbs)"
replace src/ksp/pc/impls/vpbjacobi/cuda/vpbjacobi_cuda.cu "PetscLogGpuFlops(pcuda->nsize * 2)" "PetscLogGpuFlops(2.0 * pcuda->nsize)"
replace src/mat/impls/dense/seq/cupm/matseqdensecupm.hpp "PetscLogGpuFlops(PetscMax(2 * N - 1, 0))" "PetscLogGpuFlops(PetscMax(2.0 * N - 1, 0.0))"
if grep -nE 'PetscLogGpuFlops\((nv \* )?\(?[0-9]+ \*' $f; then echo "an integer flop product is left in $f" >&2; exit 1; fi

echo "== 4. configure, build, install to $prefix (CUDA arch $arch)"
export PETSC_DIR=$PWD PETSC_ARCH=arch-vpatch-cuda
python3 ./configure --with-cc=mpicc --with-cxx=mpicxx --with-fc=0 --with-debugging=0 --with-shared-libraries=1 --with-x=0 \
  --with-cuda=1 --with-cuda-dir="$cuda" --with-cuda-arch="$arch" --COPTFLAGS=-O2 --CXXOPTFLAGS=-O2 --CUDAOPTFLAGS=-O2 \
  --with-blaslapack-lib="-llapack -lblas" --with-64-bit-indices="$index64" --prefix="$prefix" >/dev/null
make PETSC_DIR="$PETSC_DIR" PETSC_ARCH="$PETSC_ARCH" MAKE_NP="$jobs" all >/dev/null
$sudo rm -rf "$prefix"
$sudo make PETSC_DIR="$PETSC_DIR" PETSC_ARCH="$PETSC_ARCH" install >/dev/null
grep -q '^#define PETSC_HAVE_CUDA 1' "$prefix/include/petscconf.h"
if [ $index64 = 1 ]; then grep -q '^#define PETSC_USE_64BIT_INDICES 1' "$prefix/include/petscconf.h"; fi
echo "installed PETSc $ver with CUDA at $prefix; build petsc-vpatch with: make PETSC_DIR=$prefix"
