#!/bin/sh
# Bags decode with Foxglove's decoders using only the definitions in them
# (decode.mjs): a bag of `bagtop demo` (domain 22), and bags of
# `bagtop record -a` with tpub publishing std_msgs/msg/String and a custom
# my_msgs/msg/BatteryState (nested custom dependency) whose .msg files are
# in tests/defs/fixtures/ament: found through AMENT_PREFIX_PATH (domain 23),
# through --message-definitions-path (24), and nowhere (25): then rosbag2's
# empty row, named by info -v, and the recording is otherwise unaffected;
# then MCAP bags of both (domains 26..29), one converted from SQLite, one
# reindexed after its recorder was killed (48) and a snapshot (49), read
# with Foxglove's @mcap/core; and a file out of the specification's order
# (misordered.mjs), which check and Foxglove's reader both refuse.
# Needs node with tests/decode/node_modules (./dev.sh test runs npm ci) and
# the sqlite3 shell; else skipped.
B=${BAGTOP_BIN:?}
P=${BAGTOP_TPUB:?}
HERE=$(cd "$(dirname "$0")" && pwd)
FIX="$HERE/../defs/fixtures/ament"
# A --message-definitions-path that is no directory: a usage error.
out=$("$B" record -a --message-definitions-path /nonexistent/defs 2>&1)
rc=$?
[ $rc = 2 ] && echo "$out" | grep -q "'/nonexistent/defs' is not a directory" ||
	{ echo "FAIL: --message-definitions-path /nonexistent/defs: exit $rc: $out"; exit 1; }
command -v node >/dev/null || { echo "SKIP: node is not installed"; exit 77; }
command -v sqlite3 >/dev/null || { echo "SKIP: the sqlite3 shell is not installed"; exit 77; }
[ -d "$HERE/node_modules/@foxglove/rosmsg2-serialization" ] ||
	{ echo "SKIP: no $HERE/node_modules (run: npm ci --prefix $HERE)"; exit 77; }
unset AMENT_PREFIX_PATH
# shellcheck source=../integration/proc_lib.sh
. "$HERE/../integration/proc_lib.sh"
proc_scratch decode

# The demo: every ROS type decodes, values checked.
timeout 60 "$B" demo --no-tui --domain 22 --duration 4 -o "$T/demo" >"$T/demo.log" 2>&1 ||
	fail "bagtop demo failed"
node "$HERE/decode.mjs" demo "$T/demo/demo_0.db3" || fail "the demo's bag does not decode"

# record_start NAME DOMAIN LINGER [bagtop options...]: `bagtop record -a`
# into $T/NAME ($REC) while tpub publishes /chatter and /battery (30
# messages each, lingering LINGER s); returns once both tpubs are done.
record_start() {
	name=$1 dom=$2 linger=$3
	shift 3
	"$B" record -a --no-tui --domain "$dom" -o "$T/$name" "$@" >"$T/$name.log" 2>&1 &
	REC=$!
	pubs=""
	for what in chatter:string battery:battery; do
		timeout 60 "$P" --domain "$dom" --topic "rt/${what%%:*}" --type "${what#*:}" \
			--count 30 --rate 30 --wait-readers 1 --wait-timeout 30 --linger "$linger" &
		pubs="$pubs $!"
	done
	for pid in $pubs; do
		wait "$pid" || fail "$name: a tpub failed"
	done
}

# record_stop NAME: stops $REC, which must exit 0.
record_stop() {
	stop_wait "$REC" 300 TERM # (SIGINT is ignored by a background job of sh)
	[ "$rc" = 0 ] || fail "$1: bagtop record exited with $rc"
	REC=""
}

# record NAME DOMAIN [bagtop options...]: records tpub's /chatter and
# /battery (30 messages each) into $T/NAME; check passes on it.
record() {
	name=$1 dom=$2
	shift 2
	record_start "$name" "$dom" 1 "$@"
	record_stop "$name"
	"$B" check "$T/$name" >/dev/null || fail "$name: bagtop check failed"
}

# info_has NAME TYPE SOURCE: info -v names SOURCE for TYPE.
info_has() {
	"$B" info -v "$T/$1" >"$T/$1.info" || fail "$1: bagtop info -v failed"
	grep -Eq "^  $2 +$3" "$T/$1.info" || { cat "$T/$1.info"; fail "$1: info -v: $2 not '$3'"; }
}

AMENT_PREFIX_PATH="/nonexistent:$FIX" record ament 23
node "$HERE/decode.mjs" tpub "$T/ament/ament_0.db3" || fail "ament: the bag does not decode"
info_has ament "my_msgs/msg/BatteryState" "interface files, ros2msg, 5 types"
info_has ament "std_msgs/msg/String" "built-in \(humble, iron, jazzy\), ros2msg, 1 type"

record path 24 --message-definitions-path "$FIX"
node "$HERE/decode.mjs" tpub "$T/path/path_0.db3" || fail "path: the bag does not decode"

record none 25
row=$(sqlite3 "$T/none/none_0.db3" "SELECT encoding || '|' || encoded_message_definition || '|' \
	|| type_description_hash FROM message_definitions WHERE topic_type = 'my_msgs/msg/BatteryState'")
[ "$row" = "||" ] || fail "none: my_msgs/msg/BatteryState row is '$row', want rosbag2's empty row"
info_has none "my_msgs/msg/BatteryState" "none$"
n=$(sqlite3 "$T/none/none_0.db3" "SELECT count(*) FROM messages JOIN topics ON topics.id = topic_id \
	WHERE topics.name = '/battery'")
[ "$n" = 30 ] || fail "none: $n /battery messages recorded, want 30"
grep -q "my_msgs/msg/BatteryState: no message definition (my_msgs/msg/BatteryState.msg in neither" \
	"$T/none.log" || fail "none: no log line about the missing definition"

# MCAP bags, read by Foxglove's MCAP library (mcap_bag.mjs: through the
# summary and indexes, and streamed with CRCs) and decoded the same way:
# the demo's (its plain DDS type's IDL learned from XTypes after the topic
# appeared, /points lent to the writer), and tpub's with rosbag2's default
# writer options, the zstd_fast preset, and lz4 in 2 KiB chunks with CRCs.
timeout 60 "$B" demo --no-tui --domain 26 --duration 4 -s mcap -o "$T/demo_mcap" \
	>"$T/demo_mcap.log" 2>&1 || fail "bagtop demo -s mcap failed"
node "$HERE/decode.mjs" demo "$T/demo_mcap" || fail "the demo's MCAP bag does not decode"
record mcap 27 -s mcap --message-definitions-path "$FIX"
node "$HERE/decode.mjs" tpub "$T/mcap" || fail "mcap: the bag does not decode"
record mcap_zstd 28 -s mcap --storage-preset-profile zstd_fast --message-definitions-path "$FIX"
node "$HERE/decode.mjs" tpub "$T/mcap_zstd" || fail "mcap_zstd: the bag does not decode"
printf 'compression: Lz4\nchunkSize: 2048\nnoChunkCRC: false\nenableDataCRC: true\n' \
	>"$T/lz4.yaml"
record mcap_lz4 29 -s mcap --storage-config-file "$T/lz4.yaml" --message-definitions-path "$FIX"
node "$HERE/decode.mjs" tpub "$T/mcap_lz4" || fail "mcap_lz4: the bag does not decode"

# Converted from SQLite into MCAP files of 1 KiB (several files, each with
# the definitions): convert's output reads as a recording's.
"$B" convert -s mcap -b 1K "$T/path" "$T/conv" >"$T/conv.log" 2>&1 || fail "convert -s mcap failed"
[ "$(find "$T/conv" -name '*.mcap' | wc -l)" -ge 3 ] || fail "conv: fewer than 3 files"
node "$HERE/decode.mjs" tpub "$T/conv" || fail "conv: the converted bag does not decode"

# A recorder killed (SIGKILL) once its publishers are done: its files end
# without summary or footer; reindex repairs them, and Foxglove's reader
# takes them as the others (domain 48).
record_start killed 48 2 -s mcap --message-definitions-path "$FIX"
kill -KILL "$REC"
wait "$REC" 2>/dev/null
REC=""
"$B" check "$T/killed" >"$T/killed_check.log" 2>&1 &&
	fail "killed: check passes before reindex: the kill left nothing to repair"
"$B" reindex "$T/killed" >"$T/killed_reindex.log" 2>&1 || fail "killed: reindex failed"
"$B" check "$T/killed" >/dev/null || fail "killed: check fails after reindex"
node "$HERE/decode.mjs" tpub "$T/killed" || fail "killed: the reindexed bag does not decode"

# Snapshot mode: the messages kept in memory, written on a trigger
# (`bagtop snapshot --pid`) into an MCAP file of their own (domain 49).
record_start snap 49 1 -s mcap --snapshot-mode --message-definitions-path "$FIX"
"$B" snapshot --pid "$REC" --timeout 20 >"$T/snap_trigger.log" 2>&1 || fail "snap: no snapshot"
record_stop snap
node "$HERE/decode.mjs" tpub "$T/snap" || fail "snap: the snapshot does not decode"

# What check holds an MCAP file to is what Foxglove needs: a file built by
# misordered.mjs from the specification, where Foxglove's streamed reader
# stops at a Message before its Channel record; check reports that record
# (exit 1), bagtop still reads it, and convert's copy passes check and
# Foxglove's reader. No DDS.
node "$HERE/misordered.mjs" write "$T/mis.mcap" || fail "misordered: Foxglove's reader took it"
"$B" check "$T/mis.mcap" >"$T/mis_check.log" 2>&1
rc=$?
[ "$rc" = 1 ] || fail "misordered: check exit $rc, want 1: $(cat "$T/mis_check.log")"
grep -q "the Message record at offset 39 of the chunk at offset 132 is on channel 2, before any Channel record with that id" \
	"$T/mis_check.log" || fail "misordered: check does not name the record: $(cat "$T/mis_check.log")"
"$B" info "$T/mis.mcap" | grep -q "Messages: *3" || fail "misordered: bagtop does not read 3 messages"
"$B" convert -s mcap "$T/mis.mcap" "$T/mis_copy" >"$T/mis_conv.log" 2>&1 ||
	fail "misordered: convert failed: $(cat "$T/mis_conv.log")"
"$B" check "$T/mis_copy" >"$T/mis_check.log" 2>&1 ||
	fail "misordered: the copy fails check: $(cat "$T/mis_check.log")"
node "$HERE/misordered.mjs" read "$T/mis_copy" || fail "misordered: Foxglove's reader refuses the copy"
echo "ok"
