#!/bin/sh
# Compares two builds of the bench by running them alternately, so a busy or quiet spell of
# the machine falls on both: each round runs `PILE_STAGES=1 BIN one ours N` for every binary,
# the binaries' order flips every round, and the medians over the rounds of each stage and of
# the whole step are printed per binary. The step is the bench's `median_ms`: one run of the
# fixed schedule (since 3bcd51b; before it, the whole `App::update`), so compare builds from the
# same side of that change.
#
#   cargo build --release -p pile-bench && cp target/release/pile-bench /tmp/after
#   git stash; cargo build --release -p pile-bench && cp target/release/pile-bench /tmp/before
#   bench/alternate.sh 16000 6 /tmp/before /tmp/after     # N, rounds, binaries
#
# Copy the binaries first: a rebuild while this runs would change what is compared.
set -eu
n=$1
rounds=$2
shift 2
out=$(mktemp)
round=0
while [ "$round" -lt "$rounds" ]; do
    if [ $((round % 2)) -eq 0 ]; then order="$*"; else order=$(printf '%s\n' "$@" | tac | tr '\n' ' '); fi
    for bin in $order; do
        # One line per run: the binary, then "stage ms" pairs, then "step" and the median.
        PILE_STAGES=1 "$bin" one ours "$n" 2>&1 |
            awk -v bin="$bin" '
                /^stages/ { for (i = 4; i < NF; i += 2) s = s " " $i " " $(i + 1) }
                /median_ms/ { match($0, /"median_ms":[0-9.]+/); m = substr($0, RSTART + 12, RLENGTH - 12) }
                END { print bin s " step " m }' >>"$out"
    done
    round=$((round + 1))
done
echo "medians over $rounds alternating rounds at N = $n (ms):"
for bin in "$@"; do
    printf '%s' "$bin"
    for stage in integrate tiles partition pairs respond relax step; do
        median=$(awk -v bin="$bin" -v stage="$stage" '
            $1 == bin { for (i = 2; i < NF; i += 2) if ($i == stage) print $(i + 1) }' "$out" |
            sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
        printf '  %s %s' "$stage" "$median"
    done
    echo
done
rm -f "$out"
