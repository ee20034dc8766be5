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

# stop_wait PID TENTHS: SIGINT, then exit_wait.
stop_wait() {
	kill -INT "$1"
	exit_wait "$1" "$2"
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
