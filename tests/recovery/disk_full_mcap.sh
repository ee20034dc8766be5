#!/bin/sh
# -s mcap on a filesystem that fills up (a 1 MiB tmpfs in a private mount
# namespace; DDS domain 57): `bagtop demo` stops with one error line naming
# the full disk and `bagtop reindex`, and exit 1; once there is room,
# reindex rebuilds the file that ends without a footer from its complete
# chunks (no more messages than the error said were committed) and check
# passes.
set -u
B=${BAGTOP_BIN:?}
if ! unshare -rm true 2>/dev/null; then
	echo "SKIP: cannot make a private mount namespace here (unshare -rm refused)"
	exit 77
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/bagtop-test-mcapfull-XXXXXX")
trap 'rm -rf "$T"' EXIT
mkdir "$T/mnt"
unshare -rm sh -s "$T" "$B" <<'INNER'
set -u
T=$1 B=$2
fail() { echo "FAIL: $*"; exit 1; }
mount -t tmpfs -o size=1m bagtop-full "$T/mnt" || { echo "SKIP: cannot mount a tmpfs"; exit 77; }
timeout -s KILL 60 "$B" demo -s mcap -d 1 -o "$T/mnt/bag" --domain 57 --duration 20 \
	>"$T/out" 2>"$T/err"
rc=$?
echo "demo exit $rc; stderr:"; cat "$T/err"
[ "$rc" = 1 ] || fail "exit status $rc, want 1"
[ "$(wc -l <"$T/err")" = 1 ] || fail "want exactly one error line"
grep -q "^bagtop: error: .*No space left on device.*run 'bagtop reindex $T/mnt/bag'" "$T/err" ||
	fail "unclear error line"
said=$(sed -n 's/.*(the \([0-9]*\) messages committed before, but for those of the last second,.*/\1/p' "$T/err")
[ -n "$said" ] || fail "the error does not say what was kept"
"$B" info "$T/mnt/bag" >/dev/null || fail "bag unreadable after the failure"
mount -o remount,size=16m "$T/mnt" || fail "remount"
"$B" reindex "$T/mnt/bag" >"$T/reindex" 2>&1 || { cat "$T/reindex"; fail "reindex"; }
cat "$T/reindex"
kept=$(sed -n 's/.*metadata.yaml rebuilt: .* file.*, \([0-9]*\) messages$/\1/p' "$T/reindex")
[ -n "$kept" ] && [ "$kept" -le "$said" ] || fail "reindex kept '$kept' of $said"
"$B" check "$T/mnt/bag" || fail "check"
ls "$T/mnt/bag" | grep -q '\.reindex$' && fail "repair file left behind"
echo "PASS: $said committed, $kept kept"
INNER
