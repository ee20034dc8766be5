#!/bin/sh
# The real rosbag2 MCAP bags of ../shared/fixtures/rosbag2-mcap through the
# commands: `bagtop info` gives the counts of its README for each (with -v,
# sizes and service calls against SQL over the sqlite3 twins); `check`
# passes on each that has a metadata.yaml (wbag's own metadata.yaml gives a
# starting time and duration its files do not hold: check says exactly
# that); multiple_files (no metadata.yaml), on a copy, is reindexed into a
# bag check passes. Then truncated files (copies): reindex rebuilds them
# from their complete chunks, beside them then renamed, and check passes.
# No DDS. Skipped (77) without ../shared.
set -u
B=${BAGTOP_BIN:?}
F=${BAGTOP_FIXTURES:?}/../rosbag2-mcap
if [ ! -d "$F" ]; then
	echo "SKIP: no $F"
	exit 77
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/bagtop-test-mcapfix-XXXXXX")
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# info BAG TOTAL TOPIC=COUNT...
info() {
	bag=$1 total=$2
	shift 2
	"$B" info "$bag" >"$T/info" 2>&1 || { cat "$T/info"; fail "info $bag"; }
	grep -q "^Messages: *$total\$" "$T/info" || { cat "$T/info"; fail "$bag: not $total messages"; }
	grep -q "^Storage id: *mcap\$" "$T/info" || fail "$bag: storage id"
	for tc in "$@"; do
		grep -q "Topic: ${tc%=*} | .* | Count: ${tc#*=} |" "$T/info" ||
			{ cat "$T/info"; fail "$bag: topic ${tc%=*} not ${tc#*=}"; }
	done
	echo "info $bag: $total ok"
}

info "$F/talker" 20 /rosout=10 /topic=10
info "$F/wbag" 6074 AAA=804 BBB=742 CCC=742 DDD=753 EEE=804 FFF=772 GGG=731 HHH=726
info "$F/cdr_test" 7 /test_topic=3 /array_topic=4
info "$F/multiple_files" 3177 /chatter=3177
info "$F/convert_a" 150 a_empty=100 b_basictypes=50
info "$F/bag_with_topics_and_service_events" 10 /test_topic1=1 /test_topic2=1
grep -q "Service: /test_service1 | .* | Event Count: 4 |" "$T/info" || fail "service events"

# info -v: the files' own figures and the Schemas' definitions
"$B" info -v "$F/cdr_test" >"$T/info" 2>&1 || { cat "$T/info"; fail "info -v cdr_test"; }
grep -q "^  0   cdr_test_0.mcap .* - *7  " "$T/info" || { cat "$T/info"; fail "info -v files"; }
grep -q "^  test_msgs/msg/Arrays .*ros2msg" "$T/info" || { cat "$T/info"; fail "info -v definitions"; }

# info -v as `ros2 bag info -v` (Jazzy): per topic the bytes of its messages
# (Size Contribution), per service its distinct requests and responses by
# (client gid, sequence number). The oracle is SQL over the sqlite3 twins of
# the bags (the same recordings), reading the event bytes where the spec
# puts them: event_type at payload offset 0, client_gid at 12, sequence
# number at 32 (the blob's bytes 5, 17..32 and 37..44).
S=${BAGTOP_FIXTURES:?}
sql() { sqlite3 "$1" "$2" || fail "sqlite3 $1"; }
calls() { # calls DB TOPIC TYPES: distinct (gid, seq) of events of TYPES ('00','01')
	sql "$1" "SELECT count(DISTINCT hex(substr(data, 17, 16)) || hex(substr(data, 37, 8))) \
		FROM messages m JOIN topics t ON m.topic_id = t.id WHERE t.name = '$2' \
		AND hex(substr(data, 5, 1)) IN ($3)"
}
bytes() { # bytes DB TOPIC: the sum of its messages' lengths, as bt_fmt_iec (< 1 KiB)
	echo "$(sql "$1" "SELECT total(length(data)) FROM messages m JOIN topics t \
		ON m.topic_id = t.id WHERE t.name = '$2'" | cut -d. -f1) B"
}
for pair in "$S/bag_with_topics_and_service_events:/test_service1 /test_service2:/test_topic1" \
	"$S/topics_and_services:/add_two_ints /add_two_ints2:/rosout"; do
	sq=${pair%%:*} rest=${pair#*:}
	svcs=${rest%%:*} topic=${rest#*:}
	db=$(ls "$sq"/*.db3)
	for bag in "$sq" "$F/$(basename "$sq")"; do
		[ -d "$bag" ] || continue
		"$B" info -v "$bag" >"$T/info" 2>&1 || { cat "$T/info"; fail "info -v $bag"; }
		for svc in $svcs; do
			ev="$svc/_service_event"
			want="Request Count: $(calls "$db" "$ev" "'00','01'") | Response Count: \
$(calls "$db" "$ev" "'02','03'") | Size Contribution: $(bytes "$db" "$ev") |"
			grep "Service: $svc | " "$T/info" | grep -qF "$want" ||
				{ cat "$T/info"; fail "$bag: $svc: want $want"; }
		done
		want="Size Contribution: $(bytes "$db" "$topic") |"
		grep "Topic: $topic | " "$T/info" | grep -qF "$want" ||
			{ cat "$T/info"; fail "$bag: $topic: want $want"; }
		echo "info -v $bag: sizes and calls as SQL counts them"
	done
done
# the oracle itself, against the fixtures' README (3 calls, 6 events of 72
# and 60 bytes): $T/info is topics_and_services's
grep -q "/add_two_ints | .* | Request Count: 3 | Response Count: 3 | Size Contribution: 396 B" \
	"$T/info" || { cat "$T/info"; fail "topics_and_services: want 3 + 3 calls, 396 B"; }

for b in talker cdr_test convert_a bag_with_topics_and_service_events; do
	"$B" check "$F/$b" || fail "check $b"
done
# wbag's metadata.yaml (written by rosbag2's test) says starting_time 2623
# ns and duration 411 ns: the last file's start; its files' statistics say
# 1000..2998. check must say so, and nothing else.
"$B" check "$F/wbag" >"$T/out" 2>&1
rc=$?
cat "$T/out"
[ "$rc" = 1 ] || fail "check wbag: exit $rc, want 1"
grep -q "starting time: metadata.yaml says 2623, the files hold 1000" "$T/out" || fail "wbag start"
grep -q "duration: metadata.yaml says 411, the files hold 1998" "$T/out" || fail "wbag duration"
grep -q "2 problems found" "$T/out" || fail "wbag: other problems"

# multiple_files: no metadata.yaml; reindex writes it.
cp -r "$F/multiple_files" "$T/mf"
"$B" check "$T/mf" >/dev/null 2>&1 && fail "check passed without metadata.yaml"
"$B" reindex "$T/mf" || fail "reindex multiple_files"
grep -q "storage_identifier: mcap" "$T/mf/metadata.yaml" || fail "metadata.yaml storage id"
"$B" check "$T/mf" || fail "check after reindex"
info "$T/mf" 3177 /chatter=3177
cmp "$F/multiple_files/multiple_files_1.mcap" "$T/mf/multiple_files_1.mcap" ||
	fail "reindex touched a complete file"

# Truncated: wbag_2.mcap (one zstd chunk) cut after its chunk, in the
# message indexes: the chunk is complete, every message is kept; wbag_3.mcap
# cut inside its only chunk: its 1240 messages are gone, the schema and
# channel records outside are kept. Every other file stays as it was.
cp -r "$F/wbag" "$T/wb"
size=$(stat -c %s "$T/wb/wbag_2.mcap")
truncate -s $((size / 2)) "$T/wb/wbag_2.mcap"
size=$(stat -c %s "$T/wb/wbag_3.mcap")
truncate -s $((size / 4)) "$T/wb/wbag_3.mcap"
"$B" check "$T/wb" >"$T/out" 2>&1 && fail "check passed on a truncated file"
cat "$T/out"
grep -q "wbag_2.mcap: .*(bagtop reindex keeps every complete chunk)" "$T/out" ||
	fail "check does not name the file"
"$B" reindex "$T/wb" >"$T/out" 2>&1 || { cat "$T/out"; fail "reindex truncated wbag"; }
cat "$T/out"
[ -e "$T/wb/wbag_2.mcap.reindex" ] && fail "repair file left behind"
"$B" check "$T/wb" || fail "check after reindex of truncated files"
for i in 0 1 4; do
	cmp "$F/wbag/wbag_$i.mcap" "$T/wb/wbag_$i.mcap" || fail "reindex touched wbag_$i.mcap"
done
info "$T/wb" $((6074 - 1240))
"$B" info "$T/wb/wbag_2.mcap" | grep -q "^Messages: *1240\$" || fail "wbag_2.mcap lost messages"

cp -r "$F/cdr_test" "$T/cd"
size=$(stat -c %s "$T/cd/cdr_test_0.mcap")
truncate -s $((size - 200)) "$T/cd/cdr_test_0.mcap"
"$B" reindex "$T/cd" || fail "reindex truncated cdr_test"
"$B" check "$T/cd" || fail "check cdr_test after reindex"
info "$T/cd" 7 /test_topic=3 /array_topic=4
echo "PASS"
