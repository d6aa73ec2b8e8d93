#!/usr/bin/python3
"""tutorials/ex1.c in Python (petsc4py): Poisson -Delta u = f on a brick, KSP + PCMG built from the brick alone.

Run from the top of the checkout, after `make`:

    /usr/bin/python3 tutorials/ex1.py [options]
    mpiexec -n 3 /usr/bin/python3 tutorials/ex1.py -dm_brick_dim 3

It takes ex1's options and defaults (-smoother vertexpatch|chebyshev, -rhs sine|one, -fmg, -dm_brick_*, -ksp_*, -pc_*,
-mg_*) and prints the same lines: the iterations, the true residual |b - A x|/|b| and the L2 error. petsc4py reaches
the plugin through PETSc's -dll_append (added here when not given): the brick, its operators and the vertex-patch
smoother are then ordinary PETSc types. The load vector and the L2 error, which petsc4py has no binding for, are the
plugin's C functions DMBrickComputeLoadVectorSeparable / DMBrickComputeL2ErrorSeparable called through ctypes with
the petsc4py objects' handles.

Needs Debian's python3-petsc4py (for PETSc 3.18: apt-get install python3-petsc4py python3-petsc4py-real) and the
system Python, /usr/bin/python3, which that package serves.
"""
import ctypes
import math
import os
import sys

import petsc4py

here = os.path.dirname(os.path.abspath(__file__))
library = os.path.join(here, "..", "lib", "libpetscvpatch.so")
args = list(sys.argv)
if "-dll_append" not in args:
    args += ["-dll_append", library]
petsc4py.init(args)
from petsc4py import PETSc  # noqa: E402 (after init, which reads the options)

opts = PETSc.Options()


def set_default(name, value):
    """The tutorial's configuration: set only what the user did not set on the command line."""
    if not opts.hasName(name):
        opts.setValue(name, value)


smoother = opts.getString("smoother", "vertexpatch")
if smoother not in ("vertexpatch", "chebyshev"):
    raise SystemExit(f"-smoother {smoother}: allowed vertexpatch, chebyshev")
rhs = opts.getString("rhs", "sine")
if rhs not in ("sine", "one"):
    raise SystemExit(f"-rhs {rhs}: allowed sine, one")
fmg = opts.getBool("fmg", smoother == "vertexpatch")
dim = opts.getInt("dm_brick_dim", 2)
set_default("dm_brick_cells", "4,4,4" if dim == 3 else "4,4")
set_default("dm_brick_degree", "3")
set_default("dm_brick_refine", "2" if dim == 3 else "4")
set_default("ksp_rtol", "1e-9")
set_default("pc_type", "mg")
if smoother == "vertexpatch":
    set_default("ksp_type", "fgmres")
    set_default("mg_levels_ksp_type", "richardson")
    set_default("mg_levels_ksp_max_it", "1")
    set_default("mg_levels_pc_type", "vertexpatch")
else:
    set_default("ksp_type", "cg")
    set_default("ksp_norm_type", "unpreconditioned")
    set_default("mg_levels_ksp_type", "chebyshev")
    set_default("mg_levels_pc_type", "jacobi")

# the plugin's C interface, for the functions petsc4py has no binding for
vp = ctypes.CDLL(library)
Int = ctypes.c_int64 if PETSc.IntType().itemsize == 8 else ctypes.c_int32
Real = ctypes.c_double
# PetscErrorCode (*)(PetscInt term, PetscInt direction, PetscReal x, PetscScalar *value, void *ctx)
Separable = ctypes.CFUNCTYPE(ctypes.c_int, Int, Int, Real, ctypes.POINTER(Real), ctypes.c_void_p)
vp.DMBrickComputeLoadVectorSeparable.argtypes = [ctypes.c_void_p, Int, Separable, ctypes.c_void_p, ctypes.c_void_p]
vp.DMBrickComputeL2ErrorSeparable.argtypes = [ctypes.c_void_p, ctypes.c_void_p, Int, Separable, ctypes.c_void_p, ctypes.POINTER(Real)]
vp.DMBrickGetDomain.argtypes = [ctypes.c_void_p, ctypes.POINTER(Real), ctypes.POINTER(Real)]
for f in (vp.DMBrickComputeLoadVectorSeparable, vp.DMBrickComputeL2ErrorSeparable, vp.DMBrickGetDomain):
    f.restype = ctypes.c_int


def check(err, what):
    if err:
        raise SystemExit(f"{what} failed with PETSc error {err}")


dm = PETSc.DM().create(comm=PETSc.COMM_WORLD)
dm.setType("brick")
dm.setFromOptions()
dm.setUp()
dm.view()
lower, upper = (Real * 3)(), (Real * 3)()
check(vp.DMBrickGetDomain(dm.handle, lower, upper), "DMBrickGetDomain")
dim = dm.getDimension()
L = [upper[d] - lower[d] for d in range(dim)]


# u = prod_d sin(pi (x_d - a_d) / L_d), f = -Delta u = (sum_d (pi / L_d)^2) u: one term of 1D factors each
def exact_factor(term, d, x, value, ctx):
    value[0] = math.sin(math.pi * (x - lower[d]) / L[d])
    return 0


def rhs_factor(term, d, x, value, ctx):
    value[0] = math.sin(math.pi * (x - lower[d]) / L[d])
    if d == 0:
        value[0] *= sum((math.pi / L[e]) ** 2 for e in range(dim))
    return 0


def one_factor(term, d, x, value, ctx):
    value[0] = 1.0
    return 0


exact_c, rhs_c = Separable(exact_factor), Separable(one_factor if rhs == "one" else rhs_factor)

u = dm.createGlobalVector()
b = u.duplicate()
check(vp.DMBrickComputeLoadVectorSeparable(dm.handle, 1, rhs_c, None, b.handle), "DMBrickComputeLoadVectorSeparable")

ksp = PETSc.KSP().create(comm=PETSc.COMM_WORLD)
ksp.setDM(dm)
ksp.setFromOptions()
ksp.setUp()
t0 = PETSc.Log.getTime()
if fmg:
    # one full multigrid cycle gives the start; the V-cycles after it are counted (ex1.c's -fmg)
    pc = ksp.getPC()
    if pc.getType() != PETSc.PC.Type.MG:
        raise SystemExit(f"-fmg (on by default with -smoother vertexpatch) needs -pc_type mg; with -pc_type {pc.getType()} add -fmg 0")
    pc.setMGType(PETSc.PC.MGType.FULL)
    pc.apply(b, u)
    pc.setMGType(PETSc.PC.MGType.MULTIPLICATIVE)
    ksp.setInitialGuessNonzero(True)
ksp.solve(b, u)
t1 = PETSc.Log.getTime()

A, _ = ksp.getOperators()
r = b.duplicate()
A.mult(u, r)
r.aypx(-1.0, b)
reason = ksp.getConvergedReason()
names = {v: k for k, v in vars(PETSc.KSP.ConvergedReason).items() if isinstance(v, int)}
PETSc.Sys.Print(f"Linear solve {'converged' if reason > 0 else 'did not converge'} due to {names.get(reason, reason)} iterations {ksp.getIterationNumber()}"
                + (" (V-cycles after one full multigrid cycle)" if fmg else ""))
PETSc.Sys.Print(f"true residual |b - A x|/|b| {r.norm() / b.norm():.3e}")
if rhs != "one":
    error = Real()
    check(vp.DMBrickComputeL2ErrorSeparable(dm.handle, u.handle, 1, exact_c, None, ctypes.byref(error)), "DMBrickComputeL2ErrorSeparable")
    PETSc.Sys.Print(f"L2 error {error.value:.6e}")
PETSc.Sys.Print(f"solve time {t1 - t0:.4f} s (setup excluded)")
sys.exit(0 if reason > 0 else 1)
