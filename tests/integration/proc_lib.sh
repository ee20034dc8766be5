# proc_lib.sh — helpers for the integration scripts that run bagtop as a
# background process (sourced; the script defines fail(), or calls
# proc_scratch, which defines one).

# wait_for FILE PATTERN TENTHS: until FILE has a line matching PATTERN,
# at most TENTHS tenths of a second; then fail, showing FILE.
wait_for() {
	_i=0
	until grep -q -- "$2" "$1" 2>/dev/null; do
		_i=$((_i + 1))
		[ $_i -lt "$3" ] || { cat "$1"; fail "no '$2' in $1"; }
		sleep 0.1
	done
}

# usage_error WANT ARGS...: `bagtop ARGS` ($B) is a usage error: exit 2
# and one line, which holds WANT (a fixed string; "" for any). The output
# is left in $T/u.
usage_error() {
	_want=$1
	shift
	"$B" "$@" >"$T/u" 2>&1
	_r=$?
	[ "$_r" = 2 ] || { cat "$T/u"; fail "$*: exit $_r, want 2"; }
	[ "$(wc -l <"$T/u")" = 1 ] || { cat "$T/u"; fail "$*: not one line"; }
	[ -z "$_want" ] || grep -qF -- "$_want" "$T/u" || { cat "$T/u"; fail "$*: does not say '$_want'"; }
}

# exit_wait PID TENTHS: waits at most TENTHS tenths of a second for PID to
# end (SIGKILL and fail after that); its status in $rc.
exit_wait() {
	_i=0
	while kill -0 "$1" 2>/dev/null; do
		_i=$((_i + 1))
		[ $_i -lt "$2" ] || { kill -KILL "$1"; fail "process $1 did not end in time"; }
		sleep 0.1
	done
	wait "$1"
	rc=$?
}

# stop_wait PID TENTHS [SIGNAL]: SIGNAL (default INT), then exit_wait.
stop_wait() {
	kill -"${3:-INT}" "$1"
	exit_wait "$1" "$2"
}

# record_bg OUT ARGS...: `bagtop record --no-tui --disable-keyboard-controls
# ARGS...` ($BAGTOP_BIN) in the background, its output in OUT, its pid in
# $rec and added to $RECS (killed at exit by proc_scratch's cleanup, also
# when it never says it records); returns once it says "Recording to"
# (fails after 20 s).
record_bg() {
	_out=$1
	shift
	"${BAGTOP_BIN:?}" record --no-tui --disable-keyboard-controls "$@" >"$_out" 2>&1 &
	rec=$!
	RECS="${RECS:-} $rec"
	wait_for "$_out" '^Recording to' 200
}

# tpub_run OUT ARGS...: tpub ARGS... ($BAGTOP_TPUB) to its end, its output in
# OUT; fails, showing OUT, unless it exits 0.
tpub_run() {
	_out=$1
	shift
	"${BAGTOP_TPUB:?}" "$@" >"$_out" 2>&1 || { cat "$_out"; fail "tpub $*"; }
}

# topic_count BAG TOPIC: prints how many messages of TOPIC the .db3 files
# of the bag folder BAG hold, all files together (needs the sqlite3 shell).
topic_count() {
	_n=0
	for _db in "$1"/*.db3; do
		_n=$((_n + $(sqlite3 "$_db" "SELECT count(*) FROM messages m JOIN topics t ON \
m.topic_id = t.id WHERE t.name = '$2'"))) || return 1
	done
	echo "$_n"
}

# proc_scratch NAME: a scratch directory in $T for a script that runs
# bagtop in the background. At exit the processes in $REC and $RECS (PIDs;
# empty when none is running) are killed and $T is removed. Defines fail(),
# which shows the tail of every $T/*.log; a script may define its own
# after this call.
proc_scratch() {
	T=$(mktemp -d "${TMPDIR:-/tmp}/bagtop-test-$1-XXXXXX") || exit 1
	REC="" RECS=""
	trap proc_cleanup EXIT
	fail() {
		echo "FAIL: $*"
		for _f in "$T"/*.log; do [ -f "$_f" ] && { echo "--- $_f:"; tail -20 "$_f"; }; done
		exit 1
	}
}

proc_cleanup() {
	for _p in $REC $RECS; do kill -9 "$_p" 2>/dev/null; done
	rm -rf "$T"
}
