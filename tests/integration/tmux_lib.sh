# Shared by the tmux tests (sourced): drive a pane of the tmux server on
# socket $SOCK and read the bag with the sqlite3 shell. The sourcing script
# sets SOCK; tmux_test_dir sets the cleanup at exit.

# tmux_test_dir TAG: what every tmux test needs (B, P: the binaries ctest
# gives; tmux and the sqlite3 shell, else exit 77, skipped), and T, a fresh
# scratch directory named after TAG. At exit the tmux server on $SOCK and
# the processes in $PUBS (PIDs, which the script adds) end and T is removed.
tmux_test_dir() {
	B=${BAGTOP_BIN:?}
	P=${BAGTOP_TPUB:?}
	command -v tmux >/dev/null || { echo "SKIP: tmux is not installed"; exit 77; }
	command -v sqlite3 >/dev/null ||
		{ echo "SKIP: the sqlite3 shell is not installed"; exit 77; }
	T=$(mktemp -d "${TMPDIR:-/tmp}/bagtop-test-$1-XXXXXX") || exit 1
	PUBS=""
	trap tmux_cleanup EXIT
}
tmux_cleanup() {
	tm kill-server 2>/dev/null
	[ -n "$PUBS" ] && kill $PUBS 2>/dev/null
	rm -rf "$T"
}
tm() { tmux -L "$SOCK" "$@"; }
# A cleanup for `trap tmux_cleanup EXIT`: the tmux server, the publishers
# whose pids are in $PUBS, the scratch directory.
tmux_cleanup() {
	tm kill-server 2>/dev/null
	[ -n "${PUBS:-}" ] && kill $PUBS 2>/dev/null
	rm -rf "$T"
}
screen() { tm capture-pane -p; }
fail() {
	echo "FAIL: $*"
	echo "--- screen:"
	screen 2>/dev/null
	exit 1
}
# wait_for SECONDS COMMAND...: until COMMAND succeeds (polled every 0.1 s).
wait_for() {
	n=$(($1 * 10))
	shift
	while [ "$n" -gt 0 ]; do
		"$@" && return 0
		sleep 0.1
		n=$((n - 1))
	done
	return 1
}
on_screen() { screen | grep -q -- "$1"; }
not_on_screen() { ! on_screen "$1"; }
now_ns() { date +%s%N; }
# Largest timestamp of TOPIC over every file of BAG (0 when none).
last_stamp() {
	m=0
	for f in "$1"/*.db3; do
		v=$(sqlite3 "$f" "SELECT coalesce(max(m.timestamp), 0) FROM messages m JOIN topics t
			ON m.topic_id = t.id WHERE t.name = '$2';" 2>/dev/null || echo 0)
		[ "${v:-0}" -gt "$m" ] && m=$v
	done
	echo "$m"
}
# Messages of any topic of BAG stamped in the open interval (FROM, TO) ns.
count_between() {
	c=0
	for f in "$1"/*.db3; do
		v=$(sqlite3 "$f" "SELECT count(*) FROM messages WHERE timestamp > $2 AND timestamp < $3;")
		c=$((c + v))
	done
	echo "$c"
}
