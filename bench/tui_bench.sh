#!/bin/sh
# tui_bench — what the live view costs: CPU of `bagtop record -a` with the
# view (in tmux, 132x60, TERM=screen) against `--no-tui` on the same load
# (tpub: --topics topics at --rate messages/s in all), alternating A B A B
# in one run; the CPU of the main thread alone (it runs the live view, or
# headless the status-line loop), and the bytes the view writes to the
# terminal per second (tmux pipe-pane). Targets (issue 4): the view adds
# <= 1 % of one core; <= 4 KiB/s to the terminal at 1 Hz with 50 changing
# rows.
#
# DDS stays on loopback: CYCLONEDDS_URI defaults to the repository's
# loopback-only config and the script re-runs itself in a network namespace
# that has only loopback when the system allows it.
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/bench/bench_lib.sh"
BAGTOP="$ROOT/build/src/app/bagtop"
TPUB="$ROOT/build/tests/tools/tpub"
SECS=10
ROUNDS=2
TOPICS=500
RATE=5000
DOMAIN=229
DIR=${TMPDIR:-/tmp}

usage() {
	cat <<EOF
usage: bench/tui_bench.sh [--bagtop PATH] [--tpub PATH] [--seconds N] [--rounds N]
                          [--topics N] [--rate HZ] [--domain ID] [--dir DIR]
  --seconds  recording time per run (default 10)
  --rounds   A B pairs (default 2)
  --topics   topics published (default 500)
  --rate     messages per second over all topics (default 5000)
EOF
}

while [ $# -gt 0 ]; do
	case $1 in
	--bagtop) BAGTOP=$2; shift 2 ;;
	--tpub) TPUB=$2; shift 2 ;;
	--seconds) SECS=$2; shift 2 ;;
	--rounds) ROUNDS=$2; shift 2 ;;
	--topics) TOPICS=$2; shift 2 ;;
	--rate) RATE=$2; shift 2 ;;
	--domain) DOMAIN=$2; shift 2 ;;
	--dir) DIR=$2; shift 2 ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done

export CYCLONEDDS_URI="${CYCLONEDDS_URI:-file://$ROOT/tests/cyclonedds-loopback.xml}"
if [ -z "${TUI_BENCH_NS:-}" ]; then
	export TUI_BENCH_NS=1
	if unshare -rn true 2>/dev/null; then
		exec unshare -rn sh -c 'ip link set lo up && exec sh "$0" "$@"' "$0" \
			--bagtop "$BAGTOP" --tpub "$TPUB" --seconds "$SECS" --rounds "$ROUNDS" \
			--topics "$TOPICS" --rate "$RATE" --domain "$DOMAIN" --dir "$DIR"
	fi
	echo "tui_bench: no network namespace here; relying on CYCLONEDDS_URI alone"
fi
command -v tmux >/dev/null || { echo "tui_bench: tmux is not installed" >&2; exit 1; }
[ -x "$BAGTOP" ] && [ -x "$TPUB" ] || { echo "tui_bench: build bagtop and tpub first" >&2; exit 1; }
WORK=$(mktemp -d "$DIR/tui_bench.XXXXXX")
SOCK="tui-bench-$$"
PUB=""
cleanup() {
	tmux -L "$SOCK" kill-server 2>/dev/null || true
	[ -n "$PUB" ] && kill "$PUB" 2>/dev/null || true
	rm -rf "$WORK"
}
trap cleanup EXIT INT TERM

# CPU seconds (user + system) of PID so far.
cpu_now() { awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f", ($14 + $15) / hz }' "/proc/$1/stat"; }

# CPU seconds (user + system) of PID's main thread so far: the thread that
# runs the live view (or, headless, the status-line loop), apart from the
# recorder's and Cyclone's threads, whose run-to-run variation (receive,
# timed events) is larger than the whole view.
main_now() { awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f", ($14 + $15) / hz }' "/proc/$1/task/$1/stat"; }

# CPU seconds PID spends in SECS seconds of steady state (after 2 s of
# start-up: discovery of every topic, the first frames).
steady_cpu() {
	sleep 2
	c0=$(cpu_now "$1")
	sleep "$SECS"
	c1=$(cpu_now "$1")
	echo "$c0 $c1" | awk '{ printf "%.2f", $2 - $1 }'
}

# A: headless. Prints "cpu main-thread-cpu".
run_headless() {
	rm -rf "$WORK/bag"
	"$BAGTOP" record -a --no-tui --domain "$DOMAIN" -o "$WORK/bag" >/dev/null 2>&1 &
	p=$!
	sleep 2
	c0=$(cpu_now "$p"); m0=$(main_now "$p")
	sleep "$SECS"
	c1=$(cpu_now "$p"); m1=$(main_now "$p")
	kill -INT "$p"
	wait "$p" || true
	echo "$c0 $c1 $m0 $m1" | awk '{ printf "%.2f %.2f", $2 - $1, $4 - $3 }'
}

# B: the live view in tmux. Prints "cpu main-thread-cpu bytes-to-terminal".
run_tui() {
	rm -rf "$WORK/bag" "$WORK/pid" "$WORK/pane"
	tmux -L "$SOCK" kill-server 2>/dev/null || true
	# exec: the recorder keeps the shell's pid and the terminal as stdin.
	cat >"$WORK/b.sh" <<EOF
echo \$\$ >"$WORK/pid"
exec env TERM=screen "$BAGTOP" record -a --domain $DOMAIN -o "$WORK/bag"
EOF
	tmux -L "$SOCK" new-session -d -x 132 -y 60 "sh $WORK/b.sh"
	n=0
	while [ ! -s "$WORK/pid" ] && [ "$n" -lt 50 ]; do sleep 0.1; n=$((n + 1)); done
	p=$(cat "$WORK/pid")
	sleep 2
	tmux -L "$SOCK" pipe-pane -o "cat >>'$WORK/pane'"
	c0=$(cpu_now "$p"); m0=$(main_now "$p")
	sleep "$SECS"
	c1=$(cpu_now "$p"); m1=$(main_now "$p")
	tmux -L "$SOCK" pipe-pane
	bytes=$(wc -c <"$WORK/pane" 2>/dev/null || echo 0)
	tmux -L "$SOCK" send-keys q y
	while kill -0 "$p" 2>/dev/null; do sleep 0.1; done
	echo "$(echo "$c0 $c1 $m0 $m1" | awk '{ printf "%.2f %.2f", $2 - $1, $4 - $3 }') $bytes"
}


echo "tui_bench: $(nproc) CPUs, load average $(cut -d' ' -f1 /proc/loadavg) at start;" \
	"$TOPICS topics, $RATE msg/s in all, $SECS s per run, $ROUNDS rounds"
"$TPUB" --domain "$DOMAIN" --topic load --type string --topics "$TOPICS" \
	--count $((RATE * (SECS + 20) * ROUNDS * 2)) --rate "$RATE" >/dev/null 2>&1 &
PUB=$!
sleep 2
: >"$WORK/a"; : >"$WORK/b"; : >"$WORK/am"; : >"$WORK/bm"; : >"$WORK/bytes"
r=1
while [ "$r" -le "$ROUNDS" ]; do
	set -- $(run_headless)
	a=$1; am=$2
	set -- $(run_tui)
	echo "round $r: --no-tui $a s CPU (main thread $am s), live view $1 s CPU" \
		"(main thread $2 s), $3 bytes to the terminal, each in $SECS s of steady state"
	echo "$a $SECS" | awk '{ print $1 / $2 }' >>"$WORK/a"
	echo "$am $SECS" | awk '{ print $1 / $2 }' >>"$WORK/am"
	echo "$1 $SECS" | awk '{ print $1 / $2 }' >>"$WORK/b"
	echo "$2 $SECS" | awk '{ print $1 / $2 }' >>"$WORK/bm"
	echo "$3 $SECS" | awk '{ print $1 / $2 }' >>"$WORK/bytes"
	r=$((r + 1))
done
A=$(median <"$WORK/a"); Bv=$(median <"$WORK/b"); BY=$(median <"$WORK/bytes")
AM=$(median <"$WORK/am"); BM=$(median <"$WORK/bm")
pct() { echo "$1" | awk '{ printf "%.2f", $1 * 100 }'; }
echo "tui_bench: the live view's thread $(pct "$BM") % of one core against the headless loop's" \
	"$(pct "$AM") %: the view adds $(echo "$BM $AM" | awk '{ printf "%.2f", ($1 - $2) * 100 }') %" \
	"(target <= 1 %)"
echo "tui_bench: whole process $(pct "$Bv") % with the view, $(pct "$A") % headless" \
	"(difference $(echo "$Bv $A" | awk '{ printf "%+.2f", ($1 - $2) * 100 }') %, mostly the run-to-run" \
	"variation of the receive and event threads); $(echo "$BY" | awk '{ printf "%.0f", $1 }')" \
	"bytes/s to the terminal (target <= 4096)"
