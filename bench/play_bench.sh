#!/bin/sh
# play_bench — bagtop play against ceilings measured in the same run.
#
# The bags are recorded here first, by bagtop record, from ddsperf pub
# (topic DDSPerfRDataKS), so that ddsperf sub receives what bagtop plays.
#   (a) timing: a bag of 1 KiB messages at 1 kHz and one at 10 kHz played at
#       rate 1 into ddsperf sub; the lateness of each message (p50/p99/max,
#       from bagtop play's summary) next to a bare clock_nanosleep loop at
#       the same rate (build/tests/tools/sleep_jitter), the ceiling.
#   (b) top speed: a bag of 1 KiB messages played with --rate 1000 into
#       ddsperf sub, messages/s received, against ddsperf pub size 1KiB into
#       the same ddsperf sub (target >= 0.8); --rounds pairs, alternated,
#       and the ratio of the medians (one pair moves by 0.15 from run to
#       run on two cores).
#   (c) 1 MiB: a bag of 1 MiB messages played with --rate 1000, bytes/s
#       received, against ddsperf pub size 1MiB.
# Rates are what ddsperf sub counted over the publishing side's time:
# ddsperf pub's -D, and bagtop play's playing time from its summary
# ("Played N messages ... in S s": from the start of playing to the end,
# without opening the bag and making the writers; printed beside it).
# Not a test: it exits non-zero only when something failed to run.
#
# DDS stays on loopback: CYCLONEDDS_URI defaults to the repository's
# loopback-only config, and the script re-runs itself in a network namespace
# that has only loopback when the system allows it.
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/bench/bench_lib.sh"
BUILD="$ROOT/build"
SECS=4
DIR=${TMPDIR:-/tmp}
DOMAIN=218
ONLY=abc
ROUNDS=3

usage() {
	cat <<EOF
usage: bench/play_bench.sh [--build DIR] [--seconds N] [--dir DIR] [--domain ID] [--only PARTS]
                          [--rounds N]
  --build    the build tree (default build/): its src/app/bagtop and tests/tools/sleep_jitter
  --seconds  length of each recorded bag and of each ceiling run (default 4)
  --dir      where the bags are written (default \$TMPDIR or /tmp)
  --domain   DDS domain id (default 218)
  --only     which parts to run, letters of abc (default abc): --only b is the top speed alone
  --rounds   pairs of runs (ddsperf pub, then bagtop play) in (b) and (c) (default 3)
EOF
}

while [ $# -gt 0 ]; do
	case $1 in
	--build) BUILD=$2; shift 2 ;;
	--seconds) SECS=$2; shift 2 ;;
	--dir) DIR=$2; shift 2 ;;
	--domain) DOMAIN=$2; shift 2 ;;
	--only) ONLY=$2; shift 2 ;;
	--rounds) ROUNDS=$2; shift 2 ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
case $ROUNDS in
'' | *[!0-9]* | 0) echo "play_bench: --rounds takes a whole number from 1, not '$ROUNDS'" >&2; exit 2 ;;
esac
case $ONLY in
'' | *[!abc]*) echo "play_bench: --only takes letters of abc, not '$ONLY'" >&2; exit 2 ;;
esac
BAGTOP="$BUILD/src/app/bagtop"
SLEEP_JITTER="$BUILD/tests/tools/sleep_jitter"

export CYCLONEDDS_URI="${CYCLONEDDS_URI:-file://$ROOT/tests/cyclonedds-loopback.xml}"
if [ -z "${PLAY_BENCH_NS:-}" ]; then
	export PLAY_BENCH_NS=1
	if unshare -rn true 2>/dev/null; then
		exec unshare -rn sh -c 'ip link set lo up && exec sh "$0" "$@"' "$0" \
			--build "$BUILD" --seconds "$SECS" --dir "$DIR" --domain "$DOMAIN" --only "$ONLY" \
			--rounds "$ROUNDS"
	fi
	echo "play_bench: no network namespace here; relying on CYCLONEDDS_URI alone"
fi

command -v ddsperf >/dev/null || { echo "play_bench: ddsperf not found (cyclonedds-tools)" >&2; exit 1; }
[ -x "$BAGTOP" ] || { echo "play_bench: $BAGTOP is not built" >&2; exit 1; }
[ -x "$SLEEP_JITTER" ] || { echo "play_bench: $SLEEP_JITTER is not built" >&2; exit 1; }
# part P: is part P (a, b or c) to run?
part() { case $ONLY in *$1*) return 0 ;; esac; return 1; }
WORK=$(mktemp -d "$DIR/play_bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT INT TERM

now() { date +%s.%N; }

# record_bag NAME "PUB ARGS": bagtop records what ddsperf pub sends for SECS.
record_bag() {
	# --foreground: timeout passes the SIGINT below on once (without it,
	# again to its process group: a second Ctrl-C, which abandons what
	# bagtop has not written yet).
	timeout --foreground $((SECS + 60)) "$BAGTOP" record --no-tui -o "$WORK/$1" --domain "$DOMAIN" \
		DDSPerfRDataKS >"$WORK/$1.rec" 2>&1 &
	rp=$!
	sleep 1.5
	# shellcheck disable=SC2086 # the pub arguments are words on purpose
	timeout $((SECS + 20)) ddsperf -i "$DOMAIN" -D "$SECS" pub $2 >/dev/null 2>&1 || true
	sleep 0.5
	kill -INT "$rp" 2>/dev/null || true
	wait "$rp" || { echo "play_bench: recording $1 failed:" >&2; cat "$WORK/$1.rec" >&2; exit 1; }
	n=$(awk '$1 == "DDSPerfRDataKS" && $3 == "recorded" { print $2 }' "$WORK/$1.rec")
	echo "  bag $1: ${n:-?} messages of ddsperf pub $2"
}

# sub_start SECONDS: ddsperf sub in the background, its output in sub.out.
sub_start() {
	timeout $(($1 + 20)) ddsperf -i "$DOMAIN" -D "$1" sub >"$WORK/sub.out" 2>&1 &
	sp=$!
	sleep 1
}
# sub_end: waits until the last ddsperf sub has ended, then sets `got` to
# what it received in all. Not to be called in $(...): a subshell cannot
# wait for it, and the sub would go on (its last count line a second old,
# and it would count the next part's messages too, into that part's file).
sub_end() {
	wait "$sp" || true
	got=$(awk '/ total / { for (i = 1; i <= NF; i++) if ($i == "total") t = $(i + 1) }
		END { print t + 0 }' "$WORK/sub.out")
}
# sub_stop: sub_end once the sub has printed a count line after the last
# message arrived.
sub_stop() {
	sleep 1.5
	kill -INT "$sp" 2>/dev/null || true
	sub_end
}

# play BAG [ARGS…]: plays into the running sub; prints the wall seconds.
play() {
	bag=$1; shift
	t0=$(now)
	timeout 300 "$BAGTOP" play --no-tui --domain "$DOMAIN" "$@" "$WORK/$bag" \
		>"$WORK/play.out" 2>&1 || { echo "play_bench: play $bag failed:" >&2; cat "$WORK/play.out" >&2; exit 1; }
	echo "$(now) $t0" | awk '{ printf "%.3f", $1 - $2 }'
}

ratio() { echo "$1 $2" | awk '{ printf "%.2f", $2 ? $1 / $2 : 0 }'; }

echo "play_bench: $(nproc) CPUs, load average $(cut -d' ' -f1 /proc/loadavg) at start, $SECS s bags, dir $DIR"
echo "recording the bags:"
if part a; then
	record_bag hz1k "1000Hz size 1KiB"
	record_bag hz10k "10kHz size 1KiB"
fi
if part b; then record_bag full1k "size 1KiB"; fi
if part c; then record_bag full1m "40Hz size 1MiB"; fi

if part a; then
echo
echo "== (a) timing, 1 KiB at the recorded pace =="
for bag in hz1k hz10k; do
	hz=1000; [ "$bag" = hz10k ] && hz=10000
	"$SLEEP_JITTER" "$hz" "$SECS"
	sub_start $((SECS + 8))
	play "$bag" >/dev/null
	sub_stop
	late=$(grep -m1 '^Lateness:' "$WORK/play.out" || echo "(no lateness line in the summary)")
	echo "bagtop play $bag: $late; ddsperf sub received $got"
done
fi

# speed_round SIZE BAG SCALE UNIT: ddsperf pub of SIZE into ddsperf sub (A),
# then BAG played at --rate 1000 into a new sub (B); a received message
# counts SCALE UNITs (1 msgs, or 1.048576 MB for 1 MiB). Appends A's and
# B's rates to a.rate and b.rate.
speed_round() {
	sub_start $((SECS + 3))
	timeout $((SECS + 20)) ddsperf -i "$DOMAIN" -D "$SECS" pub size "$1" >/dev/null 2>&1 || true
	sub_end
	a=$got
	ra=$(echo "$a $SECS $3" | awk '{ printf "%.1f", $1 * $3 / $2 }')
	echo "A ddsperf pub -> sub: $a messages in $SECS s, $ra $4/s"
	sub_start 120
	w=$(play "$2" --rate 1000)
	# playing time, from its summary: as ddsperf pub's -D, without the
	# start-up (opening the bag, making the participant and writers)
	pw=$(awk '/^Played/ { for (i = 1; i < NF; i++) if ($i == "in") print $(i + 1) }' \
		"$WORK/play.out")
	sub_stop
	b=$got
	rb=$(echo "$b $pw $3" | awk '{ printf "%.1f", $2 ? $1 * $3 / $2 : 0 }')
	echo "B bagtop play -> sub: $b messages in $pw s playing ($w s with start-up), $rb $4/s"
	# ddsperf sub answers a sample with an odd source timestamp as a ping
	# (a pong writer looked up, a line printed when there is none): work
	# that ddsperf pub's even timestamps never ask of it
	pings=$(grep -c 'get_pong_writer' "$WORK/sub.out" || true)
	[ "${pings:-0}" -eq 0 ] || echo "  (ddsperf sub took $pings of them for pings: odd source timestamps)"
	echo "$1: play/ddsperf pub $(ratio "$rb" "$ra")"
	echo "$ra" >>"$WORK/a.rate"
	echo "$rb" >>"$WORK/b.rate"
}

# speed SIZE BAG SCALE UNIT: ROUNDS of speed_round, then the medians.
speed() {
	: >"$WORK/a.rate"
	: >"$WORK/b.rate"
	r=1
	while [ "$r" -le "$ROUNDS" ]; do
		echo "round $r:"
		speed_round "$@"
		r=$((r + 1))
	done
	ma=$(median <"$WORK/a.rate")
	mb=$(median <"$WORK/b.rate")
	echo "$1, medians of $ROUNDS: ddsperf pub $ma $4/s, bagtop play $mb $4/s," \
		"play/ddsperf pub $(ratio "$mb" "$ma")"
}

if part b; then
	echo
	echo "== (b) top speed, 1 KiB, --rate 1000 (target >= 0.8) =="
	speed 1KiB full1k 1 msgs
fi
if part c; then
	echo
	echo "== (c) 1 MiB, --rate 1000 =="
	speed 1MiB full1m 1.048576 MB
fi
echo
echo "play_bench: load average $(cut -d' ' -f1 /proc/loadavg) at end"
