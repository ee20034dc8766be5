#!/bin/sh
# `bagtop snapshot --pid P` with trigger parameters, real bagtop and tpub
# processes, DDS domain 217. Three 50 Hz topics /pa /pb /pc, a recorder
# with --snapshot-duration 10 --snapshot-post 2:
#   1. --before 1 --after 1.5 --topics /pa,rt/pb --exclude /pb (3 s after
#      the start): only /pa, about 2.5 s of it (50 Hz: 125), not the
#      configured 3 + 2 s (250); its sequence numbers consecutive
#   2. a second trigger 0.3 s later, while 1 collects its after-window:
#      refused (exit 1, "still being written")
#   3. --exclude /pa --after 0: /pb and /pc, no /pa; /pb was left out of
#      1, so its messages stayed buffered: all of them since the start
# A second recorder with --queue-triggers records the same publishers:
#   4. --after 1 --topics /pa, and 0.3 s later
#   5. --topics /pc --before 0.5 --after 0: waits until 4 is written, then
#      runs: its own file, /pc alone, about 0.5 s (25)
# Bad input: usage errors (exit 2, one line).
set -u
B=${BAGTOP_BIN:?}
P=${BAGTOP_TPUB:?}
# shellcheck source=proc_lib.sh
. "${BAGTOP_SOURCE_DIR:?}/tests/integration/proc_lib.sh"
proc_scratch snapparams

# ---- bad input ----
usage_error "" snapshot --pid 1 --before -1
usage_error "" snapshot --pid 1 --after x
usage_error "" snapshot --pid 1 --before 90000
usage_error "" snapshot --pid 1 --topics ''
usage_error "" snapshot --pid 1 --exclude ''
usage_error "" snapshot --pid 1 --bogus
usage_error "" snapshot --before 1
"$B" record -a -o "$T/u_bag" --queue-triggers >"$T/u" 2>&1
[ "$?" = 2 ] || { cat "$T/u"; fail "--queue-triggers without --snapshot-mode: not a usage error"; }
"$B" snapshot --help | grep -q -- '--exclude LIST' || fail "--help: no --exclude"

"$B" record -a --domain 217 -o "$T/bag" --no-tui --disable-keyboard-controls \
	--snapshot-mode --snapshot-duration 10 --snapshot-post 2 \
	--log-file "$T/full.txt" >"$T/rec.log" 2>&1 &
REC=$!
"$B" record -a --domain 217 -o "$T/bagq" --no-tui --disable-keyboard-controls \
	--snapshot-mode --snapshot-duration 10 --snapshot-post 2 --queue-triggers \
	--log-file "$T/fullq.txt" >"$T/recq.log" 2>&1 &
RECS=$!
wait_for "$T/rec.log" '^Recording to' 200
wait_for "$T/recq.log" '^Recording to' 200
for t in pa pb pc; do
	"$P" --domain 217 --topic "rt/$t" --type string --count 450 --rate 50 \
		--wait-readers 2 >"$T/pub_$t.log" 2>&1 &
done
wait_for "$T/full.txt" 'recording /pc' 100
wait_for "$T/fullq.txt" 'recording /pc' 100
sleep 3
"$B" snapshot --pid "$REC" --before 1 --after 1.5 --topics /pa,rt/pb --exclude /pb \
	>"$T/s1.out" 2>"$T/s1.err" &
S1=$!
sleep 0.3
"$B" snapshot --pid "$REC" >"$T/s2.out" 2>"$T/s2.err"
r=$?
[ "$r" = 1 ] || { cat "$T/s2.out" "$T/s2.err"; fail "second trigger: exit $r, want 1"; }
grep -q 'still being written' "$T/s2.err" || { cat "$T/s2.err"; fail "second trigger: reason"; }
wait "$S1" || { cat "$T/s1.err"; fail "snapshot 1 failed"; }
"$B" snapshot --pid "$RECS" --after 1 --topics /pa >"$T/s4.out" 2>"$T/s4.err" &
S4=$!
sleep 0.3
"$B" snapshot --pid "$RECS" --topics /pc --before 0.5 --after 0 >"$T/s5.out" 2>"$T/s5.err" ||
	{ cat "$T/s5.err"; fail "queued trigger: failed"; }
wait "$S4" || { cat "$T/s4.err"; fail "snapshot 4 failed"; }
grep -q 'snapshot queued' "$T/recq.log" || fail "the queued trigger is not said"
stop_wait "$RECS" 300
RECS=""
[ "$rc" = 0 ] || fail "record --queue-triggers exit $rc"
"$B" snapshot --pid "$REC" --exclude /pa --after 0 >"$T/s3.out" 2>"$T/s3.err" ||
	{ cat "$T/s3.err"; fail "snapshot 3 failed"; }
stop_wait "$REC" 300
REC=""
[ "$rc" = 0 ] || fail "record exit $rc"

# per topic: count, first and last sequence number, gaps
per() {
	sqlite3 -separator ' ' "$1" "select t.name, cast(substr(m.data, 15, 12) as text)
		from messages m join topics t on t.id = m.topic_id where t.name like '/p%'
		order by m.id" | tr -d 'x' |
	awk '{ n[$1]++; s = $2 + 0
	       if (($1 in l) && s != l[$1] + 1) print "gap", $1, l[$1], s
	       if (!($1 in f)) f[$1] = s; l[$1] = s }
	     END { for (k in n) printf "%s %d %d %d\n", k, n[k], f[k], l[k] }' | sort
}
# snapshots A B: the files the snapshot calls A and B named (sA.out, sB.out)
# are two files; their figures (per) in perA and perB, and in the log
snapshots() {
	fa=$(cat "$T/s$1.out")
	fb=$(cat "$T/s$2.out")
	[ -f "$fa" ] && [ -f "$fb" ] && [ "$fa" != "$fb" ] ||
		fail "snapshot files $1, $2: '$fa' '$fb'"
	per "$fa" >"$T/per$1"
	per "$fb" >"$T/per$2"
	echo "snapshot $1:"; cat "$T/per$1"; echo "snapshot $2:"; cat "$T/per$2"
}
# topics_are N "/a /b ": snapshot N holds these topics and no other
topics_are() {
	[ "$(cut -d' ' -f1 "$T/per$1" | tr '\n' ' ')" = "$2" ] || fail "snapshot $1: not '$2' alone"
}
snapshots 1 3
grep -q '^gap' "$T/per1" "$T/per3" && fail "a missing message"
topics_are 1 "/pa "
c=$(awk '$1 == "/pa" {print $2}' "$T/per1")
# 2.5 s at 50 Hz, give or take the trigger's latency and the timer's jitter
[ "$c" -ge 115 ] && [ "$c" -le 135 ] || fail "snapshot 1: $c messages of /pa, want 125 +- 10"
topics_are 3 "/pb /pc "
# /pb: from its first message on (left out of snapshot 1, still buffered)
[ "$(awk '$1 == "/pb" {print $3}' "$T/per3")" -le 2 ] || fail "snapshot 3: /pb's start missing"
snapshots 4 5 # 5 was queued
topics_are 4 "/pa "
topics_are 5 "/pc "
c=$(awk '$1 == "/pc" {print $2}' "$T/per5")
[ "$c" -ge 20 ] && [ "$c" -le 30 ] || fail "snapshot 5: $c messages of /pc, want 25 +- 5"
"$B" check "$T/bagq" >/dev/null || fail "check (queued)"
"$B" check "$T/bag" >/dev/null || fail "check"
echo ok
