#!/bin/sh
# snapshot_bench — how long a full snapshot takes to write, against the raw
# sqlite3 rate store_bench measures for the same message size in the same
# run, and whether live recording lost anything meanwhile.
#
# `bagtop record --snapshot-mode --max-cache-size SIZE` is fed by tpub
# (--size bytes at --rate Hz) until the buffer is full, then `bagtop
# snapshot --pid` is timed while tpub keeps publishing; once the buffer is
# full again, `bagtop call snapshot` (rosbag2's Snapshot service over DDS,
# a new participant that first discovers the recorder) is timed: until its
# reply, and until the file's last write (its mtime). The recorder's
# summary says what was lost in the recorder (target: 0).
#
# DDS stays on loopback: CYCLONEDDS_URI defaults to the repository's
# loopback-only config and the script re-runs itself in a network namespace
# that has only loopback when the system allows it.
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD="$ROOT/build"
CACHE=100M
SIZE=102400
RATE=1000
DOMAIN=228
DIR=${TMPDIR:-/tmp}

usage() {
	cat <<EOF
usage: bench/snapshot_bench.sh [--build DIR] [--cache BYTES] [--size BYTES] [--rate HZ]
                               [--domain ID] [--dir DIR]
  --cache   the snapshot buffer, --max-cache-size (default 100M)
  --size    message size (default 102400)
  --rate    messages per second while filling and writing (default 1000)
EOF
}

while [ $# -gt 0 ]; do
	case $1 in
	--build) BUILD=$2; shift 2 ;;
	--cache) CACHE=$2; shift 2 ;;
	--size) SIZE=$2; shift 2 ;;
	--rate) RATE=$2; shift 2 ;;
	--domain) DOMAIN=$2; shift 2 ;;
	--dir) DIR=$2; shift 2 ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done

export CYCLONEDDS_URI="${CYCLONEDDS_URI:-file://$ROOT/tests/cyclonedds-loopback.xml}"
if [ -z "${SNAPSHOT_BENCH_NS:-}" ]; then
	export SNAPSHOT_BENCH_NS=1
	if unshare -rn true 2>/dev/null; then
		exec unshare -rn sh -c 'ip link set lo up && exec sh "$0" "$@"' "$0" --build "$BUILD" \
			--cache "$CACHE" --size "$SIZE" --rate "$RATE" --domain "$DOMAIN" --dir "$DIR"
	fi
	echo "snapshot_bench: no network namespace here; relying on CYCLONEDDS_URI alone"
fi
BAGTOP="$BUILD/src/app/bagtop"
TPUB="$BUILD/tests/tools/tpub"
SB="$BUILD/bench/store_bench"
for f in "$BAGTOP" "$TPUB" "$SB"; do
	[ -x "$f" ] || { echo "snapshot_bench: $f is not built" >&2; exit 1; }
done
WORK=$(mktemp -d "$DIR/snapshot_bench.XXXXXX")
REC=""
PUB=""
cleanup() {
	[ -n "$PUB" ] && kill "$PUB" 2>/dev/null || true
	[ -n "$REC" ] && kill -INT "$REC" 2>/dev/null || true
	rm -rf "$WORK"
}
trap cleanup EXIT INT TERM

echo "snapshot_bench: $(nproc) CPUs, load average $(cut -d' ' -f1 /proc/loadavg) at start;" \
	"buffer $CACHE, $SIZE-byte messages at $RATE Hz"
"$BAGTOP" record /load --no-tui --statistics-update-rate 0 --snapshot-mode \
	--max-cache-size "$CACHE" --domain "$DOMAIN" -o "$WORK/bag" >"$WORK/rec.out" 2>&1 &
REC=$!
sleep 1
"$TPUB" --domain "$DOMAIN" --topic rt/load --type keyed --size "$SIZE" --count 100000000 \
	--rate "$RATE" >/dev/null 2>&1 &
PUB=$!
# Full once the buffer has evicted for a while: twice its fill time.
BYTES=$(echo "$CACHE" | awk '{ n = $1 + 0; u = substr($1, length($1));
	print n * (u == "K" ? 1024 : u == "M" ? 1048576 : u == "G" ? 1073741824 : 1) }')
FILL=$(echo "$BYTES $SIZE $RATE" | awk '{ printf "%d", 2 * $1 / ($2 * $3) + 2 }')
sleep "$FILL"
T0=$(date +%s%N)
FILE=$("$BAGTOP" snapshot --pid "$REC" --timeout 120)
T1=$(date +%s%N)
sleep "$FILL"
T2=$(date +%s%N)
"$BAGTOP" call snapshot --domain "$DOMAIN" --timeout 120 >"$WORK/call.out" 2>&1 ||
	{ echo "snapshot_bench: bagtop call snapshot failed:" >&2; cat "$WORK/call.out" >&2; }
T3=$(date +%s%N)
# the largest file but the first snapshot's (an empty one waits for the next)
FILE2=$(ls -S "$WORK"/bag/*.db3 | grep -v -x -F "$(realpath "$FILE")" | head -1)
T2F=$(stat -c %.9Y "$FILE2" | tr -d .)
sleep 1
kill "$PUB" 2>/dev/null || true
PUB=""
kill -INT "$REC"
wait "$REC" || true
REC=""
WROTE=$(du -b "$FILE" | cut -f1)
SECS=$(echo "$T0 $T1" | awk '{ printf "%.3f", ($2 - $1) / 1e9 }')
LOST=$(awk '/^Recorded / { for (i = 1; i <= NF; i++) if ($i == "recorder") print $(i - 3) }' "$WORK/rec.out")
# The raw side's MiB/s, default preset (the third |-separated part).
RAW=$("$SB" --only raw --side raw --size "$SIZE" --messages $((BYTES / SIZE)) --repeats 3 \
	--dir "$WORK" 2>/dev/null | awk -F'|' '/default/ { split($3, a, " "); print a[2]; exit }')
echo "snapshot: $WROTE bytes in $SECS s ($(echo "$WROTE $SECS" | awk '{ printf "%.1f", $1 / $2 / 1048576 }') MiB/s," \
	"trigger to file complete, as bagtop snapshot saw it)"
echo "store_bench raw sqlite3, same size: ${RAW:-?} MiB/s;" \
	"ratio $(echo "$WROTE $SECS ${RAW:-0}" | awk '{ printf "%.2f", $3 ? $1 / $2 / 1048576 / $3 : 0 }')"
W2=$(du -b "$FILE2" | cut -f1)
echo "bagtop call snapshot: $W2 bytes; reply after $(echo "$T2 $T3" | awk '{ printf "%.3f", ($2 - $1) / 1e9 }') s," \
	"file complete after $(echo "$T2 $T2F" | awk '{ printf "%.3f", ($2 - $1) / 1e9 }') s" \
	"(discovering the recorder's service included; bagtop snapshot --pid above: $SECS s)"
echo "live recording meanwhile: lost ${LOST:-?} in the recorder (target 0)"
grep -E "^Recorded|^Snapshot mode" "$WORK/rec.out"
