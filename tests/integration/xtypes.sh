#!/bin/sh
# Definitions of plain DDS topics from XTypes type information: a real
# bagtop records two real tpubs on domain 66 (the recorder splits every
# second):
#   rich_topic     bagtest::Rich, built by idlc with type information
#                  (modules, an enum, a typedef, a union, sequences of
#                  structs, bounded strings, a 2-D array, keys, @optional):
#                  its row is omgidl with IDL that idlc compiles back into
#                  the same type - the XTypes type information and type
#                  map idlc generates from the bag's IDL equal, byte for
#                  byte, those it generates from tests/tools/idl/bagtest/
#                  Rich.idl (any name, member, order, bound, key or
#                  annotation that differs changes them) - in the first
#                  file (updated while open) and in the last (written at
#                  creation); every recorded message decodes, with the C
#                  idlc generates from the bag's IDL (xtypes_decode.c), to
#                  the values tpub wrote; `info -v` names the source.
#   plain_battery  a plain DDS topic of a type built without type
#                  information (as ROS 2 writers are): the row stays what
#                  it was, and every message is recorded.
# Needs the sqlite3 shell, idlc and a C compiler; else skipped.
B=${BAGTOP_BIN:?}
P=${BAGTOP_TPUB:?}
SRC=${BAGTOP_SOURCE_DIR:?}
command -v sqlite3 >/dev/null || { echo "SKIP: the sqlite3 shell is not installed"; exit 77; }
command -v idlc >/dev/null || { echo "SKIP: idlc is not installed"; exit 77; }
CC=${CC:-cc}
command -v "$CC" >/dev/null || { echo "SKIP: no C compiler ($CC)"; exit 77; }
unset AMENT_PREFIX_PATH
# shellcheck source=proc_lib.sh
. "$SRC/tests/integration/proc_lib.sh"
proc_scratch xtypes

DOM=66
"$B" record -a --no-tui --domain $DOM -d 1 -o "$T/bag" >"$T/rec.log" 2>&1 &
REC=$!
timeout 90 "$P" --domain $DOM --topic rich_topic --type rich --count 40 --rate 10 --keys 3 \
	--wait-readers 1 --wait-timeout 30 --linger 1 >"$T/rich.log" 2>&1 &
P1=$!
timeout 90 "$P" --domain $DOM --topic plain_battery --type battery --count 40 --rate 10 \
	--wait-readers 1 --wait-timeout 30 --linger 1 >"$T/battery.log" 2>&1 &
P2=$!
wait $P1 || fail "tpub rich failed"
wait $P2 || fail "tpub battery failed"
stop_wait "$REC" 300
[ "$rc" = 0 ] || fail "bagtop record failed (exit $rc)"
REC=""

# count TOPIC: all 40 messages in the bag, across its files.
count() {
	n=$(topic_count "$T/bag" "$1")
	[ "$n" = 40 ] || fail "$n $1 messages recorded, want 40"
}
count rich_topic
count plain_battery

first="$T/bag/bag_0.db3"
last=$T/bag/$(ls "$T/bag" | grep '\.db3$' | sort -t_ -k2 -n | tail -1)
[ "$last" != "$first" ] || fail "no split (only bag_0.db3)"

# The Rich row: omgidl, and IDL that idlc turns into the very same type.
mkdir -p "$T/want" || fail "mkdir"
(cd "$T/want" && idlc "$SRC/tests/tools/idl/bagtest/Rich.idl" >"$T/idlc-want.log" 2>&1) ||
	fail "idlc on the original IDL"
typeblocks() {
	sed -n '/^#define TYPE_INFO_CDR_bagtest_Rich /,/}/p;/^#define TYPE_MAP_CDR_bagtest_Rich /,/}/p' "$1"
}
typeblocks "$T/want/Rich.c" >"$T/want.types"
[ -s "$T/want.types" ] || fail "no type information in idlc's output"
for db in "$first" "$last"; do
	enc=$(sqlite3 "$db" "SELECT encoding FROM message_definitions WHERE topic_type = 'bagtest::Rich'")
	[ "$enc" = omgidl ] || fail "$(basename "$db"): bagtest::Rich encoding '$enc', want omgidl"
	d="$T/got-$(basename "$db" .db3)"
	mkdir -p "$d" || fail "mkdir"
	sqlite3 "$db" "SELECT writefile('$d/Rich.idl', encoded_message_definition) FROM \
message_definitions WHERE topic_type = 'bagtest::Rich'" >/dev/null
	(cd "$d" && idlc Rich.idl >"$d.log" 2>&1) || { cat "$d/Rich.idl"; fail "idlc rejects the IDL in $(basename "$db")"; }
	typeblocks "$d/Rich.c" >"$d.types"
	cmp -s "$T/want.types" "$d.types" ||
		{ cat "$d/Rich.idl"; fail "$(basename "$db"): the IDL declares another type"; }
done

# Every message decodes with the type the bag's IDL declares, to what tpub
# wrote (tpub.c, tpub_write_rich; --keys 3).
d="$T/got-bag_0"
"$CC" -std=gnu11 -o "$T/decode" "$SRC/tests/integration/xtypes_decode.c" "$d/Rich.c" -I"$d" \
	-lddsc >"$T/cc.log" 2>&1 || fail "the decoder does not compile against the bag's IDL"
for db in $(ls "$T/bag" | grep '\.db3$' | sort -t_ -k2 -n); do
	sqlite3 "$T/bag/$db" "SELECT hex(m.data) FROM messages m JOIN topics t ON m.topic_id = t.id \
WHERE t.name = 'rich_topic' ORDER BY m.timestamp, m.id"
done >"$T/rich.hex"
"$T/decode" <"$T/rich.hex" >"$T/decoded.txt" 2>"$T/decode.log" || fail "a message does not decode"
awk 'BEGIN { for (i = 0; i < 40; i++) {
	printf "id=%d name=rich-%d mode=%d points=1.5,-2;%d,0.25;3,4; few=%d,0.25; matrix=", \
		i % 3, i, i % 3, i, i
	for (r = 0; r < 2; r++) for (c = 0; c < 3; c++) printf "%d;", r * 10 + c + i
	printf " label=label tags=alpha;b;"
	if (i % 3 == 0) printf " extra=code:%d", i; else printf " extra=note:n%d", i
	if (i % 2) printf " maybe=%d\n", i * 3; else printf " maybe=none\n"
} }' >"$T/expected.txt"
cmp -s "$T/expected.txt" "$T/decoded.txt" ||
	{ diff "$T/expected.txt" "$T/decoded.txt" | head -5; fail "decoded values differ from tpub's"; }

# The type without type information: rosbag2's row for a type with no
# definition, as before.
row=$(sqlite3 "$first" "SELECT encoding || '|' || encoded_message_definition FROM \
message_definitions WHERE topic_type = 'my_msgs::msg::dds_::BatteryState_'")
[ "$row" = "unknown|" ] || fail "plain_battery's row is '$row', want 'unknown|'"

"$B" info -v "$T/bag" >"$T/info.log" 2>&1 || fail "bagtop info -v failed"
grep -Eq "^  bagtest::Rich +XTypes type information, omgidl$" "$T/info.log" ||
	fail "info -v does not name XTypes type information"
grep -Eq "^  my_msgs::msg::dds_::BatteryState_ +none" "$T/info.log" ||
	fail "info -v does not say none for the type without type information"
echo "PASS"
