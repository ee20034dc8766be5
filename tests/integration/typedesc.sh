#!/bin/sh
# Definitions from the publishing node's get_type_description (REP 2011):
# tests/tools/tdserver publishes my_msgs/msg/Probe (in no definition
# source) with a type hash, announces node /probe_node in
# ros_discovery_info and answers get_type_description per mode; bagtop
# records it. Every mode records all 20 messages; the bag ends with:
#   sources (domain 35)  the node's .msg sources in rosbag2's format, in the
#                        file open when it came (updated) and in the file
#                        opened after a split (written at creation); info -v
#                        names the node
#   fields  (36)         the field lists rendered as .msg
#   fail    (37)         rosbag2's empty row ("type not in use" logged, and
#                        in info -v)
#   never   (38)         the empty row, after two calls without a reply
#   deep    (39)         the empty row (1000 nested types: too deep)
#   nograph (35, after)  the empty row: no node announces the publisher
#   sources_mcap (50)    as sources, with -s mcap: the files opened after
#                        the reply have the node's definition in their
#                        Schema, and info -v shows it for the bag (the first
#                        file's Schema has it only if the reply came before
#                        its first chunk was written: not checked)
#   late_mcap (51)       -s mcap and no split option, the reply held until 25
#                        of 40 messages are out: the first file's Schema went
#                        out without the definition (its first chunk, within
#                        a second), so the reply starts a second file, which
#                        has it (an info line in the log file says so); 40
#                        messages in all
# The first six run side by side, each on its own domain. Needs the sqlite3
# shell; else skipped.
B=${BAGTOP_BIN:?}
S=${BAGTOP_TDSERVER:?}
command -v sqlite3 >/dev/null || { echo "SKIP: the sqlite3 shell is not installed"; exit 77; }
unset AMENT_PREFIX_PATH
# shellcheck source=proc_lib.sh
. "${BAGTOP_SOURCE_DIR:?}/tests/integration/proc_lib.sh"
proc_scratch typedesc

# run MODE DOMAIN DURATION [bagtop options...]: records tdserver in $T/MODE.
run() {
	mode=$1 dom=$2 dur=$3
	shift 3
	"$B" record -a --no-tui --domain "$dom" -o "$T/$mode" "$@" >"$T/$mode.log" 2>&1 &
	rec=$!
	RECS="$RECS $rec"
	hold=0
	[ "$mode" = sources ] && hold=1
	more="--count 20"
	[ "$mode" = late_mcap ] && more="--count 40 --reply-after 25"
	# shellcheck disable=SC2086 # $more: options, split on purpose
	timeout 90 "$S" --domain "$dom" --mode "$mode" --rate 10 --duration "$dur" \
		--hold $hold $more >"$T/$mode.server.log" 2>&1 || fail "$mode: tdserver failed"
	stop_wait "$rec" 300 TERM
	[ "$rc" = 0 ] || fail "$mode: bagtop record failed (exit $rc)"
}

run sources 35 12 -d 1 &
P1=$!
run fields 36 10 &
P2=$!
run fail 37 10 &
P3=$!
run never 38 20 &
P4=$!
run deep 39 10 &
P5=$!
run sources_mcap 50 12 -d 1 -s mcap &
P6=$!
run late_mcap 51 12 -s mcap --log-file "$T/late_mcap.info" &
P7=$!
for p in $P1 $P2 $P3 $P4 $P5 $P6 $P7; do wait $p || exit 1; done
run nograph 35 10

hex() { od -An -v -tx1 | tr -d ' \n' | tr a-f A-F; }
RULE=================================================================================

# check MODE FILE ENCODING TEXT: the Probe row of FILE.
check() {
	db="$T/$1/$2"
	[ -f "$db" ] || fail "$1: no $2"
	got=$(sqlite3 "$db" "SELECT encoding || '|' || hex(encoded_message_definition) FROM \
message_definitions WHERE topic_type = 'my_msgs/msg/Probe'")
	want="$3|$(printf '%s' "$4" | hex)"
	[ "$got" = "$want" ] || fail "$1: $2: definition $got, want $want"
}

# count MODE: all 20 messages in the bag, across its files.
count() {
	n=$(topic_count "$T/$1" /td_probe)
	[ "$n" = 20 ] || fail "$1: $n /td_probe messages recorded, want 20"
}

SRC=$(printf '# a probe\nint32 count\nstring label\nInner inner\nuint8[<=4] flags\n\n%s\nMSG: my_msgs/Inner\nfloat64 x\n' "$RULE")
FLD=$(printf 'int32 count\nstring label\nmy_msgs/Inner inner\nuint8[<=4] flags\n\n%s\nMSG: my_msgs/Inner\nfloat64 x\n' "$RULE")
# $(...) drops the last newline: put it back.
SRC="$SRC
"
FLD="$FLD
"
for m in sources fields fail never deep nograph; do count $m; done
last=$(ls "$T/sources" | grep '\.db3$' | sort -t_ -k2 -n | tail -1)
[ "$last" != sources_0.db3 ] || fail "sources: no split (only sources_0.db3)"
check sources sources_0.db3 ros2msg "$SRC"
check sources "$last" ros2msg "$SRC"
grep -q "requests 1" "$T/sources.server.log" || fail "sources: not asked once"
"$B" info -v "$T/sources" | grep -q "my_msgs/msg/Probe  get_type_description (node /probe_node), ros2msg, 2 types" ||
	fail "sources: info -v does not name the node"
"$B" check "$T/sources" >"$T/check.log" 2>&1 || fail "sources: check fails: $(cat "$T/check.log")"
"$B" info "$T/sources_mcap" | grep -q "Topic: /td_probe | Type: my_msgs/msg/Probe | Count: 20 |" ||
	fail "sources_mcap: not 20 /td_probe messages"
last=$(ls "$T/sources_mcap" | grep '\.mcap$' | sort -t_ -k3 -n | tail -1)
[ "$last" != sources_mcap_0.mcap ] || fail "sources_mcap: no split (only sources_mcap_0.mcap)"
"$B" info -v "$T/sources_mcap/$last" | grep -q "my_msgs/msg/Probe  .*ros2msg, 2 types" ||
	fail "sources_mcap: $last has no Probe definition"
"$B" info -v "$T/sources_mcap" |
	grep -q "my_msgs/msg/Probe  get_type_description (node /probe_node), ros2msg, 2 types" ||
	fail "sources_mcap: info -v does not show the node's definition"
"$B" check "$T/sources_mcap" >"$T/check.log" 2>&1 ||
	fail "sources_mcap: check fails: $(cat "$T/check.log")"
L=$T/late_mcap
ls "$L" | grep '\.mcap$' | sort >"$T/late.files"
[ "$(cat "$T/late.files")" = "late_mcap_0.mcap
late_mcap_1.mcap" ] || fail "late_mcap: files $(cat "$T/late.files"), want late_mcap_0.mcap and _1"
"$B" info -v "$L/late_mcap_0.mcap" | grep -q "my_msgs/msg/Probe  .*none" ||
	fail "late_mcap: the first file's Schema has the definition (the reply was not late)"
"$B" info -v "$L/late_mcap_1.mcap" | grep -q "my_msgs/msg/Probe  .*ros2msg, 2 types" ||
	fail "late_mcap: the second file has no Probe definition"
grep -q "late_mcap_0.mcap: the definition of my_msgs/msg/Probe came after the file's record of the type; the next file carries it" "$T/late_mcap.info" ||
	fail "late_mcap: no info line for the new file (log file: $(cat "$T/late_mcap.info"))"
"$B" info "$L" | grep -q "Topic: /td_probe | Type: my_msgs/msg/Probe | Count: 40 |" ||
	fail "late_mcap: not 40 /td_probe messages"
"$B" check "$L" >"$T/check.log" 2>&1 || fail "late_mcap: check fails: $(cat "$T/check.log")"
check fields fields_0.db3 ros2msg "$FLD"
check fail fail_0.db3 "" ""
grep -q "node /probe_node: the node answered: type not in use" "$T/fail.log" ||
	fail "fail: the node's reason is not logged"
"$B" info -v "$T/fail" | grep -q "my_msgs/msg/Probe  none (missing: get_type_description of node /probe_node: the node answered: type not in use)" ||
	fail "fail: info -v does not say why the definition is missing"
check never never_0.db3 "" ""
grep -q "requests 2" "$T/never.server.log" || fail "never: not asked twice"
grep -q "no reply" "$T/never.log" || fail "never: 'no reply' not logged"
check deep deep_0.db3 "" ""
grep -q "more than 50 levels" "$T/deep.log" || fail "deep: the depth is not logged"
check nograph nograph_0.db3 "" ""
grep -q "requests 0" "$T/nograph.server.log" || fail "nograph: asked though no node was known"
grep -q "no ROS 2 node announces its publisher" "$T/nograph.log" || fail "nograph: not logged"
echo "PASS"
