#!/usr/bin/python3
"""Reads a .vtu that tests/test_vtk writes with VTK's own XML reader (Debian's python3-vtk9) and checks it:

- the number of cells, all of them VTK Lagrange quadrilaterals (2D) / hexahedra (3D) of the brick's degree;
- the point values of p and q equal the polynomials of tests/test_vtk.c at the points (relative 1e-12);
- VTK's own interpolation in the cells (the cell's InterpolateFunctions at random parametric points) equals the Q_k
  polynomial p (1e-11): so the Lagrange points are in VTK's order and at VTK's parametric places;
- the cell data rank takes the values 0..ranks-1, and a forest's tree data the kept trees;
- with --removed: probe points in the removed coarse cells are outside the grid.

Usage: check_vtk.py FILE --dim D --k K --cells N --ranks R [--dg] [--half] [--removed i,j[,l];...] [--coarse n0,n1[,n2]]
Prints "ok ..." / "not ok ..." lines and exits 1 on a failure.
"""
import argparse
import random
import sys

import vtk
from vtk.util import numpy_support as ns

ap = argparse.ArgumentParser()
ap.add_argument("file")
ap.add_argument("--dim", type=int, required=True)
ap.add_argument("--k", type=int, required=True)
ap.add_argument("--cells", type=int, required=True)
ap.add_argument("--ranks", type=int, default=1)
ap.add_argument("--dg", action="store_true")
ap.add_argument("--half", action="store_true")
ap.add_argument("--removed", default="")
ap.add_argument("--coarse", default="2,2,2")
ap.add_argument("--probes", type=int, default=400)
a = ap.parse_args()
failures = 0


def check(what, ok, detail=""):
    global failures
    print(("ok " if ok else "not ok ") + what + (": " + detail if detail else ""))
    failures += not ok


def factor(d, t):
    """tests/test_vtk.c's Factor()"""
    deg, v = a.k, 1.0
    if not a.dg:
        v = t * (1.0 - t)
        deg -= 2
        if a.half:
            v *= t - 0.5
            deg -= 1
    s, tj = 0.0, 1.0
    for j in range(deg + 1):
        s += tj * (1.0 if j == 0 else (d + 1) / (2 * j + 1))
        tj *= t
    return v * s


def poly(x):
    v = 1.0
    for d in range(a.dim):
        v *= factor(d, x[d])
    return v


def on_boundary(x):
    """on the box's faces, or (--half) on a plane x_d = 1/2 (where removed coarse cells of a 2 x 2 (x 2) grid have faces)"""
    return any(abs(x[d]) < 1e-12 or abs(x[d] - 1) < 1e-12 or (a.half and abs(x[d] - 0.5) < 1e-12) for d in range(min(a.dim, len(x))))


def linear(x):
    return 1.0 + x[0] + 2.0 * x[1] + (3.0 * x[2] if a.dim == 3 else 0.0)


r = vtk.vtkXMLUnstructuredGridReader()
r.SetFileName(a.file)
r.Update()
g = r.GetOutput()
nc, npts = g.GetNumberOfCells(), g.GetNumberOfPoints()
check("cells", nc == a.cells, f"{nc} read, {a.cells} expected")
want = 72 if a.dim == 3 else 70
nv = (a.k + 1) ** a.dim
types = {g.GetCellType(c) for c in range(nc)}
sizes = {g.GetCell(c).GetNumberOfPoints() for c in range(min(nc, 50))}
check("cell types", types == {want} and sizes == {nv}, f"types {sorted(types)}, points a cell {sorted(sizes)}")
pts = ns.vtk_to_numpy(g.GetPoints().GetData())
for name, f in (("p", poly), ("q", linear)):
    arr = g.GetPointData().GetArray(name)
    if arr is None:
        check(f"field {name}", False, "missing")
        continue
    v = ns.vtk_to_numpy(arr)
    # q does not vanish on the boundary: CG holds zero at its Dirichlet nodes, so its q is checked in the cells that touch
    # no boundary
    if name == "p" or a.dg:
        use = list(range(npts))
    else:
        use = set()
        for c in range(nc):
            cell = g.GetCell(c)
            b = cell.GetBounds()
            if not any(on_boundary([b[2 * d + s] if e == d else 0.3 for e in range(3)]) for d in range(a.dim) for s in (0, 1)):
                use.update(cell.GetPointIds().GetId(i) for i in range(cell.GetNumberOfPoints()))
        use = sorted(use)
    ref = [f(pts[i]) for i in use]
    scale = max([1e-300] + [abs(x) for x in ref])
    err = max([0.0] + [abs(v[i] - r) for i, r in zip(use, ref)]) / scale
    if not use:  # no cell away from the boundary (a coarse CG grid): nothing to compare
        print(f"skip point values of {name}: no cell off the boundary")
        continue
    check(f"point values of {name} = the function at the points", len(use) > 0 and err < 1e-12, f"{len(use)} of {npts} points, relative {err:.2e}")
rank = ns.vtk_to_numpy(g.GetCellData().GetArray("rank"))
check("rank cell data", sorted(set(int(x) for x in rank)) == list(range(a.ranks)), f"values {sorted(set(int(x) for x in rank))[:8]}")
if g.GetCellData().GetArray("tree") is not None:
    tree = sorted(set(int(x) for x in ns.vtk_to_numpy(g.GetCellData().GetArray("tree"))))
    coarse = [int(x) for x in a.coarse.split(",")][: a.dim]
    nkept = 1
    for n in coarse:
        nkept *= n
    nkept -= len([s for s in a.removed.split(";") if s])
    check("tree cell data", tree == list(range(nkept)), f"{len(tree)} trees")

# VTK's interpolation inside the cells: random points in random cells, at parametric coordinates from the cell's bounds
# (the cells are axis-aligned boxes), the field summed with the cell's own interpolation weights
random.seed(7)
pv = ns.vtk_to_numpy(g.GetPointData().GetArray("p"))
worst, scale = 0.0, 1e-300
for _ in range(a.probes):
    c = random.randrange(nc)
    cell = g.GetCell(c)
    b = cell.GetBounds()
    xi = [0.05 + 0.9 * random.random() for d in range(3)]
    if a.dim == 2:
        xi[2] = 0.0
    x = [b[2 * d] + xi[d] * (b[2 * d + 1] - b[2 * d]) if d < a.dim else 0.0 for d in range(3)]
    w = [0.0] * cell.GetNumberOfPoints()
    cell.InterpolateFunctions(xi, w)
    ids = cell.GetPointIds()
    v = sum(w[i] * pv[ids.GetId(i)] for i in range(len(w)))
    ref = poly(x)
    worst = max(worst, abs(v - ref))
    scale = max(scale, abs(ref))
check("VTK's interpolation in the cells = the Q_k polynomial", worst / scale < 1e-11, f"{a.probes} points, relative {worst / scale:.2e}")

if a.removed:
    coarse = [int(x) for x in a.coarse.split(",")][: a.dim]
    gone = vtk.vtkPoints()
    for s in a.removed.split(";"):
        ijk = [int(x) for x in s.split(",")]
        x = [(ijk[d] + 0.5) / coarse[d] if d < a.dim else 0.0 for d in range(3)]
        gone.InsertNextPoint(x)
    pd2 = vtk.vtkPolyData()
    pd2.SetPoints(gone)
    pf2 = vtk.vtkProbeFilter()
    pf2.SetInputData(pd2)
    pf2.SetSourceData(g)
    pf2.Update()
    m2 = ns.vtk_to_numpy(pf2.GetOutput().GetPointData().GetArray(pf2.GetValidPointMaskArrayName()))
    check("the removed cells' centres are outside the grid", not any(m2), f"{int(sum(m2))} of {len(m2)} found")

sys.exit(1 if failures else 0)
