# petsc-vpatch: builds lib/libpetscvpatch.so and the tutorials against the PETSc named in
# petsc-plugin.conf. Targets: all (default), test, run, clean, format, help.
include petsc-plugin.conf

# ---- find PETSc -------------------------------------------------------------------------------
ifneq ($(strip $(PETSC_DIR)),)
  PETSC_VARIABLES := $(firstword $(wildcard $(PETSC_DIR)/$(PETSC_ARCH)/lib/petsc/conf/petscvariables $(PETSC_DIR)/lib/petsc/conf/petscvariables))
  ifeq ($(PETSC_VARIABLES),)
    $(error PETSC_DIR=$(PETSC_DIR) PETSC_ARCH=$(PETSC_ARCH) holds no lib/petsc/conf/petscvariables: point PETSC_DIR (and PETSC_ARCH) at a PETSc installation, in petsc-plugin.conf or on the make command line)
  endif
  include $(PETSC_VARIABLES)
  VP_CC      := $(PCC)
  VP_CFLAGS  := $(PETSC_CC_INCLUDES)
  VP_LIBS    := $(PETSC_WITH_EXTERNAL_LIB)
  VP_MPIEXEC := $(MPIEXEC)
else
  ifeq ($(shell pkg-config --exists PETSc 2>/dev/null && echo yes),yes)
    VP_CC      := $(shell pkg-config --variable=ccompiler PETSc)
    VP_CFLAGS  := $(shell pkg-config --cflags PETSc)
    VP_LIBS    := $(shell pkg-config --libs PETSc) -lm
    VP_MPIEXEC := mpiexec
  else ifneq ($(shell command -v apt-get 2>/dev/null),)
    $(error No PETSc found (PETSC_DIR is empty and pkg-config knows no PETSc). Run ./scripts/setup-debian.sh to install Debian's petsc-dev, or set PETSC_DIR in petsc-plugin.conf)
  else
    $(error No PETSc found: set PETSC_DIR (and PETSC_ARCH) in petsc-plugin.conf or on the make command line)
  endif
endif

# CUDA: on when PETSc has it (petscconf.h defines PETSC_HAVE_CUDA) and CUDA is not off
VP_PETSCCONF := $(firstword $(wildcard $(PETSC_DIR)/$(PETSC_ARCH)/include/petscconf.h $(PETSC_DIR)/include/petscconf.h))
ifeq ($(CUDA),off)
  VP_CUDA :=
else ifneq ($(VP_PETSCCONF),)
  VP_CUDA := $(shell grep -q '^\#define PETSC_HAVE_CUDA 1' $(VP_PETSCCONF) && echo yes)
endif
ifeq ($(CUDA),on)
  ifneq ($(VP_CUDA),yes)
    $(error CUDA=on but the PETSc in $(or $(PETSC_DIR),pkg-config) has no CUDA: use a CUDA PETSc (scripts/build-petsc-cuda.sh, or PETSC_DIR=/opt/petsc-cuda))
  endif
endif

# OpenMP for the batched smoother schedule, when the compiler has it
VP_OPENMP := $(shell echo 'int main(void){return 0;}' | $(VP_CC) -fopenmp -x c - -o /dev/null 2>/dev/null && echo -fopenmp)
VP_WARN   := -Wall -Wextra -Wno-unused-parameter -Wno-sign-compare
# -O3: gcc vectorizes the patch smoother's loops only with -O3's cost model (1.6x on the 3D Q3 smoothing step on an
# AMD EPYC, bench/results/step37-compare-cpu-2026-11-23.md); still portable x86-64 code, same results as -O2
VP_OPT    ?= -O3 -g
VP_CCFLAGS = -fPIC $(VP_OPT) $(VP_OPENMP) $(VP_WARN) -Iinclude -Icuda $(VP_CFLAGS)
ifeq ($(NATIVE),yes)
  VP_CCFLAGS += -march=native
else ifneq ($(NATIVE),no)
  $(error NATIVE=$(NATIVE): allowed yes (-march=native, this machine's instruction set) or no (portable, the default))
endif
# p4est and libsc (forest domains), from the system or P4EST_DIR
ifeq ($(strip $(P4EST_DIR)),)
  VP_P4EST_HDR := $(wildcard /usr/include/p4est.h /usr/local/include/p4est.h)
  VP_P4EST_LIB := -lp4est -lsc
else
  VP_P4EST_HDR := $(wildcard $(P4EST_DIR)/include/p4est.h)
  VP_CCFLAGS   += -I$(P4EST_DIR)/include
  VP_P4EST_LIB := -L$(P4EST_DIR)/lib -Wl,-rpath,$(P4EST_DIR)/lib -lp4est -lsc
endif
ifeq ($(VP_P4EST_HDR),)
  $(error p4est not found (p4est.h in $(or $(P4EST_DIR),/usr/include)): run ./scripts/setup-debian.sh (Debian's libp4est-dev), or set P4EST_DIR in petsc-plugin.conf)
endif
VP_LIBS += $(VP_P4EST_LIB)
comma     := ,
VP_RPATH  := $(patsubst -L%,-Wl$(comma)-rpath$(comma)%,$(filter -L%,$(VP_LIBS)))

LIB       := lib/libpetscvpatch.so
SRC       := $(wildcard src/*.c src/dm/*.c src/mat/*.c src/pc/*/*.c)
OBJ       := $(patsubst src/%.c,build/%.o,$(SRC))
ifeq ($(VP_CUDA),yes)
  CU_SRC  := $(wildcard cuda/*.cu)
  OBJ     += $(patsubst cuda/%.cu,build/cuda/%.o,$(CU_SRC))
  VP_CCFLAGS += -DVP_HAVE_CUDA
  VP_LIBS += -L$(dir $(NVCC))../lib64 -lcudart -lcublas -lcusolver
endif
DEP       := $(OBJ:.o=.d)
TUTORIALS := $(patsubst %.c,%,$(wildcard tutorials/ex*.c))
TEST_PROGRAMS := $(patsubst %.c,%,$(wildcard tests/test_*.c))
PLAIN_TESTS := tests/plain_dll_append tests/plain_mg
BENCH     := $(patsubst %.c,%,$(wildcard bench/bench_*.c))

.PHONY: all test test64 run bench clean format help gpu-check
all: $(LIB) $(TUTORIALS)

build/%.o: src/%.c
	@mkdir -p $(dir $@)
	$(VP_CC) $(VP_CCFLAGS) -MMD -MP -c $< -o $@

build/cuda/%.o: cuda/%.cu $(wildcard cuda/*.h)
	@mkdir -p $(dir $@)
	$(NVCC) -O3 -std=c++17 -arch=sm_$(CUDA_ARCH) -Xcompiler -fPIC -lineinfo -Icuda -c $< -o $@

$(LIB): $(OBJ)
	@mkdir -p lib
	$(VP_CC) -shared $(VP_OPENMP) -o $@ $^ $(VP_RPATH) $(VP_LIBS)

# tutorials and tests link the plugin with an rpath, so they run from the checkout
tutorials/%: tutorials/%.c $(LIB)
	$(VP_CC) $(VP_CCFLAGS) -o $@ $< -Llib -Wl,-rpath,$(CURDIR)/lib -lpetscvpatch $(VP_RPATH) $(VP_LIBS)

tests/test_%: tests/test_%.c tests/checks.h $(LIB)
	$(VP_CC) $(VP_CCFLAGS) -Isrc -o $@ $< -Llib -Wl,-rpath,$(CURDIR)/lib -lpetscvpatch $(VP_RPATH) $(VP_LIBS)

bench/bench_%: bench/bench_%.c $(LIB)
	$(VP_CC) $(VP_CCFLAGS) -o $@ $< -Llib -Wl,-rpath,$(CURDIR)/lib -lpetscvpatch $(VP_RPATH) $(VP_LIBS)

bench: all $(BENCH)

# the GPU check (on a GPU machine, with a CUDA PETSc): tests/gpu_check.sh
tests/gpu_%: tests/gpu_%.c tests/checks.h $(LIB)
	$(VP_CC) $(VP_CCFLAGS) -Isrc -o $@ $< -Llib -Wl,-rpath,$(CURDIR)/lib -lpetscvpatch $(VP_RPATH) $(VP_LIBS)

gpu-check: all tests/gpu_operator tests/gpu_smoother tests/gpu_hfem tests/test_ranks tests/test_separable tests/plain_mg
	@if [ "$(VP_CUDA)" != yes ]; then echo "make gpu-check needs a CUDA PETSc (PETSC_DIR=/opt/petsc-cuda, or scripts/build-petsc-cuda.sh)"; exit 1; fi
	bash tests/gpu_check.sh

# linked against PETSc only: reaches the brick through -dll_append
tests/plain_%: tests/plain_%.c
	$(VP_CC) $(VP_CCFLAGS) -o $@ $< $(VP_RPATH) $(VP_LIBS)

# against PETSc with 64-bit indices (Debian's petsc64-dev), in build64/: a subset of the tests (scripts/test-64bit.sh)
test64:
	@bash scripts/test-64bit.sh $(if $(TESTS64),"$(TESTS64)")

# make test TESTS=pattern: only the sections of tests/run.sh whose name or title matches (an extended regular expression)
test: all $(TEST_PROGRAMS) $(PLAIN_TESTS)
	@MPIEXEC="$(VP_MPIEXEC)" TESTS="$(TESTS)" bash tests/run.sh

# the main job: 3D Poisson, Q3, FGMRES + multigrid with vertex-patch smoothing (ex1's default solver)
run: all
	./tutorials/ex1 -dm_brick_dim 3 -dm_brick_cells 2,2,2 -dm_brick_degree 3 -dm_brick_refine 3 -ksp_monitor

format:
	clang-format -i $(SRC) $(wildcard src/*/*.h src/*.h include/*.h cuda/*.h tutorials/*.c tests/*.c tests/*.h)

clean:
	rm -rf build build64 lib $(TUTORIALS) $(TEST_PROGRAMS) $(PLAIN_TESTS) $(BENCH) tests/out tests/out-gpu tests/gpu_operator tests/gpu_smoother tests/gpu_hfem

help:
	@echo "make [PETSC_DIR=... PETSC_ARCH=...]  build $(LIB) and the tutorials"
	@echo "make test                            run the test suite (ends with 'N passed, N failed')"
	@echo "make run                             3D Poisson solve with tutorials/ex1"
	@echo "make bench                           build the benchmark drivers in bench/ (scripts there run them)"
	@echo "make gpu-check                       with a CUDA PETSc, on a GPU: kernels vs CPU, solves, compute-sanitizer"
	@echo "make NATIVE=yes                      code for this machine's instruction set (-march=native; make clean when switching)"

-include $(DEP)
