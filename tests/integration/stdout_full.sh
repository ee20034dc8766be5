#!/bin/sh
# Standard output that cannot be written is an error: `bagtop info BAG >
# report` on a full disk (/dev/full) or with stdout closed exits 1 with one
# line saying so, never 0 with half a report; a pipe whose reader went
# away (`| head`) is not an error.
set -u
B=${BAGTOP_BIN:?}
F=${BAGTOP_FIXTURES:-}
T=$(mktemp -d "${TMPDIR:-/tmp}/bagtop-test-stdout-XXXXXX")
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# full WANT_RC ARGS...: stdout to /dev/full, then closed
full() {
	want=$1
	shift
	"$B" "$@" >/dev/full 2>"$T/err"
	rc=$?
	[ "$rc" = "$want" ] || { cat "$T/err"; fail "$* >/dev/full: exit $rc, want $want"; }
	grep -q "bagtop: error: cannot write the output: No space left on device" "$T/err" ||
		{ cat "$T/err"; fail "$* >/dev/full: no error line"; }
	"$B" "$@" >&- 2>"$T/err"
	rc=$?
	[ "$rc" = "$want" ] || { cat "$T/err"; fail "$* >&-: exit $rc, want $want"; }
	grep -q "bagtop: error: cannot write the output" "$T/err" ||
		{ cat "$T/err"; fail "$* >&-: no error line"; }
	echo "ok: $*"
}

full 1 --version
full 1 --help
full 1 info --help
# nothing written to stdout: no output error, the command's own
"$B" info "$T/no-such-bag" >/dev/full 2>"$T/err"
rc=$?
[ "$rc" = 1 ] && ! grep -q "cannot write the output" "$T/err" && grep -q "no-such-bag" "$T/err" ||
	{ cat "$T/err"; fail "info of no bag >/dev/full: exit $rc"; }

# a reader that goes away is not an error (the process may end by SIGPIPE)
"$B" --help | head -c 1 >/dev/null
rc=$?
[ "$rc" = 0 ] || fail "--help | head: exit $rc"

# nor when record (demo) wrote status lines into it after that, with
# SIGPIPE ignored: the bag is what counts (DDS on loopback, domain 89)
("$B" demo --no-tui --duration 3 --domain 89 -o "$T/demo" 2>"$T/demo.err"; echo $? >"$T/rc") |
	head -n 1 >/dev/null
[ "$(cat "$T/rc")" = 0 ] || { cat "$T/demo.err"; fail "demo | head -n 1: exit $(cat "$T/rc")"; }
"$B" check "$T/demo" >/dev/null || fail "demo | head -n 1: the bag does not pass check"
echo "ok: demo | head -n 1"

if [ -z "$F" ] || [ ! -d "$F/talker" ]; then
	echo "SKIPPED in part: no fixtures (../shared/fixtures/rosbag2)"
	exit 0
fi
full 1 info "$F/talker"
full 1 info -v "$F/talker"
full 1 check "$F/talker"
"$B" info "$F/talker" >"$T/ok" 2>"$T/err" || fail "info talker: exit $?"
[ -s "$T/ok" ] && [ ! -s "$T/err" ] || fail "info talker to a file: not clean"
echo "ok: fixtures"
