#!/bin/sh
# Instructions per body per step on the pile (or the crowd: PILE_SCENE=crowd), counted by valgrind's callgrind: the same count
# for the same binary whatever else the machine is doing, unlike the timings. Each engine runs
# twice, with 240 and with 40 measured steps (PILE_STEPS), and the difference is divided by
# 200 steps and N bodies, so building the scene does not count. Runs on one core, so every
# engine takes its single-threaded path (task-pool overhead is not in the count).
#
#   bench/instructions.sh [N] [engine ...]     # default: 4000, ours avian2d rapier floor dense
#   PILE_SCENE=crowd bench/instructions.sh 4000 ours ours-no-skip
#
# CORE picks the core (default 0), so a second count can run beside the first.
# Needs valgrind (callgrind_annotate comes with it). Slow: about 50 times the run's own time
# (at 4000 bodies, about 10 minutes for all five).
set -eu
n=${1:-4000}
[ $# -gt 0 ] && shift
engines=${*:-ours avian2d rapier floor dense}
cd "$(dirname "$0")/.."
cargo build --release -p pile-bench
out=$(mktemp -d)
# A copy, so that a rebuild while this runs cannot mix two binaries in one difference.
bin=$out/pile-bench
cp "${CARGO_TARGET_DIR:-target}/release/pile-bench" "$bin"
count() { # engine steps -> total instructions of the run
    PILE_STEPS=$2 taskset -c ${CORE:-0} valgrind --tool=callgrind \
        --callgrind-out-file="$out/$1-$2.out" "$bin" one "$1" "$n" >"$out/$1-$2.json" 2>/dev/null
    callgrind_annotate "$out/$1-$2.out" | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }'
}
echo "| engine | N | instructions per body per step |"
echo "| --- | ---: | ---: |"
for engine in $engines; do
    long=$(count "$engine" 240)
    short=$(count "$engine" 40)
    echo "| $engine | $n | $(((long - short) / (200 * n))) |"
done
echo
echo "callgrind files (callgrind_annotate --inclusive=yes FILE shows where): $out"
