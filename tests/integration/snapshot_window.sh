#!/bin/sh
# --snapshot-window and --snapshot-topic-cache with real bagtop and tpub
# processes, DDS domains 187 and 60. Four 50 Hz topics, one snapshot (SIGUSR1 at
# T, 3 s after they started):
#   /wa  --snapshot-window /wa=1.5       1.5 s before, --snapshot-post's 0.5 s after
#   /wb  --snapshot-window /wb=1:0       1 s before, nothing after
#   /wc  --snapshot-window 'rt/w[c]=0:0.8'  nothing before, 0.8 s after (a regex)
#   /wd  --snapshot-window /wd=1.5:0 and --snapshot-topic-cache /wd=20K:
#        1000-byte messages, so its own 20 KiB hold about 0.4 s: cut short
# and a catch-all '/w.*=0.2:0' given last, which matches them all but
# never wins (the first matching rule does). A second bagtop records every
# message in ordinary mode alongside: its receive times say which
# publisher sequence numbers fall inside each window. T (the trigger) is
# known to within its latency: T0 (just before the signal) <= T <= T1 (the
# log file's time of "snapshot 1 started", to the ms). The snapshot must hold exactly
# each topic's sequence numbers inside its window; only a message within
# T1 - T0 + 10 ms of a window's edge (in flight there, or stamped a few ms
# apart by the two recorders) may go either way. Each topic's messages are
# consecutive and in receive order. /wd's coverage is in the log line and
# in `info -v` (custom_data snapshot_coverage.FILE). Bad input: usage
# errors (exit 2). Last, a topic cache bounds the RSS (see there).
set -u
B=${BAGTOP_BIN:?}
P=${BAGTOP_TPUB:?}
# shellcheck source=proc_lib.sh
. "${BAGTOP_SOURCE_DIR:?}/tests/integration/proc_lib.sh"
proc_scratch snapwin

# ---- bad input ----
usage() { # ARGS...: exit 2 with one line naming the option
	usage_error snapshot record -a -o "$T/usage" "$@"
}
for a in /a=-1 /a=x /a=1:x /a=1:-1 /a=90000 /a=1:86401 /a=0:0 /a= =1 /a /a=1:2:3 '(=1'; do
	usage --snapshot-mode --snapshot-window "$a"
done
usage --snapshot-mode --snapshot-window /a=1 --snapshot-window /a=2
usage --snapshot-mode --snapshot-window /a=1:0 --snapshot-window /a=1
for a in /a=0 /a=x /a=-5 /a=2T /a= /a; do
	usage --snapshot-mode --snapshot-topic-cache "$a"
done
usage --snapshot-mode --max-cache-size 1M --snapshot-topic-cache /a=2M
usage --snapshot-mode --snapshot-topic-cache /a=1M --snapshot-topic-cache /a=2M
usage --snapshot-window /a=1
usage --snapshot-topic-cache /a=1M
[ ! -e "$T/usage" ] || fail "a usage error left a bag"
# the same rule twice is no contradiction (checked by the run below)

# ---- one snapshot, four windows ----
record_bg "$T/all.log" -a --domain 187 -o "$T/all"
all=$rec
record_bg "$T/rec.log" -a --domain 187 -o "$T/bag" \
	--snapshot-mode --snapshot-post 0.5 --snapshot-duration 10 \
	--snapshot-window /wa=1.5 --snapshot-window /wb=1:0 --snapshot-window 'rt/w[c]=0:0.8' \
	--snapshot-window /wd=1.5:0 --snapshot-window /wb=1:0 --snapshot-window '/w.*=0.2:0' \
	--snapshot-topic-cache /wd=20K --log-file "$T/full.txt"
for t in wa wb wc; do
	"$P" --domain 187 --topic "rt/$t" --type string --count 250 --rate 50 \
		--wait-readers 2 >"$T/pub_$t.log" 2>&1 &
	eval "pub_$t=\$!"
done
"$P" --domain 187 --topic rt/wd --type string --size 1000 --count 250 --rate 50 \
	--wait-readers 2 >"$T/pub_wd.log" 2>&1 &
pub_wd=$!
wait_for "$T/full.txt" 'snapshot window of /wd' 100
sleep 3
T0=$(date +%s%N)
kill -USR1 "$rec"
wait_for "$T/full.txt" 'snapshot 1 started' 20
# the log file's time of "snapshot 1 started" (ms, so + 1 ms) bounds T
T1=$(date -d "$(grep -m1 'snapshot 1 started' "$T/full.txt" | cut -d' ' -f1)" +%s%N) ||
	fail "no time on the log line"
T1=$((T1 + 1000000))
wait_for "$T/rec.log" 'snapshot 1: ' 100
for p in "$pub_wa" "$pub_wb" "$pub_wc" "$pub_wd"; do wait "$p" || fail "a tpub failed"; done
stop_wait "$rec" 300
cat "$T/rec.log"
grep "snapshot window" "$T/full.txt"
[ "$rc" = 0 ] || fail "record exit $rc"
stop_wait "$all" 300
RECS=""
[ "$rc" = 0 ] || fail "the ordinary record exit $rc"
grep -q 'snapshot window of /wa: 1.5 s before, 0.5 s after$' "$T/full.txt" ||
	fail "/wa: not its window with --snapshot-post's after"
grep -q 'snapshot window of /wd: 1.5 s before, 0 s after, 20.* KiB$' "$T/full.txt" ||
	fail "/wd: not its window and cache"

db=$(ls "$T"/bag/*.db3 | head -1)
q="select t.name, m.timestamp, cast(substr(m.data, 15, 12) as text) from messages m
   join topics t on t.id = m.topic_id order by m.id"
sqlite3 -separator ' ' "$db" "$q" | tr -d 'x' >"$T/msgs" || fail "sqlite3"
sqlite3 -separator ' ' "$(ls "$T"/all/*.db3 | head -1)" "$q" | tr -d 'x' >"$T/all_msgs" ||
	fail "sqlite3 (all)"
lat=$(((T1 - T0) / 1000000))
echo "T0 $T0 T1 $T1 (trigger latency bound $lat ms)"
# per topic in the snapshot: count, first/last seq, first/last receive
# time - T0 (ms); "gap" for a missing sequence number, "order" for a
# receive time going back
awk -v t0="$T0" '
	{ n[$1]++; s = $3 + 0; ms = ($2 - t0) / 1e6
	  if (!($1 in f)) { f[$1] = s; ft[$1] = ms } else if (s != l[$1] + 1) print "gap", $1, l[$1], s
	  if ($2 < prev) print "order", $1, $2
	  prev = $2; l[$1] = s; lt[$1] = ms }
	END { for (k in n) printf "%s %d %d %d %.0f %.0f\n", k, n[k], f[k], l[k], ft[k], lt[k] }' \
	"$T/msgs" | sort >"$T/per"
cat "$T/per"
grep -q '^gap\|^order' "$T/per" && fail "a missing message or out of receive order"
# each ordinary-mode message against its topic's window [T - BEFORE, T + AFTER]
# (ms from T0): "missing" inside but not in the snapshot, "extra" outside
# but in it, unless within lat + 10 ms of an edge
awk -v t0="$T0" -v u="$((lat + 10))" '
	BEGIN { lo["/wa"] = -1500; hi["/wa"] = 500; lo["/wb"] = -1000; hi["/wb"] = 0
		lo["/wc"] = 0; hi["/wc"] = 800 }
	NR == FNR { snap[$1 " " ($3 + 0)] = 1; next }
	!($1 in lo) { next }
	{ ms = ($2 - t0) / 1e6; k = $1 " " ($3 + 0)
	  if ((ms >= lo[$1] - 10 && ms <= lo[$1] + u) || (ms >= hi[$1] - 10 && ms <= hi[$1] + u)) {
		edge[$1]++; next }
	  inside = ms > lo[$1] + u && ms < hi[$1] - 10
	  if (inside) want[$1]++
	  if (inside && !(k in snap)) print "missing", k, ms
	  if (!inside && (k in snap)) print "extra", k, ms }
	END { for (t in lo) print "window", t, want[t] + 0, "inside,", edge[t] + 0, "at the edges" }' \
	"$T/msgs" "$T/all_msgs" >"$T/check"
cat "$T/check"
grep -q '^missing\|^extra' "$T/check" && fail "a window is not exact"
[ "$(awk '$1 == "window" && $3 >= 30 {n++} END {print n + 0}' "$T/check")" = 3 ] ||
	fail "a window with fewer than 30 messages: the check proves little"
# /wd: its own 20 KiB hold 20 messages of 1000 bytes (+ CDR header): the
# 1.5 s window is cut short to about 0.4 s, and said so
c=$(awk '$1 == "/wd" {print $2}' "$T/per")
[ "$c" -ge 17 ] && [ "$c" -le 20 ] || fail "/wd: $c messages, want 17..20 (its own 20 KiB)"
v=$(awk '$1 == "/wd" {print $6}' "$T/per")
[ "$v" -ge -30 ] && [ "$v" -le "$lat" ] || fail "/wd: last message at $v ms from T0"
line=$(grep 'snapshot 1: windows cut short by memory: ' "$T/rec.log") ||
	fail "no coverage line"
echo "$line" | grep -q '/wd: before 0.[34][0-9]* s of 1.5 s (2[0-9]%)$' ||
	fail "coverage line: $line"
echo "$line" | grep -q '/w[abc]' && fail "a complete window reported as cut short"
"$B" info -v "$T/bag" >"$T/info" || fail "info -v"
grep -q "snapshot_coverage.$(basename "$db"): /wd: before 0.[34][0-9]* s of 1.5 s" "$T/info" ||
	{ cat "$T/info"; fail "info -v: no snapshot_coverage"; }
"$B" check "$T/bag" >/dev/null || fail "check"

# ---- a topic's own cache bounds the memory it takes (domain 60) ----
# 60 MB of 100 kB messages on /big in 3 s, --snapshot-topic-cache /big=4M
# under a global --max-cache-size 500M that would hold them all: the
# recorder's RSS grows by that 4 MiB and its overhead, not by 60 MB; the
# snapshot holds the last 4 MiB (41 or 42 messages, the last one sent).
# Not under the sanitizers: ASan's quarantine keeps freed memory resident.
record_bg "$T/rss.log" /big --domain 60 -o "$T/rss" --snapshot-mode --snapshot-duration 60 \
	--max-cache-size 500M --snapshot-topic-cache /big=4M
rss0=$(awk '/^VmRSS/ {print $2}' "/proc/$rec/status")
tpub_run "$T/pub_big.log" --domain 60 --topic rt/big --type string --size 100000 --count 600 \
	--rate 200 --wait-readers 1
sleep 0.5
rss1=$(awk '/^VmRSS/ {print $2}' "/proc/$rec/status")
echo "RSS with 60 MB through a 4 MiB topic cache: $rss0 -> $rss1 KiB"
kill -USR1 "$rec"
wait_for "$T/rss.log" 'snapshot 1: ' 100
stop_wait "$rec" 300
[ "$rc" = 0 ] || fail "record (rss) exit $rc"
n=$(topic_count "$T/rss" /big)
[ "$n" -ge 41 ] && [ "$n" -le 42 ] || fail "/big: $n messages in the snapshot, want 41 or 42 (4 MiB)"
if [ -n "${BAGTOP_SANITIZE:-}" ]; then
	echo "SKIP (RSS only): a sanitizer build ($BAGTOP_SANITIZE)"
elif [ $((rss1 - rss0)) -gt 20480 ]; then
	fail "RSS grew by $((rss1 - rss0)) KiB with a 4 MiB topic cache"
fi
echo ok
