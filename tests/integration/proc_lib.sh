# proc_lib.sh — helpers for the integration scripts that run bagtop as a
# background process (sourced; the script defines fail()).

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

# stop_wait PID TENTHS: SIGINT, then waits at most TENTHS tenths of a
# second for PID to end (SIGKILL and fail after that); its status in $rc.
stop_wait() {
	kill -INT "$1"
	_i=0
	while kill -0 "$1" 2>/dev/null; do
		_i=$((_i + 1))
		[ $_i -lt "$2" ] || { kill -KILL "$1"; fail "process $1 did not stop"; }
		sleep 0.1
	done
	wait "$1"
	rc=$?
}
