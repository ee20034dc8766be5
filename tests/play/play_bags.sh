#!/bin/sh
# bagtop play on every rosbag2 fixture (sqlite3 and MCAP; skipped visibly
# when ../shared is absent): the messages published equal `bagtop info`'s
# count. Damaged bags (DDS domain 6): a missing file plays the others and
# says so, --strict refuses it; a corrupt file plays what can be read and
# says so, --strict refuses before playing; a file that does not open:
# one line naming it, nothing played. A file that is there but cannot be
# read (a bad header: not a database, not MCAP), in sqlite3 and MCAP bags
# (domain 18): as a missing one, one line naming it, the other files
# played, the summary names it; --strict refuses. Usage errors exit 2.
# Domain 5.
set -u
B=${BAGTOP_BIN:?}
F=${BAGTOP_FIXTURES:-}
# shellcheck source=../integration/proc_lib.sh
. "${BAGTOP_SOURCE_DIR:?}/tests/integration/proc_lib.sh"
proc_scratch play-bags

play() { # play OUT ARGS...: bounded, status in $rc
	out=$1
	shift
	timeout -s KILL 30 "$B" play --no-tui --disable-keyboard-controls "$@" >"$out" 2>&1
	rc=$?
}
played() { awk '/^Played/ {print $2}' "$1"; }

# ---- the fixtures ----
if [ -z "$F" ] || [ ! -d "$F" ]; then
	echo "SKIPPED: no fixtures (../shared/fixtures/rosbag2)"
	fixtures=""
else
	fixtures="$F/*/ $(dirname "$F")/rosbag2-mcap/*/"
fi
n_bags=0
for d in $fixtures; do
	[ -d "$d" ] || continue
	want=$("$B" info "$d" | awk '/^Messages:/ {print $2}')
	play "$T/out" "$d" -r 1000000 --domain 5
	[ "$rc" = 0 ] || { cat "$T/out"; fail "$d: exit $rc"; }
	got=$(played "$T/out")
	[ "$got" = "$want" ] || { cat "$T/out"; fail "$d: played $got, info says $want"; }
	echo "ok $d: $got messages"
	n_bags=$((n_bags + 1))
done
[ -z "$fixtures" ] || [ "$n_bags" -ge 10 ] || fail "only $n_bags fixtures found"

# ---- damaged bags: one of bagtop's own, three files ----
"$B" demo --no-tui --disable-keyboard-controls --duration 2 --domain 6 -o "$T/d" \
	--max-bag-duration 0.7 >"$T/demo.out" 2>&1 || { cat "$T/demo.out"; fail "demo"; }
all=$("$B" info "$T/d" | awk '/^Messages:/ {print $2}')
f1=$(ls "$T/d" | grep '_1\.db3$')
[ -n "$f1" ] || { ls "$T/d"; fail "the demo bag has no second file"; }
in1=$(sqlite3 "$T/d/$f1" 'SELECT count(*) FROM messages')

# the options through the command line: a selection; a window played twice
n_chatter=$(sqlite3 "$T"/d/*_0.db3 "SELECT count(*) FROM messages m JOIN topics t ON \
	m.topic_id = t.id WHERE t.name = '/chatter'")
for f in "$T"/d/*_[1-9].db3; do
	n_chatter=$((n_chatter + $(sqlite3 "$f" "SELECT count(*) FROM messages m JOIN topics t \
		ON m.topic_id = t.id WHERE t.name = '/chatter'")))
done
play "$T/out" "$T/d" -r 100 --domain 6 --topics /chatter /imu -x '^/imu$' -m /chatter:=/talk
[ "$rc" = 0 ] && [ "$(played "$T/out")" = "$n_chatter" ] ||
	{ cat "$T/out"; fail "--topics/-x: not the $n_chatter /chatter messages"; }
t0=$(sqlite3 "$T"/d/*_0.db3 'SELECT min(timestamp) FROM messages')
in_win=0
for f in "$T"/d/*.db3; do
	in_win=$((in_win + $(sqlite3 "$f" "SELECT count(*) FROM messages WHERE timestamp \
		BETWEEN $t0 + 500000000 AND $t0 + 1000000000")))
done
play "$T/out" "$T/d" -r 100 --domain 6 --start-offset 0.5 --playback-duration 0.5 \
	--loop-count 2
[ "$rc" = 0 ] && [ "$(played "$T/out")" = $((2 * in_win)) ] ||
	{ cat "$T/out"; fail "window twice: not 2 x $in_win"; }

cp -r "$T/d" "$T/missing"
rm "$T/missing/$f1"
play "$T/out" "$T/missing" -r 1000 --domain 6
[ "$rc" = 0 ] || { cat "$T/out"; fail "missing file: exit $rc"; }
grep -q "$f1.*missing: playing what can be read" "$T/out" || { cat "$T/out"; fail "missing: no line"; }
[ "$(played "$T/out")" = $((all - in1)) ] || { cat "$T/out"; fail "missing: not the other files"; }
play "$T/out" "$T/missing" -r 1000 --domain 6 --strict
[ "$rc" = 1 ] || { cat "$T/out"; fail "missing --strict: exit $rc"; }
[ "$(wc -l <"$T/out")" = 1 ] && grep -q "$f1" "$T/out" || { cat "$T/out"; fail "missing --strict"; }

cp -r "$T/d" "$T/corrupt"
sz=$(stat -c %s "$T/corrupt/$f1")
dd if=/dev/zero of="$T/corrupt/$f1" bs=1024 seek=$((sz / 1024 / 2)) count=64 conv=notrunc \
	2>/dev/null
play "$T/out" "$T/corrupt" -r 1000 --domain 6
cat "$T/out"
[ "$rc" = 0 ] || fail "corrupt file: exit $rc"
grep -Eq "$f1.*playing what (could|can) be read" "$T/out" || fail "corrupt: no line naming $f1"
got=$(played "$T/out")
[ "$got" -gt 0 ] && [ "$got" -lt "$all" ] || fail "corrupt: played $got of $all"
play "$T/out" "$T/corrupt" -r 1000 --domain 6 --strict
[ "$rc" = 1 ] || { cat "$T/out"; fail "corrupt --strict: exit $rc"; }
grep -q "$f1.*nothing played" "$T/out" && ! grep -q '^Played' "$T/out" ||
	{ cat "$T/out"; fail "corrupt --strict played something"; }

# unreadable: one line naming the file, the others played, the summary
# names it; --strict refuses. BAG: the bag, F: the file spoilt, N: its count
unreadable() {
	bag=$1 f=$2 n=$3 total=$4
	printf 'garbage!garbage!' | dd of="$bag/$f" conv=notrunc 2>/dev/null
	play "$T/out" "$bag" -r 1000 --domain 18
	[ "$rc" = 0 ] || { cat "$T/out"; fail "$f unreadable: exit $rc"; }
	[ "$(grep -c "$f.*playing what can be read" "$T/out")" = 1 ] ||
		{ cat "$T/out"; fail "$f unreadable: not one line naming it"; }
	[ "$(played "$T/out")" = $((total - n)) ] ||
		{ cat "$T/out"; fail "$f unreadable: not the other files' $((total - n))"; }
	grep -q "^Skipped 1 file .*$f" "$T/out" || { cat "$T/out"; fail "$f: no summary line"; }
	play "$T/out" "$bag" -r 1000 --domain 18 --strict
	[ "$rc" = 1 ] && [ "$(wc -l <"$T/out")" = 1 ] && grep -q "$f.*nothing played" "$T/out" ||
		{ cat "$T/out"; fail "$f unreadable --strict: exit $rc"; }
	echo "ok unreadable $f: $((total - n)) of $total played"
}
cp -r "$T/d" "$T/badhdr"
unreadable "$T/badhdr" "$f1" "$in1" "$all"
"$B" demo --no-tui --disable-keyboard-controls --duration 2 --domain 18 -o "$T/m" -s mcap \
	--max-bag-duration 0.7 >"$T/demo.out" 2>&1 || { cat "$T/demo.out"; fail "demo -s mcap"; }
m1=$(ls "$T/m" | grep '_1\.mcap$')
[ -n "$m1" ] || { ls "$T/m"; fail "the MCAP demo bag has no second file"; }
m_all=$("$B" info "$T/m" | awk '/^Messages:/ {print $2}')
m_in1=$("$B" info "$T/m/$m1" | awk '/^Messages:/ {print $2}')
unreadable "$T/m" "$m1" "$m_in1" "$m_all"

mkdir "$T/trunc"
f0=$(ls "$T/d" | grep '_0\.db3$')
head -c 3000 "$T/d/$f0" >"$T/trunc/x.db3"
play "$T/out" "$T/trunc/x.db3" --domain 6
[ "$rc" = 1 ] && [ "$(wc -l <"$T/out")" = 1 ] && grep -q "x.db3.*nothing played" "$T/out" ||
	{ cat "$T/out"; fail "truncated: exit $rc"; }

# ---- a stop stops at once: SIGINT while playing slowly, SIGTERM while paused ----
for how in "INT -r 0.01" "TERM -p"; do
	sig=${how%% *}
	"$B" play "$T/d" --no-tui --disable-keyboard-controls --domain 6 ${how#* } \
		>"$T/stop.out" 2>&1 &
	pid=$!
	RECS="$RECS $pid"
	wait_for "$T/stop.out" '^Playing' 100
	sleep 0.5
	kill -"$sig" "$pid"
	exit_wait "$pid" 20 # 2 s
	[ "$rc" = 0 ] || { cat "$T/stop.out"; fail "SIG$sig: exit $rc"; }
	grep -q '^Played' "$T/stop.out" || { cat "$T/stop.out"; fail "SIG$sig: no summary"; }
done

# ---- usage errors ----
usage() {
	play "$T/out" "$T/d" --domain 6 "$@"
	[ "$rc" = 2 ] && [ "$(wc -l <"$T/out")" = 1 ] || { cat "$T/out"; fail "$*: exit $rc"; }
}
usage --topics /nope
usage /chatter /nope
usage -m /chatter
usage --remap :=/x
usage -r 0
usage --loop-count 0
usage --clock 0
usage --clock 10 --clock-topics /chatter
usage --clock-topics /nope
usage --clock-topics /chatter --clock-topics-all
usage --services nosvc
usage --log-level loud
usage --start +5 --end +1
printf '/chatter:\n  reliability: bogus\n' >"$T/q.yaml"
usage --qos-profile-overrides-path "$T/q.yaml"
echo ok
