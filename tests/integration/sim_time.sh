#!/bin/sh
# record --use-sim-time with real processes, DDS domains 220..222: a
# simulation clock from `bagtop play --clock 200` of a demo bag (its /clock
# is the bag's time, recorded earlier), and its /chatter beside it: every
# /chatter message recorded with --use-sim-time is stamped within 100 ms
# of the time it had in the demo bag (the same message, found by its
# bytes), where the wall clock stands seconds later; the bag played twice
# (simulation time goes back when the second play starts, which is said),
# so all of the 2 x 20-odd but at most 2 (the first of a play may come
# before its /clock, as with rosbag2); a plain recorder beside it stamps
# them with the wall clock.
# Without a /clock publisher (domain 222): nothing recorded, nothing
# counted lost, and after 5 s a warning says why.
set -u
B=${BAGTOP_BIN:?}
P=${BAGTOP_TPUB:?}
# shellcheck source=proc_lib.sh
. "${BAGTOP_SOURCE_DIR:?}/tests/integration/proc_lib.sh"
proc_scratch sim-time
command -v sqlite3 >/dev/null || { echo "no sqlite3: skipped"; exit 77; }

# rows "hex(data) timestamp" of /chatter
rows() {
	sqlite3 -separator ' ' "$1"/*_0.db3 "SELECT hex(m.data), m.timestamp FROM messages m \
		JOIN topics t ON m.topic_id = t.id WHERE t.name = '/chatter' ORDER BY m.timestamp" ||
		fail "sqlite3 $1"
}

"$B" demo --no-tui --disable-keyboard-controls --duration 2 --domain 220 -o "$T/demo" \
	>"$T/demo.out" 2>&1 || { cat "$T/demo.out"; fail "demo"; }
rows "$T/demo" >"$T/want"
want=$(wc -l <"$T/want")
[ "$want" -ge 15 ] || { cat "$T/want"; fail "the demo bag has too few /chatter"; }

record_bg "$T/sim.out" /chatter --use-sim-time --log-level info --domain 221 -o "$T/sim"
sim=$rec
record_bg "$T/wall.out" /chatter --domain 221 -o "$T/wall"
wall=$rec
sleep 1
wall_start=$(date +%s%N)
# twice: the second play's /clock (from its -d on) goes back to the bag's start
for pass in 1 2; do
	"$B" play "$T/demo" --clock 200 --topics /chatter --no-tui --disable-keyboard-controls \
		--domain 221 -d 1 >"$T/play.out" 2>&1 || { cat "$T/play.out"; fail "play $pass"; }
done
sleep 1
stop_wait "$sim" 300
[ "$rc" = 0 ] || { cat "$T/sim.out"; fail "record --use-sim-time exit $rc"; }
stop_wait "$wall" 300
[ "$rc" = 0 ] || { cat "$T/wall.out"; fail "record exit $rc"; }
cat "$T/sim.out"
grep -q "info: /clock: simulation time started at" "$T/sim.out" ||
	fail "the start of simulation time is not said"
grep -q "warning: /clock: simulation time went back from" "$T/sim.out" ||
	fail "the second pass's step back is not said"

rows "$T/sim" >"$T/got"
n=$(wc -l <"$T/got")
[ "$n" -ge $((2 * want - 2)) ] ||
	{ cat "$T/got"; fail "$n of 2 x $want /chatter messages recorded with --use-sim-time"; }
# each recorded message: the demo bag's time of the same bytes, within 100 ms
awk 'NR == FNR { t[$1] = $2; next }
	!($1 in t) { print "not in the demo bag: " $1; bad = 1; next }
	{ d = $2 - t[$1]; if (d < 0) d = -d; if (d > 100000000) { print "off by " d " ns"; bad = 1 } }
	END { exit bad }' "$T/want" "$T/got" || fail "--use-sim-time stamps are not the bag's times"
echo "--use-sim-time: $n of 2 x $want messages, each within 100 ms of its bag time"
# the plain recorder: wall-clock stamps, after the play started
rows "$T/wall" >"$T/wallrows"
first=$(head -n 1 "$T/wallrows" | cut -d' ' -f2)
[ -n "$first" ] && [ "$first" -ge "$wall_start" ] ||
	fail "the plain recorder's first stamp $first is before the play ($wall_start)"

# ---- no /clock: nothing recorded, nothing lost, a warning ----
record_bg "$T/none.out" /c --use-sim-time --domain 222 -o "$T/none"
none=$rec
sleep 1
"$P" --domain 222 --topic rt/c --type string --count 20 --rate 20 --wait-readers 1 \
	>"$T/tpub.out" 2>&1 || { cat "$T/tpub.out"; fail "tpub"; }
wait_for "$T/none.out" 'no /clock time yet' 100
stop_wait "$none" 300
[ "$rc" = 0 ] || { cat "$T/none.out"; fail "record exit $rc"; }
cat "$T/none.out"
grep -q "^Recorded 0 messages .* lost 0 in transport, 0 in the recorder" "$T/none.out" ||
	fail "without /clock: not 0 recorded and 0 lost"
grep -q "warning: --use-sim-time: no /clock time yet: nothing recorded until one comes" \
	"$T/none.out" || fail "without /clock: no warning"
grep -q '^\[[0-9:]*\] WAITING FOR /clock 1/1 topic' "$T/none.out" ||
	fail "without /clock: the status lines do not say WAITING FOR /clock"
echo "ok"
