#!/usr/bin/env bash
# Installs what petsc-vpatch needs on a fresh Debian machine (12 or newer): a C compiler, make, Debian's
# PETSc (petsc-dev, 3.18 on Debian 12, with Open MPI, hypre and MUMPS), the MPI launcher, pkg-config,
# valgrind (used by the tests), p4est and libsc (libp4est-dev: forest domains), petsc4py for the system Python
# (tutorials/ex1.py), VTK's Python module (python3-vtk9: the tests read the VTK files back with VTK's own reader) and
# PETSc with 64-bit indices (petsc64-dev: the tests build the plugin against it too, scripts/test-64bit.sh).
# Run as root, or as a user who may sudo; without either it names the packages for an administrator and stops. Skips
# what is there.
set -euo pipefail
need=()
for pkg in build-essential make pkg-config petsc-dev openmpi-bin libopenmpi-dev valgrind libp4est-dev python3-petsc4py python3-petsc4py-real python3-vtk9 petsc64-dev; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || need+=("$pkg")
done
if [ ${#need[@]} -eq 0 ]; then
  echo "setup-debian: everything is installed"
  exit 0
fi
SUDO=""
if [ "$(id -u)" != 0 ]; then
  if ! command -v sudo >/dev/null 2>&1; then
    echo "setup-debian: not root and no sudo here, so nothing can be installed. Ask an administrator to run:" >&2
    echo "  apt-get install ${need[*]}" >&2
    echo "or build PETSc in your home directory and point PETSC_DIR in petsc-plugin.conf at it (the plugin itself needs no root;" >&2
    echo "see \"Without root\" in README.md)." >&2
    exit 1
  fi
  SUDO=sudo
fi
echo "setup-debian: installing ${need[*]}"
$SUDO apt-get update -q
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${need[@]}"
