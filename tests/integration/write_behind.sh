#!/bin/sh
# Direct I/O (bt_dio) or, where the file system refuses it, write-behind
# (bt_wbehind) is for the recording stream only. Real bagtop and tpub
# processes, DDS domain 98, every bagtop under strace:
#   record -s mcap, 50 MiB of 256 KiB messages at 50 Hz: O_DIRECT set on
#     the bag's file (fcntl F_SETFL) where the scratch directory's file
#     system reports direct I/O (statx STATX_DIOALIGN, as bt_dio asks),
#     else sync_file_range (write-back started) and posix_fadvise
#     DONTNEED (dropped from the cache); the bag passes check with every
#     message. At 50 Hz a window of 8 MiB takes 0.64 s, so a write-back
#     that pauses (blocked for a quarter of that) means a disk far behind,
#     not load.
#   record --snapshot-mode, a 10 MiB snapshot, and convert of the bag
#     above: bursts a user waits for, left to the page cache: none of the
#     three.
# Skipped (77) without strace.
set -u
B=${BAGTOP_BIN:?}
P=${BAGTOP_TPUB:?}
# shellcheck source=proc_lib.sh
. "${BAGTOP_SOURCE_DIR:?}/tests/integration/proc_lib.sh"
command -v strace >/dev/null || { echo "SKIP: strace is not installed"; exit 77; }
proc_scratch wbehind
# LeakSanitizer cannot run under ptrace (an ASan build exits 1 at its end):
# this script's runs go without it; every other test checks for leaks.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"

# traced OUT TRACE ARGS...: `bagtop ARGS` under strace (only the two
# calls), in the background: bagtop's pid in $rec, strace's (which exits
# with bagtop's status) in $st. --seccomp-bpf stops bagtop at those two
# calls only: stopped at every recvmsg too, a TSan build beside other
# tests fell so far behind that tpub's history overwrote 62 of the 200.
# tpub keeps all 200 (--depth 200): even a recorder that falls behind gets
# every one (CI's TSan run at -j4 had 190 with tpub's default depth 100).
traced() {
	_out=$1 _trace=$2
	shift 2
	strace -f -qq --seccomp-bpf -e trace=sync_file_range,fadvise64,fcntl -o "$_trace" \
		"$B" "$@" >"$_out" 2>&1 &
	st=$!
	RECS="$RECS $st"
	wait_for "$_out" '^Recording to' 200
	rec=$(pgrep -P "$st")
	[ -n "$rec" ] || fail "no bagtop under strace $st"
}

# stop_traced: SIGINT to bagtop, then strace's end (30 s at most); exit 0.
stop_traced() {
	kill -INT "$rec"
	exit_wait "$st" 300
	[ "$rc" = 0 ] || fail "bagtop $*exited $rc"
}

# calls TRACE NAME: how many calls of NAME succeeded in TRACE.
calls() {
	grep -c "$2(.*) = 0" "$1"
}

# direct TRACE: how many times O_DIRECT was set.
direct() {
	grep -c 'fcntl(.*F_SETFL, .*O_DIRECT.*) = 0' "$1"
}

traced "$T/rec.log" "$T/rec.trace" record --no-tui --disable-keyboard-controls -s mcap \
	--domain 98 -o "$T/bag" /big
tpub_run "$T/pub.log" --domain 98 --topic rt/big --type string --size 262144 --count 200 --depth 200 \
	--rate 50 --wait-readers 1
stop_traced
n=$(calls "$T/rec.trace" sync_file_range)
"${BAGTOP_DIOALIGN:?}" "$T"
dio=$?
[ "$dio" -le 1 ] || fail "dioalign $T exited $dio"
if [ "$dio" = 0 ]; then
	how="direct I/O"
	# at least once: a write that stalls on a loaded machine pauses direct
	# I/O for a second, and it is set again after (bt_dio.h)
	[ "$(direct "$T/rec.trace")" -ge 1 ] || { cat "$T/rec.trace"; fail "record: O_DIRECT never set"; }
	[ "$n" = 0 ] || fail "record: direct I/O and write-behind"
else
	how="write-behind"
	[ "$(direct "$T/rec.trace")" = 0 ] || { cat "$T/rec.trace"; fail "record: O_DIRECT"; }
	[ "$n" -ge 4 ] || { cat "$T/rec.trace"; fail "record: $n sync_file_range calls, want >= 4"; }
	grep -q 'fadvise64(.*POSIX_FADV_DONTNEED) = 0' "$T/rec.trace" ||
		{ cat "$T/rec.trace"; fail "record: nothing dropped from the page cache"; }
fi
"$B" info "$T/bag" >"$T/info.log" 2>&1 || fail "info"
grep -q 'Messages: *200$' "$T/info.log" || fail "info: not 200 messages"
"$B" check "$T/bag" >"$T/check.log" 2>&1 || fail "check"

strace -f -qq -e trace=sync_file_range,fadvise64,fcntl -o "$T/conv.trace" \
	"$B" convert -s mcap "$T/bag" "$T/conv" >"$T/conv.log" 2>&1 || fail "convert"
[ "$(calls "$T/conv.trace" sync_file_range)" = 0 ] || fail "convert: sync_file_range"
[ "$(direct "$T/conv.trace")" = 0 ] || fail "convert: O_DIRECT"

traced "$T/snap.log" "$T/snap.trace" record --no-tui --disable-keyboard-controls -s mcap \
	--snapshot-mode --domain 98 -o "$T/snap" /big
tpub_run "$T/pub2.log" --domain 98 --topic rt/big --type string --size 262144 --count 40 \
	--rate 100 --wait-readers 1
"$B" snapshot --pid "$rec" >"$T/s.log" 2>&1 || fail "snapshot"
stop_traced "in snapshot mode "
[ "$(calls "$T/snap.trace" sync_file_range)" = 0 ] || fail "snapshot: sync_file_range"
[ "$(direct "$T/snap.trace")" = 0 ] || fail "snapshot: O_DIRECT"
"$B" info "$T/snap" >"$T/sinfo.log" 2>&1 || fail "info of the snapshot"
grep -q 'Messages: *40$' "$T/sinfo.log" || { cat "$T/sinfo.log"; fail "snapshot: not 40 messages"; }
echo "write_behind: ok (record: $how, $n sync_file_range calls)"
