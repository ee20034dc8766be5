#!/bin/sh
# `bagtop snapshot --pid P --name NAME`, real bagtop and tpub processes,
# DDS domain 13. One 50 Hz topic /na; two recorders in snapshot mode,
# sqlite3 and mcap (with --on-file-closed): each snapshot's file is closed
# as written and an empty one opened next, which a named snapshot drops.
# Triggers, in order:
#   sqlite3: --name ev1 (ev1.db3), --name ev1 (ev1_2.db3), none
#     (<bag>_0.db3), --name <bag>_1 (taken by name: the next default file
#     must skip it), none (<bag>_2.db3), --name taken while taken.db3 is on
#     disk (taken_2.db3)
#   mcap: --name ev1, --name ev1, none (ev1.mcap, ev1_2.mcap, <bag>_0.mcap)
# Then: the paths printed, the log lines, the files on disk and in
# metadata.yaml, `info` counts, `check`, `reindex` keeps them all (in the
# order written).
# Bad names: usage errors (exit 2, one line).
set -u
B=${BAGTOP_BIN:?}
P=${BAGTOP_TPUB:?}
# shellcheck source=proc_lib.sh
. "${BAGTOP_SOURCE_DIR:?}/tests/integration/proc_lib.sh"
proc_scratch snapname

# ---- bad input ----
usage_error --name snapshot --pid 1 --name ''
usage_error --name snapshot --pid 1 --name a/b
usage_error --name snapshot --pid 1 --name .
usage_error --name snapshot --pid 1 --name ..
usage_error --name snapshot --pid 1 --name "$(printf 'a\tb')"
usage_error --name snapshot --pid 1 --name "$(printf '%0128d' 0)"
usage_error --name snapshot --pid 1 --name
"$B" snapshot --help | grep -q -- '--name NAME' || fail "--help: no --name"

"$B" record -a --domain 13 -o "$T/bag" --no-tui --disable-keyboard-controls \
	--snapshot-mode --snapshot-duration 10 --log-file "$T/full.txt" >"$T/rec.log" 2>&1 &
REC=$!
"$B" record -a --domain 13 -o "$T/bagm" -s mcap --no-tui --disable-keyboard-controls \
	--snapshot-mode --snapshot-duration 10 --on-file-closed true \
	--log-file "$T/fullm.txt" >"$T/recm.log" 2>&1 &
RECS=$!
wait_for "$T/rec.log" '^Recording to' 200
wait_for "$T/recm.log" '^Recording to' 200
"$P" --domain 13 --topic rt/na --type string --count 600 --rate 50 --wait-readers 2 \
	>"$T/pub.log" 2>&1 &
PUB=$!
wait_for "$T/full.txt" 'recording /na' 100
wait_for "$T/fullm.txt" 'recording /na' 100

# snap PID WANT [ARGS...]: a snapshot after 0.5 s more of messages; its
# printed path must be WANT (in the bag directory)
snap() {
	_pid=$1 _want=$2
	shift 2
	sleep 0.5
	"$B" snapshot --pid "$_pid" "$@" >"$T/s.out" 2>"$T/s.err" ||
		{ cat "$T/s.err"; fail "snapshot $*: failed"; }
	[ "$(cat "$T/s.out")" = "$_want" ] || fail "snapshot $*: '$(cat "$T/s.out")', want '$_want'"
	[ -f "$_want" ] || fail "snapshot $*: no $_want"
}
snap "$REC" "$T/bag/ev1.db3" --name ev1
snap "$REC" "$T/bag/ev1_2.db3" --name ev1
snap "$REC" "$T/bag/bag_0.db3"
snap "$REC" "$T/bag/bag_1.db3" --name bag_1
snap "$REC" "$T/bag/bag_2.db3"
: >"$T/bag/taken.db3"
snap "$REC" "$T/bag/taken_2.db3" --name taken --before 0.3
rm "$T/bag/taken.db3"
snap "$RECS" "$T/bagm/ev1.mcap" --name ev1
snap "$RECS" "$T/bagm/ev1_2.mcap" --name ev1
snap "$RECS" "$T/bagm/bagm_0.mcap"
kill "$PUB" 2>/dev/null
wait "$PUB"
stop_wait "$RECS" 300
RECS=""
[ "$rc" = 0 ] || fail "record -s mcap exit $rc"
stop_wait "$REC" 300
REC=""
[ "$rc" = 0 ] || fail "record exit $rc"
grep -q "snapshot 2: .* written to .*/bag/ev1_2.db3" "$T/full.txt" ||
	{ cat "$T/full.txt"; fail "the log does not name ev1_2.db3"; }

# files CHECK BAG WANT: the storage files on disk, and in metadata.yaml in
# the order written (WANT's)
files() {
	_d=$(cd "$2" && ls | grep -v '^metadata.yaml$' | sort | tr '\n' ' ')
	_w=$(echo $3 | tr ' ' '\n' | sort | tr '\n' ' ')
	[ "$_d" = "$_w" ] || fail "$1: files on disk '$_d', want '$_w'"
	_m=$(sed -n '/relative_file_paths:/,/^ *[a-z_]*:$/s/^ *- *//p' "$2/metadata.yaml" |
		tr '\n' ' ')
	[ "$_m" = "$3" ] || { cat "$2/metadata.yaml"; fail "$1: metadata.yaml lists '$_m'"; }
}
want="ev1.db3 ev1_2.db3 bag_0.db3 bag_1.db3 bag_2.db3 taken_2.db3 "
wantm="ev1.mcap ev1_2.mcap bagm_0.mcap "
files record "$T/bag" "$want"
files "record -s mcap" "$T/bagm" "$wantm"

# every file holds messages; info's total is their sum
total=0
for f in $want; do
	c=$(sqlite3 "$T/bag/$f" "select count(*) from messages")
	[ "$c" -gt 5 ] || fail "$f: $c messages"
	total=$((total + c))
done
"$B" info "$T/bag" >"$T/info" || fail "info"
grep -q "^Messages: *$total\$" "$T/info" || { cat "$T/info"; fail "info: not $total messages"; }
for f in $want; do
	grep -Eq "^(Files:)? +$f\$" "$T/info" || { cat "$T/info"; fail "info: no $f"; }
done
"$B" info "$T/bagm" >"$T/infom" || fail "info (mcap)"
for f in $wantm; do
	grep -Eq "^(Files:)? +$f\$" "$T/infom" || { cat "$T/infom"; fail "info (mcap): no $f"; }
done
"$B" check "$T/bag" >/dev/null || fail "check"
"$B" check "$T/bagm" >/dev/null || fail "check (mcap)"

# reindex rebuilds metadata.yaml from the files: it keeps them all, in the
# order written (rosbag2 plays the files in the order listed)
for d in bag bagm; do
	mv "$T/$d/metadata.yaml" "$T/$d.yaml.old"
	"$B" reindex "$T/$d" >"$T/reindex_$d" 2>&1 || { cat "$T/reindex_$d"; fail "reindex $d"; }
done
files reindex "$T/bag" "$want"
files "reindex (mcap)" "$T/bagm" "$wantm"
"$B" info "$T/bag" >"$T/info2" || fail "info after reindex"
grep -q "^Messages: *$total\$" "$T/info2" || { cat "$T/info2"; fail "reindex: not $total messages"; }
"$B" check "$T/bag" >/dev/null || fail "check after reindex"
"$B" check "$T/bagm" >/dev/null || fail "check after reindex (mcap)"
echo ok
