#!/usr/bin/env bash
# Mutation check of the test suite (not part of make test: it rebuilds and reruns parts of the suite once per mutant).
#
#   tests/mutation.sh [LIST] [FIRST [LAST]]      (LIST default tests/mutants.txt; FIRST..LAST: mutant numbers, 1-based)
#
# LIST holds one mutant per line, tab-separated: the file, the exact text before (it must occur exactly once in that
# file), the text after, the tests/run.sh sections that should catch it (names separated by |), and a note; lines that
# start with # are comments. Each mutant is applied to a fresh copy of a built tree (so only the mutated file
# recompiles), built, and the named sections are run there; a failing section kills it. A mutant that does not build is
# "stillborn" and left out of the score. Prints one line per mutant and then "killed K of N (P %), S survived". With
# GPU=1 the copy builds against PETSC_DIR (a CUDA PETSc) and the sections are tests/gpu_check.sh's (GPU_CHECK_SECTIONS).
set -u
cd "$(dirname "$0")/.."
list=${1:-tests/mutants.txt}
first=${2:-1}
last=${3:-100000}
gpu=${GPU:-0}
[ -f "$list" ] || { echo "no mutant list $list"; exit 2; }
work=$(mktemp -d)
base=$work/base
mkdir -p "$base"
# with this tree's build outputs (timestamps kept), so that the base builds only what is out of date
cp -a include src tutorials tests cuda makefile petsc-plugin.conf "$base"/
for d in build lib; do [ -d "$d" ] && cp -a "$d" "$base"/; done
rm -rf "$base/tests/out" "$base/tests/out-gpu"
if [ "$gpu" = 1 ]; then
  progs="all tests/gpu_operator tests/gpu_smoother tests/gpu_hfem tests/test_ranks tests/test_separable tests/plain_mg"
  makeopts="PETSC_DIR=${PETSC_DIR:?GPU=1 needs PETSC_DIR, a CUDA PETSc} PETSC_ARCH="
else
  progs="all $(ls tests/test_*.c tests/plain_*.c | sed 's/\.c$//' | tr '\n' ' ')"
  makeopts="CUDA=off"
fi
jobs=${JOBS:-$(nproc)}
echo "mutation check of $(git rev-parse --short HEAD 2>/dev/null || echo "this tree") with $list, mutants $first..$last; building the base copy"
# shellcheck disable=SC2086
make -C "$base" -j"$jobs" $makeopts $progs >"$work/base-build.log" 2>&1 || { echo "the unmutated tree does not build: $work/base-build.log"; exit 2; }
n=0 killed=0 survived=0 stillborn=0
while IFS=$'\t' read -r -u 3 path before after sections note; do
  [ -z "$path" ] && continue
  case $path in \#*) continue ;; esac
  n=$((n + 1))
  [ $n -lt "$first" ] || [ $n -gt "$last" ] && continue
  m=$work/m$n
  rm -rf "$m"
  cp -a "$base" "$m"
  # the exact text, once: python does the replacement (no quoting of regular-expression characters)
  if ! python3 - "$m/$path" "$before" "$after" <<'EOF'; then
import sys
path, before, after = sys.argv[1], sys.argv[2], sys.argv[3]
text = open(path).read()
if text.count(before) != 1:
    print(f"{path}: the text before occurs {text.count(before)} times", file=sys.stderr)
    sys.exit(1)
open(path, "w").write(text.replace(before, after))
EOF
    echo "INVALID  #$n $path: the text before is not in the file exactly once"
    rm -rf "$m"
    continue
  fi
  start=$(date +%s)
  # shellcheck disable=SC2086
  if ! make -C "$m" -j"$jobs" $makeopts $progs >"$m/build.log" 2>&1; then
    stillborn=$((stillborn + 1))
    echo "STILLBORN #$n $path: '$before' -> '$after' (does not build)"
    rm -rf "$m"
    continue
  fi
  # the mutant's library first (an LD_LIBRARY_PATH to another build would win over the programs' run path)
  if [ "$gpu" = 1 ]; then
    (cd "$m" && export LD_LIBRARY_PATH="$m/lib:${LD_LIBRARY_PATH:-}" && GPU_CHECK_SECTIONS="${sections//|/ }" OUT_DIR=tests/out-gpu timeout 1200 bash tests/gpu_check.sh) >"$m/run.log" 2>&1 </dev/null
  else
    (cd "$m" && export LD_LIBRARY_PATH="$m/lib:${LD_LIBRARY_PATH:-}" && timeout 1200 bash tests/run.sh "^($sections) ") >"$m/run.log" 2>&1 </dev/null
  fi
  rc=$?
  summary=$(tail -1 "$m/run.log")
  if [ $rc != 0 ]; then
    killed=$((killed + 1))
    echo "killed   #$n $path: '$before' -> '$after' [$sections: $summary; $(grep -m3 '^FAIL' "$m/run.log" | awk '{print $2}' | tr '\n' ' ')] $(($(date +%s) - start)) s"
  else
    survived=$((survived + 1))
    echo "SURVIVED #$n $path: '$before' -> '$after' [$sections: $summary] ${note:+($note)} $(($(date +%s) - start)) s"
  fi
  rm -rf "$m"
done 3<"$list"
total=$((killed + survived))
echo "killed $killed of $total ($(awk -v k=$killed -v t=$total 'BEGIN { printf "%.1f", t ? 100 * k / t : 0 }') %), $survived survived, $stillborn stillborn"
rm -rf "$work"
