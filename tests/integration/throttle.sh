#!/bin/sh
# --throttle with real bagtop and tpub processes, DDS domains 90 and 91:
# a 200 Hz topic throttled to 10 Hz records 10 +- 1 a second (per-second
# buckets of the recorded receive times over the full seconds, at least 3),
# evenly (no gap under 50 ms); the rest is counted as throttled, not lost;
# recorded + throttled = published; an unthrottled topic alongside records
# everything; the first of two matching rules wins; `bagtop stats`, the
# bag's metadata and `info -v` say throttled apart from the losses. A byte rate (a regex
# on the DDS name) holds its bytes a second. Bad input: usage errors.
set -u
B=${BAGTOP_BIN:?}
P=${BAGTOP_TPUB:?}
# shellcheck source=proc_lib.sh
. "${BAGTOP_SOURCE_DIR:?}/tests/integration/proc_lib.sh"
proc_scratch throttle

for a in /imu=0Hz /imu=0.0Hz /imu=-1Hz /imu=2000000000Hz /imu=1e3Hz /imu=0MB/s \
	/imu=10 /imu /imu= =10Hz /imu=fastHz '/imu[=10Hz' '(=1Hz'; do
	usage_error --throttle record -a -o "$T/usage" --throttle "$a"
done
[ ! -e "$T/usage" ] || fail "a usage error left a bag"

# ---- a message rate ----
record_bg "$T/out" -a --domain 90 -o "$T/hz" --throttle /imu=10Hz --throttle '/im.*=1Hz'
"$P" --domain 90 --topic rt/imu --type string --count 1000 --rate 200 \
	--wait-readers 1 >"$T/pub1" 2>&1 &
p1=$!
tpub_run "$T/pub2" --domain 90 --topic rt/other --type string --count 500 --rate 100 \
	--wait-readers 1
wait "$p1" || { cat "$T/pub1"; fail "tpub imu"; }
sleep 2 # a statistics sample (1 Hz) after the last message
# the live statistics: throttled per topic and in the totals, not a loss
"$B" stats --domain 90 --json --timeout 10 >"$T/stats" 2>&1 || { cat "$T/stats"; fail "stats"; }
"$B" stats --domain 90 --timeout 10 >"$T/stats_table" 2>&1 || fail "stats (table)"
stop_wait "$rec" 600
cat "$T/out"
[ "$rc" = 0 ] || fail "record exit $rc"
grep -q 'LOST' "$T/out" && fail "a LOST line: throttled is no loss"
grep -q 'lost 0 in transport, 0 in the recorder; throttled [0-9]* (--throttle, not lost)' \
	"$T/out" || fail "the summary does not say throttled apart from the losses"
line=$(grep '^  /imu ' "$T/out")
rec_imu=$(echo "$line" | awk '{print $2}')
thr_imu=$(echo "$line" | awk '{print $10}')
echo "/imu: recorded $rec_imu, throttled $thr_imu"
echo "$line" | grep -q 'lost 0 transport, 0 recorder  throttled' || fail "/imu: $line"
[ $((rec_imu + thr_imu)) = 1000 ] || fail "recorded + throttled = $((rec_imu + thr_imu)), want 1000"
# 5 s at 10 Hz: 50, give or take the edges
[ "$rec_imu" -ge 45 ] && [ "$rec_imu" -le 56 ] || fail "/imu recorded $rec_imu, want about 50"
grep -q '^  /other  *500 recorded  lost 0 transport, 0 recorder$' "$T/out" ||
	fail "the unthrottled topic did not record all 500"
db="$T/hz/hz_0.db3"
q="select timestamp from messages m join topics t on t.id = m.topic_id where t.name = '/imu' order by timestamp"
sqlite3 "$db" "$q" >"$T/ts" || fail "sqlite3"
# per-second buckets from the first message; the last one is partial
awk 'NR == 1 {t0 = $1} {b = int(($1 - t0) / 1e9); n[b]++; if (b > last) last = b}
	NR > 1 && $1 - prev < 50e6 {print "gap", $1 - prev} {prev = $1}
	END {for (i = 0; i < last; i++) print "second", i, n[i] + 0}' "$T/ts" >"$T/buckets"
cat "$T/buckets"
[ "$(grep -c '^second' "$T/buckets")" -ge 3 ] || fail "fewer than 3 full seconds"
awk '$1 == "second" && ($3 < 9 || $3 > 11) {bad = 1} END {exit bad}' "$T/buckets" ||
	fail "a second outside 10 +- 1"
grep -q '^gap' "$T/buckets" && fail "two recorded messages closer than 50 ms: not evenly spread"
# the bag's statistics: throttled beside the losses, which are 0
md="$T/hz/metadata.yaml"
grep -q "^ *throttled: $thr_imu\$" "$md" || fail "metadata.yaml: no 'throttled: $thr_imu'"
[ "$(grep -c '^ *throttled:' "$md")" = 1 ] || fail "metadata.yaml: throttled for another topic"
grep -q '^ *lost_in_recorder: [1-9]' "$md" && fail "metadata.yaml: a loss in the recorder"
grep -q "\"name\":\"/imu\".*\"lost\":{[^}]*},\"throttled\":$thr_imu,\"lost_in_transport\":0,\"lost_in_recorder\":0" \
	"$T/stats" || { cat "$T/stats"; fail "stats --json: /imu's throttled"; }
grep -q "\"cache_max\":[0-9]*,\"throttled\":$thr_imu}" "$T/stats" || fail "stats --json: totals"
grep -q "^Throttled: *$thr_imu " "$T/stats_table" || { cat "$T/stats_table"; fail "stats: no Throttled line"; }
"$B" info -v "$T/hz" >"$T/info" || fail "info -v"
grep -q 'Throttld' "$T/info" || fail "info -v: no Throttld column"
grep -q "^  /imu .* $thr_imu\$" "$T/info" || { cat "$T/info"; fail "info -v: /imu's throttled"; }
"$B" check "$T/hz" >/dev/null || fail "check"

# ---- a byte rate: 10 kB messages at 100 Hz, 200 KiB/s through ----
record_bg "$T/out2" -a --domain 91 -o "$T/by" --throttle 'rt/ca.=200KiB/s'
tpub_run "$T/pub3" --domain 91 --topic rt/cam --type string --count 500 --size 10000 --rate 100 \
	--wait-readers 1
sleep 1
stop_wait "$rec" 600
cat "$T/out2"
[ "$rc" = 0 ] || fail "record exit $rc"
line=$(grep '^  /cam ' "$T/out2")
rec_cam=$(echo "$line" | awk '{print $2}')
thr_cam=$(echo "$line" | awk '{print $10}')
[ $((rec_cam + thr_cam)) = 500 ] || fail "/cam: recorded + throttled = $((rec_cam + thr_cam))"
q="select timestamp, length(data) from messages m join topics t on t.id = m.topic_id where t.name = '/cam' order by timestamp"
sqlite3 -separator ' ' "$T/by/by_0.db3" "$q" >"$T/ts2" || fail "sqlite3"
# Per full second from the first message: its bytes, one message's length,
# the time the bucket lost to lapses (in bytes at the rate) and how
# many. The bounds follow from the bucket (rec_throttle.h): a message
# fills a slot of len / rate (48.9 ms) and is taken up to half a slot
# after its slot starts, so a second holds at most rate + one message (21
# here: never a burst), and at least rate - two messages (one at each edge
# may be taken after it). A message more than half a slot late (the
# receive path or the publisher held up) starts the bucket afresh at its
# arrival and loses the time it was late by: the awk replays the bucket on
# the recorded times (taken microseconds before the bucket's) to find
# those, and the lower bound of each second such a lapse touches gives
# that time up. Over all the full seconds the edges count once: N * rate,
# less one message and the lapses' time.
awk 'NR == 1 {t0 = $1; len = $2; slot = len / 204800 * 1e9; tat = $1}
	{b = int(($1 - t0) / 1e9); n[b] += $2; if (b > last) last = b}
	NR > 1 && $1 > tat + slot / 2 {
		x = ($1 - tat) / 1e9 * 204800; late[b] += x; r[b]++; gl[pb] += x
		if (pb != b) late[pb] += x
		tat = $1
	}
	{tat += slot; pb = b}
	END {
		for (i = 0; i < last; i++) {
			print "second", i, n[i] + 0, len, int(late[i]), r[i] + 0; tot += n[i]; lt += gl[i]
		}
		print "total", last, tot, len, int(lt)
	}' "$T/ts2" >"$T/bbuckets"
cat "$T/bbuckets"
[ "$(grep -c '^second' "$T/bbuckets")" -ge 3 ] || fail "fewer than 3 full seconds"
awk '$1 == "second" && $3 > 204800 + $4 {bad = 1} END {exit bad}' "$T/bbuckets" ||
	fail "a second's bytes above 200 KiB/s by more than a message: a burst"
awk '$1 == "second" && $3 < 204800 - 2 * $4 - $5 {bad = 1} END {exit bad}' "$T/bbuckets" ||
	fail "a second's bytes below 200 KiB/s by more than two messages (and any lapse's time)"
awk '$1 == "total" && $3 < $2 * 204800 - $4 - $5 {bad = 1} END {exit bad}' "$T/bbuckets" ||
	fail "the full seconds' bytes below 200 KiB/s by more than a message (and any lapse's time)"
# Lapses are the machine's, and rare. A bucket keeping a lower rate falls
# behind the replay's slots and lapses every few messages. Simulated, 100
# runs each, in 4 s: 200 kB/s for 200 KiB/s (4.6 % low, within two
# messages a second) 6 to 8 lapses, 2 % low 2 to 4, the right rate with
# 1 % of the messages 3-27 ms late 0 to 2.
awk '$1 == "second" {r += $6} END {exit r > 2}' "$T/bbuckets" ||
	fail "the bucket lapsed more than twice in the full seconds"
echo ok
