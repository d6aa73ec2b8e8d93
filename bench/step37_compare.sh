#!/usr/bin/env bash
# Our CPU backend beside deal.II's step-37 (the matrix-free code the seeds were written in) on the same problem, in one
# run: 3D Poisson -Delta u = 1 on the unit cube, homogeneous Dirichlet, Q_k on 32^3 cells, constant coefficient, CG to
# ||r|| <= 1e-9 ||b||. deal.II: Debian's libdeal.ii-dev (9.4) step-37 (GMG, Chebyshev(5)/Jacobi in float on the levels,
# mixed-precision V-cycle), patched to the degree, a constant coefficient, one 32^3 mesh, the tolerance, and no output
# files. Ours: tutorials/ex1 -fmg 0 -rhs one with the vertex-patch V-cycle (default) and with Chebyshev/Jacobi, CG.
# 1 and 2 MPI ranks, and ours also with THREADS OpenMP threads per rank (-dm_brick_threads, -pc_vertexpatch_threads).
# BUILDS: "portable" (this checkout's build, the default) and/or "native" (a NATIVE=yes copy of the checkout built under
# $OUT/native: -march=native, AVX2 vectors on an AVX2 machine); deal.II is Debian's build in both.
# REPEAT: runs of each row (default 1); with more, each row is the run with the median solve time, followed by the solve
# times of all runs (this VM's timings vary by up to 1.5x from run to run: the medians are what the efficiency figures use).
# Usage: [DEGREES="2 3 4 5 6"] [RANKS="1 2"] [THREADS="1 2"] [BUILDS="portable native"] [REPEAT=3] bash bench/step37_compare.sh > table.md
# Needs: apt-get install libdeal.ii-dev libdeal.ii-doc cmake (the script installs them on Debian when missing, as root).
set -uo pipefail
cd "$(dirname "$0")/.."
DEGREES=${DEGREES:-"2 3 4 5 6"}
RANKS=${RANKS:-"1 2"}
THREADS=${THREADS:-"1"}
BUILDS=${BUILDS:-"portable"}
REPEAT=${REPEAT:-1}
[[ $REPEAT =~ ^[1-9][0-9]*$ ]] || { echo "REPEAT=$REPEAT: allowed a positive integer (runs of each row)" >&2; exit 1; }
OUT=${OUT_DIR:-bench/out-step37}
SRC=/usr/share/doc/libdeal.ii-doc/examples/step-37
[ "$(id -u)" = 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
if [ ! -f $SRC/step-37.cc ] || ! command -v cmake >/dev/null; then
  if [ "$(id -u)" = 0 ]; then DEBIAN_FRONTEND=noninteractive apt-get install -y -q libdeal.ii-dev libdeal.ii-doc cmake >&2; else echo "install libdeal.ii-dev libdeal.ii-doc cmake" >&2; exit 1; fi
fi
mkdir -p "$OUT"
build() { # k: step-37 for degree k (with a second solve), Release, in $OUT/step37s-k$k
  local k=$1 d="$OUT/step37s-k$1"
  [ -x "$d/step-37" ] && return 0
  mkdir -p "$d" && cp $SRC/step-37.cc $SRC/CMakeLists.txt "$d/"
  sed -i -e "s/const unsigned int degree_finite_element = 2;/const unsigned int degree_finite_element = $k;/" \
    -e 's|return 1. / (0.05 + 2. \* p.square());|(void)p; return number(1.); /* constant coefficient */|' \
    -e 's/SolverControl solver_control(100, 1e-12 \* system_rhs.l2_norm());/SolverControl solver_control(100, 1e-9 * system_rhs.l2_norm());/' \
    -e 's/for (unsigned int cycle = 0; cycle < 9 - dim; ++cycle)/for (unsigned int cycle = 0; cycle < 1; ++cycle)/' \
    -e 's/triangulation.refine_global(3 - dim);/triangulation.refine_global(4); \/\* then 1 more: 32^3 cells \*\//' \
    -e 's/        output_results(cycle);/        \/\* no output files \*\//' \
    -e '/Time solve (/,/wall_time() << "s\\n";/{/wall_time() << "s\\n";/a\
    { /* a second solve in the same process, from zero, for the warm time */\
      Timer time2;\
      solution = 0.;\
      cg.solve(system_matrix, solution, system_rhs, preconditioner);\
      constraints.distribute(solution);\
      pcout << "Time second solve (" << solver_control.last_step() << " iterations) (wall) " << time2.wall_time() << "s\\n";\
    }
    }' "$d/step-37.cc"
  grep -q "degree_finite_element = $k;" "$d/step-37.cc" && grep -q "return number(1.)" "$d/step-37.cc" && grep -q "1e-9 \* system_rhs" "$d/step-37.cc" && grep -q "Time second solve" "$d/step-37.cc" || { echo "patching step-37 failed" >&2; return 1; }
  (cd "$d" && cmake -DCMAKE_BUILD_TYPE=Release . >cmake.log 2>&1 && make -j"$(nproc)" >make.log 2>&1)
}
run() { # n command...: wall-clock of the whole command too
  local n=$1; shift
  if [ "$n" = 1 ]; then "$@"; else mpirun -n "$n" "$@"; fi
}
exe() { # build: our ex1 of that build
  if [ "$1" = native ]; then echo "$OUT/native/tutorials/ex1"; else echo ./tutorials/ex1; fi
}
if [[ " $BUILDS " == *" native "* ]]; then
  mkdir -p "$OUT/native"
  git ls-files -co --exclude-standard | grep -v '^\.gpu/' | tar -cf - -T - | tar -xf - -C "$OUT/native/"
  make -C "$OUT/native" -j"$(nproc)" NATIVE=yes lib/libpetscvpatch.so tutorials/ex1 >"$OUT/native-build.log" 2>&1 || { echo "NATIVE=yes build failed ($OUT/native-build.log)" >&2; exit 1; }
fi
echo "# Our CPU backend beside deal.II step-37: 3D Poisson, Q_k on 32^3 cells, f = 1, CG to 1e-9"
echo
echo "- date: $(date -u +%F), machine: $(nproc) cores ($(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)), PETSc $(pkg-config --modversion PETSc 2>/dev/null), deal.II $(dpkg-query -W -f='${Version}' libdeal.ii-dev 2>/dev/null), commit $(git rev-parse --short HEAD 2>/dev/null)"
echo "- command: \`DEGREES=\"$DEGREES\" RANKS=\"$RANKS\" THREADS=\"$THREADS\" BUILDS=\"$BUILDS\" REPEAT=$REPEAT bash bench/step37_compare.sh\`; logs in $OUT"
echo "- each row: $REPEAT run(s); the row is the run with the median solve time, the last column lists every run's solve time"
echo "- ours: \`./tutorials/ex1 -dm_brick_dim 3 -dm_brick_cells 2,2,2 -dm_brick_refine 4 -dm_brick_degree k -rhs one -fmg 0 -ksp_rtol 1e-9 [-smoother chebyshev]\`; deal.II: step-37 patched (see the script)"
echo "- DoFs: deal.II counts the boundary nodes ((32k+1)^3), ours only the interior ((32k-1)^3); MDoF/s = our DoFs / solve time for both"
echo
echo "- both also solve a second time in the same process, from zero (ours: \`-solves 2\`; step-37: a second cg.solve() after the first): the first solve pays for what the Krylov method allocates in it (PETSc's FGMRES: its Krylov vectors past the fifth; deal.II: CG's vectors from its vector pool) and for the first touch of that memory"
echo
echo "| k | ranks | threads per rank | build | solver | DoFs | iterations | setup s | solve s | MDoF/s (solve) | second solve s | solve s, each run |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
# repeat LOG_PREFIX AWK_ROW_PROGRAM command...: runs the command REPEAT times (logs LOG_PREFIX_r1.log ...), then prints the
# row of the run whose solve time is the median (the program's line, with the runs' solve times appended); the program
# prints "row<TAB>solve seconds"
repeat() {
  local prefix=$1 prog=$2; shift 2
  local r rows=""
  for r in $(seq "$REPEAT"); do
    "$@" >"${prefix}_r$r.log" 2>&1
    rows+="$(awk "$prog" "${prefix}_r$r.log")"$'\n'
  done
  printf '%s' "$rows" | awk -F'\t' 'NF == 2 {row[NR] = $1; t[NR] = $2 + 0; all = all (all == "" ? "" : ", ") $2; n++}
    END {if (!n) exit; for (i = 1; i <= n; i++) {below = 0; for (j = 1; j <= n; j++) if (t[j] < t[i] || (t[j] == t[i] && j < i)) below++; if (below == int((n - 1) / 2)) m = i}
         print row[m] " " all " |"}'
}
for k in $DEGREES; do
  build $k || { echo "| $k | | | | deal.II step-37 | build failed ($OUT/step37s-k$k) | | | | |"; continue; }
  nours=$(( (32 * k - 1) ** 3 ))
  for n in $RANKS; do
    repeat "$OUT/step37_k${k}_n$n" '/Vectorization over/{vec = $3 " double(s)"} /Number of degrees of freedom/{d = $NF} /Total setup time/{s = $NF; sub("s", "", s)} /Time solve/{it = $3; sub(/\(/, "", it); t = $NF; sub(/.*\//, "", t); sub("s", "", t)} /Time second solve/{t2 = $NF; sub("s", "", t2)}
      END {printf "| '$k' | '$n' | 1 | Debian | deal.II step-37 (GMG, Chebyshev(5)/Jacobi, float levels; vectorization over %s) | %s | %s | %s | %s | %.2f | %s |\t%s\n", vec, d, it, s, t, (t > 0 ? '$nours' / t / 1e6 : 0), t2, t}' \
      bash -c "cd '$OUT/step37s-k$k' && $( [ "$n" = 1 ] && echo "./step-37" || echo "mpirun -n $n ./step-37")"
    for b in $BUILDS; do
    for t in $THREADS; do
      for sm in vertexpatch chebyshev; do
        opt=""; [ $sm = chebyshev ] && opt="-smoother chebyshev"
        name=$([ $sm = vertexpatch ] && echo "vertex-patch V-cycle (FGMRES)" || echo "Chebyshev/Jacobi V-cycle (CG)")
        OMP_NUM_THREADS=$t repeat "$OUT/ours_${b}_${sm}_k${k}_n${n}_t$t" '/^  DoFs:/{d = $2} /iterations [0-9]/{for (i = 1; i < NF; i++) if ($i == "iterations") it = $(i + 1)} /^solve time/{t = $3; s = $9} /^later solves/{t2 = $NF}
          END {printf "| '$k' | '$n' | '$t' | '$b' | ours, '"$name"' | %s | %s | %s | %s | %.2f | %s |\t%s\n", d, it, s, t, (t > 0 ? d / t / 1e6 : 0), t2, t}' \
          run $n "$(exe $b)" -dm_brick_dim 3 -dm_brick_cells 2,2,2 -dm_brick_refine 4 -dm_brick_degree $k -rhs one -fmg 0 -ksp_rtol 1e-9 -dm_brick_threads $t -mg_levels_pc_vertexpatch_threads $t $opt -solves 2
      done
    done
    done
  done
done
