#!/bin/sh
# A filesystem that really fills up: a 1 MiB tmpfs in a private mount
# namespace. `bagtop demo` (splitting files) must stop with one error line
# and exit 1; what was committed must stay readable; once there is room
# again, `bagtop reindex` and `bagtop check` must accept the bag with every
# committed message in it.
set -u
B=${BAGTOP_BIN:?}
if ! unshare -rm true 2>/dev/null; then
	echo "SKIP: cannot make a private mount namespace here (unshare -rm refused)"
	exit 77
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/bagtop-test-tmpfs-XXXXXX")
trap 'rm -rf "$T"' EXIT
mkdir "$T/mnt"
unshare -rm sh -s "$T" "$B" <<'INNER'
set -u
T=$1 B=$2
fail() { echo "FAIL: $*"; exit 1; }
mount -t tmpfs -o size=1m bagtop-full "$T/mnt" || { echo "SKIP: cannot mount a tmpfs"; exit 77; }
"$B" demo -o "$T/mnt/bag" -b 200000 --domain 103 --duration 20 >"$T/out" 2>"$T/err"
rc=$?
echo "demo exit $rc; stderr:"; cat "$T/err"
[ "$rc" = 1 ] || fail "exit status $rc, want 1"
[ "$(wc -l <"$T/err")" = 1 ] || fail "want exactly one error line"
grep -q '^bagtop: error: .*no space left on the device' "$T/err" || fail "unclear error line"
kept=$(sed -n 's/.*(the \([0-9]*\) messages committed before.*/\1/p' "$T/err")
[ -n "$kept" ] && [ "$kept" -gt 0 ] || fail "error line does not say what was kept"
"$B" info "$T/mnt/bag" >/dev/null || fail "bag unreadable after the failure"
mount -o remount,size=16m "$T/mnt" || fail "remount"
"$B" reindex "$T/mnt/bag" >"$T/reindex" 2>&1 || { cat "$T/reindex"; fail "reindex"; }
cat "$T/reindex"
grep -q ", $kept messages\$" "$T/reindex" || fail "reindexed bag does not hold the $kept committed messages"
"$B" check "$T/mnt/bag" || fail "check"
INNER
