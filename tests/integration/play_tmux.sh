#!/bin/sh
# The live view of `bagtop play` (the real binary in tmux at 80x24) against
# a real subscriber, on loopback-only DDS domains 46 and 47: a bag of 250
# messages at 50 Hz is recorded from tpub (domain 46), then played at
# -r 0.5 (domain 47) while a headless `bagtop record` counts what arrives
# (its bag, read with sqlite3): the progress bar moves, Space pauses (PAUSED
# shown, the Sent counter stands still and nothing arrives while paused),
# Space resumes, Up x8 shows the rate 1.07x and the pace roughly doubles,
# `q` exits at once.
set -u
. "$(dirname "$0")/tmux_lib.sh"
tmux_test_dir playtui
SOCK="bagtop-test-playtui-$$"
PIDS=""
cleanup() {
	tm kill-server 2>/dev/null
	[ -n "$PIDS" ] && kill $PIDS 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
pct() { screen | sed -n 's/.*[^0-9]\([0-9][0-9]*\)%\].*/\1/p' | head -1; }
sent() { screen | sed -n 's/.*Sent \([0-9][0-9]*\)\/250.*/\1/p' | head -1; }
# rate_between BAG FROM TO: messages a second that arrived in (FROM, TO) ns.
rate_between() {
	awk -v n="$(count_between "$1" "$2" "$3")" -v d="$(($3 - $2))" 'BEGIN { print n * 1e9 / d }'
}

# The bag to play: 250 messages at 50 Hz (5 s).
"$B" record /k --domain 46 -o "$T/in" --no-tui >"$T/rec_in.log" 2>&1 &
REC=$!
PIDS="$REC"
"$P" --domain 46 --topic rt/k --type string --count 250 --rate 50 --wait-readers 1 \
	--wait-timeout 10 --linger 0.3 >/dev/null 2>&1 || fail "tpub failed"
kill -INT "$REC"
wait "$REC" || fail "recording the bag to play failed: $(cat "$T/rec_in.log")"
N=$("$B" info "$T/in" | sed -n 's/^Messages: *//p')
[ "$N" = 250 ] || fail "the bag to play has $N messages, not 250"

# The subscriber that counts, then the player in tmux: 10 s at -r 0.5.
"$B" record /k --domain 47 -o "$T/out" --no-tui >"$T/rec_out.log" 2>&1 &
REC=$!
PIDS="$REC"
tm new-session -d -x 80 -y 24 "$B play $T/in --domain 47 -r 0.5; echo \$? > $T/exit; sleep 60"
wait_for 10 on_screen "^PLAYING  Bag " || fail "no PLAYING within 10 s"
on_screen "Rate 0.5x" || fail "the rate 0.5x is not shown"
sleep 1
A0=$(now_ns)
P1=$(pct)
sleep 1
P2=$(pct)
[ -n "$P1" ] && [ -n "$P2" ] && [ "$P2" -gt "$P1" ] ||
	fail "the progress bar does not move ($P1% then $P2%)"

A1=$(now_ns)
tm send-keys Space
wait_for 3 on_screen "^PAUSED  Bag " || fail "Space did not pause"
PAUSED=$(now_ns)
S1=$(sent)
sleep 1.5
S2=$(sent)
[ -n "$S1" ] && [ "$S1" = "$S2" ] || fail "Sent moved while paused ($S1 then $S2)"
RESUME=$(now_ns)
tm send-keys Space
wait_for 3 on_screen "^PLAYING  Bag " || fail "Space did not resume"
tm send-keys Up Up Up Up Up Up Up Up
wait_for 3 on_screen "Rate 1.07x" || fail "8 x Up does not show the rate 1.07x"
sleep 0.3
B0=$(now_ns)
sleep 1
B1=$(now_ns)

QUIT=$(now_ns)
tm send-keys q
wait_for 5 test -s "$T/exit" || fail "q did not exit within 5 s"
[ "$(cat "$T/exit")" = 0 ] || fail "bagtop play exited with $(cat "$T/exit")"
DONE=$(now_ns)
kill -INT "$REC"
wait "$REC" || fail "the counting recorder failed: $(cat "$T/rec_out.log")"
PIDS=""

N=$(count_between "$T/out" $((PAUSED + 200000000)) "$RESUME")
[ "$N" = 0 ] || fail "$N messages arrived while paused"
RA=$(rate_between "$T/out" "$A0" "$A1")
RB=$(rate_between "$T/out" "$B0" "$B1")
awk -v a="$RA" -v b="$RB" 'BEGIN { exit !(a >= 15 && a <= 35 && b >= 1.5 * a) }' ||
	fail "the pace: $RA msg/s at 0.5x (want ~25), $RB msg/s at 1.07x (want ~53)"
N=$(count_between "$T/out" "$DONE" $((DONE + 60000000000)))
[ "$N" = 0 ] || fail "$N messages arrived after q"
echo "ok: progress $P1% -> $P2%, paused at $S1 sent, $RA -> $RB msg/s, q exited in" \
	"$(((DONE - QUIT) / 1000000)) ms"
