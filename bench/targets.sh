#!/bin/sh
# Measures the two speed guards relaxation is held to, in one run of the machine (whose speed
# moves by up to two times from one spell to the next, so a ratio is only read within a run):
#
#   crowd  the crowd's step at 16 000 bodies against the step of the relaxation that the
#          current one replaced (2525658, with as many passes), the two builds run alternately;
#   pile   the pile's step with relaxation against rapier's (the faster peer in the pile, by
#          2.5 to 3 times over avian2d in BENCHMARKS.md), in pairs (ours, then rapier, the
#          order flipped every round), at each size.
#
# Both benches are built first (the base in a temporary git worktree, sharing the target
# directory), then copied, so nothing is rebuilt while they run. Prints every round, then the
# medians and the ratios of the medians.
#
#   bench/targets.sh [ROUNDS]        # 5 rounds unless given
#
# Environment: BASE (the commit compared with, 2525658), PASSES (relaxation_passes, 4),
# SIZES (the pile's, "16000"), CARGO_TARGET_DIR (shared by both builds; the checkout's
# target/ unless set). About 10 minutes at 5 rounds, once both are built.
set -eu
rounds=${1:-5}
base=${BASE:-2525658}
passes=${PASSES:-4}
sizes=${SIZES:-16000}
root=$(cd "$(dirname "$0")/.." && pwd)
CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$root/target}
# Both builds must find it, from the checkout and from the worktree.
case $CARGO_TARGET_DIR in
/*) ;;
*) CARGO_TARGET_DIR=$PWD/$CARGO_TARGET_DIR ;;
esac
export CARGO_TARGET_DIR
dir=$(mktemp -d)
trap 'git -C "$root" worktree remove --force "$dir/base-src" 2>/dev/null || true; rm -rf "$dir"' EXIT

# The base first, so that the checkout's build is the one left in the target directory.
git -C "$root" worktree add --detach "$dir/base-src" "$base" >/dev/null
(cd "$dir/base-src" && cargo build --release -p pile-bench)
cp "$CARGO_TARGET_DIR/release/pile-bench" "$dir/base"
(cd "$root" && cargo build --release -p pile-bench)
cp "$CARGO_TARGET_DIR/release/pile-bench" "$dir/head"
if cmp -s "$dir/head" "$dir/base"; then
    echo "the two builds are the same binary" >&2
    exit 1
fi

# The median step (ms) of one run of a bench: `step BIN one ENGINE N`, with the environment
# given before it.
step() {
    "$@" 2>/dev/null | sed -n 's/.*"median_ms":\([0-9.]*\).*/\1/p'
}

# The median of the numbers on standard input.
median() {
    sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# Runs `first N` and `second N` (shell functions printing a median step) ROUNDS times, their
# order flipped every round, then prints NAME, both medians and the ratio: second / first when
# HOW is "times" (how many times faster the first is), first / second when it is "of".
compare() {
    name=$1 how=$2 first=$3 second=$4 n=$5
    ours=$(mktemp -p "$dir")
    theirs=$(mktemp -p "$dir")
    round=0
    while [ "$round" -lt "$rounds" ]; do
        if [ $((round % 2)) -eq 0 ]; then
            a=$("$first" "$n")
            b=$("$second" "$n")
        else
            b=$("$second" "$n")
            a=$("$first" "$n")
        fi
        echo "$a" >>"$ours"
        echo "$b" >>"$theirs"
        echo "  round $round: $a $b"
        round=$((round + 1))
    done
    a=$(median <"$ours")
    b=$(median <"$theirs")
    awk -v n="$name" -v a="$a" -v b="$b" -v how="$how" 'BEGIN {
        r = (how == "of") ? a / b : b / a
        printf "%s: medians %.3f and %.3f ms, ratio %.2f\n", n, a, b, r }'
}

crowd_ours() { PILE_SCENE=crowd PILE_RELAX=$passes step "$dir/head" one ours "$1"; }
crowd_base() { PILE_SCENE=crowd PILE_RELAX=$passes step "$dir/base" one ours "$1"; }
pile_ours() { PILE_RELAX=$passes step "$dir/head" one ours "$1"; }
pile_rapier() { step "$dir/head" one rapier "$1"; }

echo "crowd, 16000 bodies: ours ($passes passes) then the base ($base), in ms"
compare "crowd at 16000, ours as a multiple of the base (guard: at most 1.1)" of \
    crowd_ours crowd_base 16000
for n in $sizes; do
    echo "pile, $n bodies: ours ($passes passes) then rapier, in ms"
    compare "pile at $n, how many times faster than rapier (guard at 16000: at least 15)" times \
        pile_ours pile_rapier "$n"
done
