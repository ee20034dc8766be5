#!/bin/sh
# run_fuzz.sh SECONDS [TARGET] — fuzz a bagtop parser with libFuzzer for a
# bounded time. A developer runs it by hand (CI replays the corpora instead:
# ctest -R replay). Needs clang and its libFuzzer runtime (Debian: clang,
# libclang-rt-dev).
#
#   sh tests/fuzz/run_fuzz.sh 300              # fuzz_metadata for 5 minutes
#   CC=clang-14 sh tests/fuzz/run_fuzz.sh 60 metadata
#
# What it does, by hand:
#   CC=clang cmake -S . -B build-fuzz -DBAGTOP_FUZZ=ON -DBAGTOP_BENCH=OFF
#   cmake --build build-fuzz --target fuzz_metadata
#   build-fuzz/tests/fuzz/fuzz_metadata -max_total_time=300 -dict=tests/fuzz/metadata.dict \
#       build-fuzz/fuzz-metadata/corpus tests/fuzz/corpus_metadata tests/data/bad/meta
#
# New interesting inputs go to build-fuzz/fuzz-<target>/corpus (not checked
# in); a crash, leak or timeout stops the run and is saved under
# build-fuzz/fuzz-<target>/crashes/. Fix it, then keep the input as a
# regression seed: cp CRASHFILE tests/fuzz/corpus_<target>/regress-<what>.
# Reproduce one input: build-fuzz/tests/fuzz/fuzz_<target> CRASHFILE
set -eu
secs=${1:?usage: run_fuzz.sh SECONDS [TARGET]}
target=${2:-metadata}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${BAGTOP_FUZZ_BUILD:-$root/build-fuzz}
cc=${CC:-clang}

case $($cc --version 2>/dev/null | head -n 1) in
*clang*) ;;
*) echo "run_fuzz.sh: '$cc' is not clang; set CC=clang" >&2; exit 2 ;;
esac
if [ -f "$build/CMakeCache.txt" ] && ! grep -q 'CMAKE_C_COMPILER:.*clang' "$build/CMakeCache.txt"; then
	echo "run_fuzz.sh: $build was configured with another compiler; remove it" >&2
	exit 2
fi

CC=$cc cmake -S "$root" -B "$build" -DBAGTOP_FUZZ=ON -DBAGTOP_BENCH=OFF \
	-DCMAKE_BUILD_TYPE=RelWithDebInfo > /dev/null
cmake --build "$build" --target "fuzz_$target" -j "$(nproc 2>/dev/null || echo 2)"

work=$build/fuzz-$target
mkdir -p "$work/corpus" "$work/crashes"
dict=
[ -f "$here/$target.dict" ] && dict=-dict=$here/$target.dict
seeds="$here/corpus_$target"
[ "$target" = metadata ] && seeds="$seeds $root/tests/data/bad/meta"
[ "$target" = mcap ] && seeds="$seeds $root/tests/data/bad/mcap"
cd "$work"
# shellcheck disable=SC2086 # $dict and $seeds are word lists on purpose
exec "$build/tests/fuzz/fuzz_$target" -max_total_time="$secs" -timeout=10 \
	-rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
	-artifact_prefix="$work/crashes/" $dict "$work/corpus" $seeds
