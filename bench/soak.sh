#!/bin/sh
# soak — a long headless recording that splits and rotates all the time:
# does memory stay flat, is nothing lost, does every kept file pass check?
#
# `bagtop record -a --no-tui -b SPLIT --max-bag-files FILES` records tpub's
# --topics topics at --rate messages/s in all for --minutes minutes. The
# recorder's RSS (VmRSS) is sampled every 10 s; the report compares the
# last sample with the one at minute 2 (target: within 5 %) and the lowest
# sample of the last minute with that of minute 2, the recorder's
# own loss counts (target: 0), the messages it recorded against those tpub
# published, and `bagtop check` on what --max-bag-files kept.
#
# Not a test: it prints numbers and exits non-zero only when something
# failed to run. DDS stays on loopback: CYCLONEDDS_URI defaults to the
# repository's loopback-only config and the script re-runs itself in a
# network namespace that has only loopback when the system allows it.
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD="$ROOT/build"
MINUTES=30
TOPICS=100
RATE=5000
SIZE=200
SPLIT=2M
FILES=3
STORAGE=sqlite3
DOMAIN=226
DIR=${TMPDIR:-/tmp}

usage() {
	cat <<EOF
usage: bench/soak.sh [--build DIR] [--minutes N] [--topics N] [--rate HZ] [--size BYTES]
                     [--split BYTES] [--files N] [--storage ID] [--domain ID] [--dir DIR]
  --minutes  recording time (default 30; at least 3)
  --topics   topics published (default 100)
  --rate     messages per second over all topics (default 5000)
  --size     payload bytes per message (default 200)
  --split    -b, the split size (default 2M)
  --files    --max-bag-files (default 3)
  --storage  -s, sqlite3 or mcap (default sqlite3)
EOF
}

while [ $# -gt 0 ]; do
	case $1 in
	--build) BUILD=$2; shift 2 ;;
	--minutes) MINUTES=$2; shift 2 ;;
	--topics) TOPICS=$2; shift 2 ;;
	--rate) RATE=$2; shift 2 ;;
	--size) SIZE=$2; shift 2 ;;
	--split) SPLIT=$2; shift 2 ;;
	--files) FILES=$2; shift 2 ;;
	--storage) STORAGE=$2; shift 2 ;;
	--domain) DOMAIN=$2; shift 2 ;;
	--dir) DIR=$2; shift 2 ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
[ "$MINUTES" -ge 3 ] || { echo "soak: --minutes must be at least 3" >&2; exit 2; }

export CYCLONEDDS_URI="${CYCLONEDDS_URI:-file://$ROOT/tests/cyclonedds-loopback.xml}"
if [ -z "${SOAK_BENCH_NS:-}" ]; then
	export SOAK_BENCH_NS=1
	if unshare -rn true 2>/dev/null; then
		exec unshare -rn sh -c 'ip link set lo up && exec sh "$0" "$@"' "$0" --build "$BUILD" \
			--minutes "$MINUTES" --topics "$TOPICS" --rate "$RATE" --size "$SIZE" \
			--split "$SPLIT" --files "$FILES" --storage "$STORAGE" --domain "$DOMAIN" \
			--dir "$DIR"
	fi
	echo "soak: no network namespace here; relying on CYCLONEDDS_URI alone"
fi
BAGTOP="$BUILD/src/app/bagtop"
TPUB="$BUILD/tests/tools/tpub"
for f in "$BAGTOP" "$TPUB"; do
	[ -x "$f" ] || { echo "soak: $f is not built" >&2; exit 1; }
done
WORK=$(mktemp -d "$DIR/soak.XXXXXX")
REC=""
PUB=""
cleanup() {
	[ -n "$PUB" ] && kill "$PUB" 2>/dev/null || true
	[ -n "$REC" ] && kill -INT "$REC" 2>/dev/null || true
	rm -rf "$WORK"
}
trap cleanup EXIT INT TERM

# "RSS anon file" in KiB: the total, the heap and other private memory, and
# the pages of mapped files (code of the libraries as it is first used).
rss_kib() {
	awk '/^VmRSS:/ { t = $2 } /^RssAnon:/ { a = $2 } /^RssFile:/ { f = $2 }
	     END { print t + 0, a + 0, f + 0 }' "/proc/$1/status" 2>/dev/null || echo 0 0 0
}

SECS=$((MINUTES * 60))
COUNT=$((RATE * SECS))
echo "soak: $(nproc) CPUs, load average $(cut -d' ' -f1 /proc/loadavg) at start;" \
	"$TOPICS topics, $RATE msg/s of $SIZE B, -s $STORAGE -b $SPLIT --max-bag-files $FILES," \
	"$MINUTES min"
"$BAGTOP" record -a --no-tui --domain "$DOMAIN" -o "$WORK/bag" -s "$STORAGE" -b "$SPLIT" \
	--max-bag-files "$FILES" >"$WORK/rec.out" 2>"$WORK/rec.err" </dev/null &
REC=$!
sleep 1
"$TPUB" --domain "$DOMAIN" --topic soak --type string --topics "$TOPICS" --count "$COUNT" \
	--rate "$RATE" --size "$SIZE" --wait-readers 1 --wait-timeout 10 >/dev/null 2>&1 &
PUB=$!
t=0
: >"$WORK/rss"
# Sample every 10 s while the publisher runs, bounded by twice the duration.
while kill -0 "$PUB" 2>/dev/null && [ "$t" -lt $((SECS * 2)) ]; do
	sleep 10
	t=$((t + 10))
	r=$(rss_kib "$REC")
	echo "$t $r" >>"$WORK/rss"
	[ $((t % 60)) -eq 0 ] && echo "minute $((t / 60)): RSS anon file $r (KiB)"
done
kill "$PUB" 2>/dev/null || true
wait "$PUB" 2>/dev/null || true
PUB=""
sleep 2
kill -INT "$REC"
rc=0
wait "$REC" || rc=$?
REC=""
[ "$rc" -eq 0 ] || { echo "soak: bagtop record exited $rc:"; tail -5 "$WORK/rec.err"; exit 1; }

R2=$(awk '$1 <= 120 { r = $2 } END { print r + 0 }' "$WORK/rss")
RN=$(awk '{ r = $2 } END { print r + 0 }' "$WORK/rss")
A2=$(awk '$1 <= 120 { r = $3 } END { print r + 0 }' "$WORK/rss")
AN=$(awk '{ r = $3 } END { print r + 0 }' "$WORK/rss")
# The lowest sample of a minute: what the recorder keeps, without the
# messages in flight between receive and write (a backlog of a second under
# load is ~2 MiB and comes and goes between samples).
F2=$(awk '$1 > 60 && $1 <= 120 { if (f == "" || $2 < f) f = $2 } END { print f + 0 }' "$WORK/rss")
FN=$(awk -v s="$SECS" '$1 > s - 60 && $1 <= s { if (f == "" || $2 < f) f = $2 } END { print f + 0 }' \
	"$WORK/rss")
TOTAL=$(sed -n 's/^Recorded \([0-9]*\) message.*/\1/p' "$WORK/rec.out")
LOST=$(sed -n 's/^Recorded .*; lost \([0-9]*\) in transport, \([0-9]*\) in the recorder.*/\1 \2/p' \
	"$WORK/rec.out")
NFILES=$(find "$WORK/bag" \( -name '*.db3*' -o -name '*.mcap' \) | wc -l)
CHECK=$("$BAGTOP" check "$WORK/bag" 2>&1 | tail -1)
echo "soak: RSS minute 2 $R2 KiB, minute $MINUTES $RN KiB:" \
	"$(echo "$RN $R2" | awk '{ printf "%+.1f %%", ($1 - $2) * 100 / $2 }') (target within 5 %);" \
	"anonymous $A2 -> $AN KiB"
echo "soak: lowest sample of minute 2 $F2 KiB, of minute $MINUTES $FN KiB:" \
	"$(echo "$FN $F2" | awk '{ printf "%+.1f %%", ($1 - $2) * 100 / $2 }')"
echo "soak: recorded ${TOTAL:-?} of $COUNT published; lost (transport, recorder): ${LOST:-?}" \
	"(target 0 0)"
echo "soak: $NFILES files kept (--max-bag-files $FILES); check: $CHECK"
