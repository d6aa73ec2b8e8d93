#!/usr/bin/env bash
# Installs what petsc-vpatch needs on a fresh Debian machine (12 or newer): a C compiler, make, Debian's
# PETSc (petsc-dev, 3.18 on Debian 12, with Open MPI, hypre and MUMPS), the MPI launcher, pkg-config and
# valgrind (used by the tests). Run as root, or as a user who may sudo. Skips what is already there.
set -euo pipefail
need=()
for pkg in build-essential make pkg-config petsc-dev openmpi-bin libopenmpi-dev valgrind; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || need+=("$pkg")
done
if [ ${#need[@]} -eq 0 ]; then
  echo "setup-debian: everything is installed"
  exit 0
fi
SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo
echo "setup-debian: installing ${need[*]}"
$SUDO apt-get update -q
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${need[@]}"
