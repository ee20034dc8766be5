#!/bin/sh
# bagtop play against bagtop record, real processes on DDS domains 2..4,
# 19 and 87:
# the demo recorded (every type, a keyed plain DDS topic, transient-local
# /map and /tf_static, best-effort /scan), then played while a second
# recorder records it: every message's payload identical (SHA3 of each),
# per-topic order identical, each message's offset from the start within
# 5 ms of the recorded one at p99 (the start: the median difference, so
# one late first message does not shift them all; judged in the plain
# build, printed in a sanitizer one), plus what this machine
# could not do itself meanwhile, twice: the p99 of a bare sleep-to-deadline
# loop at 1 kHz run beside the player (sleep_jitter; ~0.1 ms on a quiet
# machine, 5-10 ms while other jobs load both cores), once for the
# player's wake-up and once for the recorder's; a recorder that joins
# after the transient-local messages went out still records them (in a play
# of its own: a bagtop starting on the 2 cores while the offsets are taken
# delayed them by 10-15 ms under ThreadSanitizer, which is the start-up's
# cost, not the player's); --rate 2 halves the bag's duration (±5 %); and
# with --wait-for-subscribers nothing goes out until a recorder started 2 s
# after the player matched every topic, which then records every message.
set -u
B=${BAGTOP_BIN:?}
J=${BAGTOP_SLEEP_JITTER:?}
# shellcheck source=../integration/proc_lib.sh
. "${BAGTOP_SOURCE_DIR:?}/tests/integration/proc_lib.sh"
proc_scratch play-rt
command -v sqlite3 >/dev/null || { echo "no sqlite3: skipped"; exit 77; }

# rows "topic ns sha3" in receive order
rows() {
	sqlite3 -separator ' ' "$1"/*_0.db3 "SELECT t.name, m.timestamp, hex(sha3(m.data)) FROM \
		messages m JOIN topics t ON m.topic_id = t.id ORDER BY m.timestamp, m.id" ||
		fail "sqlite3 $1"
}
span() { # last - first timestamp, ns
	sqlite3 "$1"/*_0.db3 "SELECT max(timestamp) - min(timestamp) FROM messages"
}

"$B" demo --no-tui --disable-keyboard-controls --duration 3 --domain 2 -o "$T/demo" \
	>"$T/demo.out" 2>&1 || { cat "$T/demo.out"; fail "demo"; }

# ---- the round trip ----
"$B" record -a --no-tui --disable-keyboard-controls --domain 3 -o "$T/rt" >"$T/rec.out" 2>&1 &
rec=$!
RECS="$RECS $rec"
wait_for "$T/rec.out" '^Recording to' 200
# -d: the recorder discovers the writers before the first message goes out
"$B" play "$T/demo" --domain 3 --no-tui -d 2 >"$T/play.out" 2>&1 &
play=$!
RECS="$RECS $play"
wait_for "$T/play.out" '^Playing' 200
"$J" 1000 4 >"$T/jitter.out" 2>&1 & # the delay (2 s) and most of the 3 s bag
jit=$!
RECS="$RECS $jit"
exit_wait "$play" 300
[ "$rc" = 0 ] || { cat "$T/play.out"; fail "play exit $rc"; }
wait "$jit" || { cat "$T/jitter.out"; fail "sleep_jitter"; }
cat "$T/play.out"
sleep 1
stop_wait "$rec" 300
[ "$rc" = 0 ] || { cat "$T/rec.out"; fail "record exit $rc"; }

rows "$T/demo" >"$T/a"
rows "$T/rt" >"$T/b"
for t in $(cut -d' ' -f1 "$T/a" | sort -u); do
	grep "^$t " "$T/a" | cut -d' ' -f3 >"$T/ha"
	grep "^$t " "$T/b" | cut -d' ' -f3 >"$T/hb"
	cmp -s "$T/ha" "$T/hb" ||
		fail "$t: payloads or order differ ($(wc -l <"$T/ha") recorded, $(wc -l <"$T/hb") played)"
done
echo "payloads and order identical: $(wc -l <"$T/a") messages"
# offsets: per topic the i-th message of each bag, b - a, around the median
for t in $(cut -d' ' -f1 "$T/a" | sort -u); do
	grep "^$t " "$T/a" | cut -d' ' -f2 >"$T/ta"
	grep "^$t " "$T/b" | cut -d' ' -f2 >"$T/tb"
	paste -d' ' "$T/ta" "$T/tb"
done | awk '{print $2 - $1}' | sort -n >"$T/diff"
n=$(wc -l <"$T/diff")
med=$(sed -n "$(((n + 1) / 2))p" "$T/diff")
p99=$(awk -v m="$med" '{d = $1 - m; if (d < 0) d = -d; print d}' "$T/diff" | sort -n |
	sed -n "$(((n * 99 + 99) / 100))p")
echo "offsets: $n messages, p99 $(awk -v x="$p99" 'BEGIN {printf "%.3f", x / 1e6}') ms"
jp99=$(sed -n 's/.* p99 \([0-9]*\) us.*/\1/p' "$T/jitter.out")
[ -n "$jp99" ] || { cat "$T/jitter.out"; fail "no p99 from sleep_jitter"; }
cat "$T/jitter.out"
# Each offset passes two wake-ups the machine delays as it delays the
# bare loop: the player's timer and the recorder's receive thread. One
# CI run's plain suite: the loop p99 5.7 ms (max 27 ms, nothing else
# running), the player's own p99 lateness 4.6 ms, the offsets' p99 12.9
# ms: the recorder's share was the rest.
bound=$((5000000 + 2 * jp99 * 1000))
# Not judged under the sanitizers (printed above): the bound is the
# product's, and a ThreadSanitizer player and recorder on the 2 cores
# missed it with the code that passed it before (p99 8-11 ms, the
# player's own p99 lateness 3-3.5 ms); the plain build judges it.
if [ -n "${BAGTOP_SANITIZE:-}" ]; then
	echo "SKIP (offsets only): a sanitizer build ($BAGTOP_SANITIZE)"
elif [ "$p99" -gt "$bound" ]; then
	fail "offset p99 $p99 ns > 5 ms + twice the machine's own p99 lateness ($jp99 us)"
fi
# ---- a late transient-local subscriber ----
"$B" play "$T/demo" --domain 87 --no-tui -d 2 >"$T/lplay.out" 2>&1 &
play=$!
RECS="$RECS $play"
wait_for "$T/lplay.out" '^Playing' 200
sleep 3 # /map and /tf_static went out at the start (after the delay)
"$B" record /map /tf_static --no-tui --disable-keyboard-controls --domain 87 -o "$T/late" \
	>"$T/late.out" 2>&1 &
late=$!
RECS="$RECS $late"
exit_wait "$play" 300
[ "$rc" = 0 ] || { cat "$T/lplay.out"; fail "play (late subscriber) exit $rc"; }
stop_wait "$late" 300
[ "$rc" = 0 ] || { cat "$T/late.out"; fail "late record exit $rc"; }
rows "$T/late" >"$T/l"
grep -E '^/(map|tf_static) ' "$T/a" | awk '{print $1, $3}' | sort >"$T/tl_want"
awk '{print $1, $3}' "$T/l" | sort >"$T/tl_got"
cmp -s "$T/tl_want" "$T/tl_got" || { cat "$T/late.out"; fail "the late subscriber did not get \
the transient-local messages: $(cat "$T/tl_got")"; }
echo "late subscriber: $(wc -l <"$T/tl_got") transient-local messages"

# ---- --rate 2 ----
"$B" record -a --no-tui --disable-keyboard-controls --domain 4 -o "$T/r2" >"$T/r2.out" 2>&1 &
rec=$!
RECS="$RECS $rec"
wait_for "$T/r2.out" '^Recording to' 200
# (with ros2 bag play's --disable-loan-message, accepted and unused)
"$B" play "$T/demo" --domain 4 --no-tui -d 2 -r 2 --disable-loan-message >"$T/p2.out" 2>&1 ||
	{ cat "$T/p2.out"; fail "play -r 2"; }
sleep 1
stop_wait "$rec" 300
a=$(span "$T/demo")
b=$(span "$T/r2")
echo "duration: recorded $a ns, played at rate 2: $b ns"
awk -v a="$a" -v b="$b" 'BEGIN {r = b / (a / 2); exit !(r > 0.95 && r < 1.05)}' ||
	fail "--rate 2: $b ns is not half of $a ns (±5 %)"

# ---- --wait-for-subscribers: the player first, a recorder 2 s later ----
"$B" play "$T/demo" --domain 19 --no-tui --wait-for-subscribers >"$T/wplay.out" 2>&1 &
play=$!
RECS="$RECS $play"
wait_for "$T/wplay.out" 'WAITING FOR SUBSCRIBERS .* 0/[0-9]* published' 200
sleep 1
! grep -q 'PLAYING' "$T/wplay.out" || { cat "$T/wplay.out"; fail "played with no subscriber"; }
"$B" record -a --no-tui --disable-keyboard-controls --domain 19 -o "$T/w" >"$T/w.out" 2>&1 &
rec=$!
RECS="$RECS $rec"
exit_wait "$play" 300
[ "$rc" = 0 ] || { cat "$T/wplay.out"; fail "play --wait-for-subscribers exit $rc"; }
sleep 1
stop_wait "$rec" 300
[ "$rc" = 0 ] || { cat "$T/w.out"; fail "record (started after the player) exit $rc"; }
want=$(wc -l <"$T/a")
got=$(rows "$T/w" | awk 'NR == FNR {t[$1] = 1; next} ($1 in t)' "$T/a" - | wc -l)
[ "$got" = "$want" ] || { cat "$T/wplay.out" "$T/w.out"; fail "--wait-for-subscribers: \
$got of $want messages recorded by a recorder started after the player"; }
grep -q 'of it waiting for subscribers' "$T/wplay.out" ||
	{ cat "$T/wplay.out"; fail "the summary does not say how long it waited"; }
echo "--wait-for-subscribers: $got of $want messages recorded, the recorder started after"
echo ok
