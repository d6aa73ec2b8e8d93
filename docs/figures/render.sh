#!/usr/bin/env bash
# The pictures in docs/figures/: a 3D solution (ex5's Poisson problem, f = 1, on a Fichera corner, Q3, refined three
# times, 4 MPI ranks) written by PETSc's own option (-ksp_view_solution vtk:...) and rendered headless by Debian's
# ParaView (pvbatch, render_vtk.py) on a virtual X server (Debian's paraview renders through X: xvfb, xauth,
# libgl1-mesa-dri). Usage, from the top of the checkout after make: docs/figures/render.sh [OUTDIR (default docs/figures)]
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-docs/figures}
if [ "$(id -u)" = 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
tmp=$(mktemp -d)
mpiexec -n 4 --oversubscribe ./tutorials/ex5 -domain fichera -dm_brick_degree 3 -dm_brick_refine 3 -ksp_view_solution vtk:"$tmp/fichera.vtu" >"$tmp/ex5.log"
tail -3 "$tmp/ex5.log"
Xvfb :87 -screen 0 1280x1024x24 >/dev/null 2>&1 &
xpid=$!
sleep 3 # the X server up before ParaView connects
DISPLAY=:87 pvbatch docs/figures/render_vtk.py "$tmp/fichera.vtu" "$out/fichera_q3" || { kill "$xpid"; exit 1; }
kill "$xpid"
rm -rf "$tmp"
ls -la "$out"/fichera_q3_*.png
