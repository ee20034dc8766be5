#!/bin/sh
# A filesystem that really fills up: a 1 MiB tmpfs in a private mount
# namespace. `bagtop demo` (splitting files) must stop with one error line
# and exit 1; what was committed must stay readable; once there is room
# again, `bagtop reindex` and `bagtop check` must accept the bag with every
# committed message in it.
# Then what the error says (DDS domains 210, 211): with the resilient
# preset (WAL) metadata.yaml is as of the last split, so the error must say
# to run `bagtop reindex`; a disk too small for the bag's first file: the
# error says so, and no half-made bag is left (or one check recognises).
# With -s mcap (domain 57): the same, through MCAP's own repair.
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
# full_demo WHAT PATTERN ARGS...: `bagtop demo -o $T/mnt/bag ARGS...`
# (killed after 60 s) must exit 1 with exactly one line on stderr, and that
# line must match PATTERN (grep).
full_demo() {
	what=$1 want=$2
	shift 2
	timeout -s KILL 60 "$B" demo -o "$T/mnt/bag" "$@" >"$T/out" 2>"$T/err"
	rc=$?
	echo "$what: exit $rc; stderr:"; cat "$T/err"
	[ "$rc" = 1 ] || fail "$what: exit status $rc, want 1"
	[ "$(wc -l <"$T/err")" = 1 ] || fail "$what: want exactly one error line"
	grep -q "$want" "$T/err" || fail "$what: the error line does not say '$want'"
}
mount -t tmpfs -o size=1m bagtop-full "$T/mnt" || { echo "SKIP: cannot mount a tmpfs"; exit 77; }
full_demo demo '^bagtop: error: .*no space left on the device' \
	--min-free-space 0 -b 200000 --domain 103 --duration 20
kept=$(sed -n 's/.*(the \([0-9]*\) messages committed before.*/\1/p' "$T/err")
[ -n "$kept" ] && [ "$kept" -gt 0 ] || fail "error line does not say what was kept"
"$B" info "$T/mnt/bag" >/dev/null || fail "bag unreadable after the failure"
mount -o remount,size=16m "$T/mnt" || fail "remount"
"$B" reindex "$T/mnt/bag" >"$T/reindex" 2>&1 || { cat "$T/reindex"; fail "reindex"; }
cat "$T/reindex"
grep -q ", $kept messages\$" "$T/reindex" || fail "reindexed bag does not hold the $kept committed messages"
"$B" check "$T/mnt/bag" || fail "check"

umount "$T/mnt" && mount -t tmpfs -o size=1m bagtop-full "$T/mnt" || fail "fresh tmpfs"
full_demo resilient "no space left on the device.*run 'bagtop reindex $T/mnt/bag'" \
	--min-free-space 0 --storage-preset-profile resilient --domain 210 --duration 20
mount -o remount,size=16m "$T/mnt" || fail "remount"
"$B" reindex "$T/mnt/bag" || fail "reindex"
"$B" check "$T/mnt/bag" || fail "check after reindex"

umount "$T/mnt" && mount -t tmpfs -o size=8k bagtop-tiny "$T/mnt" || fail "tiny tmpfs"
full_demo tiny "no room for the bag's first file" --min-free-space 0 --domain 211 --duration 5
if [ -e "$T/mnt/bag" ]; then
	"$B" check "$T/mnt/bag" >"$T/check" 2>&1
	cat "$T/check"
	grep -q "first file was complete" "$T/check" || fail "check does not recognise the bag"
fi

# -s mcap (domain 57): one error line naming the full disk and reindex, and
# that the last second's messages may be gone; once there is room, reindex
# rebuilds the file without a footer from its complete chunks (no more
# messages than were committed), check passes, no repair file is left.
umount "$T/mnt" && mount -t tmpfs -o size=1m bagtop-full "$T/mnt" || fail "mcap tmpfs"
full_demo mcap "^bagtop: error: .*No space left on device.*run 'bagtop reindex $T/mnt/bag'" \
	-s mcap -d 1 --domain 57 --duration 20
said=$(sed -n 's/.*(the \([0-9]*\) messages committed before, but for those of the last second,.*/\1/p' "$T/err")
[ -n "$said" ] || fail "the error does not say what was kept"
"$B" info "$T/mnt/bag" >/dev/null || fail "mcap bag unreadable after the failure"
mount -o remount,size=16m "$T/mnt" || fail "remount"
"$B" reindex "$T/mnt/bag" >"$T/reindex" 2>&1 || { cat "$T/reindex"; fail "mcap reindex"; }
cat "$T/reindex"
kept=$(sed -n 's/.*metadata.yaml rebuilt: .* file.*, \([0-9]*\) messages$/\1/p' "$T/reindex")
[ -n "$kept" ] && [ "$kept" -le "$said" ] || fail "reindex kept '$kept' of $said"
"$B" check "$T/mnt/bag" || fail "mcap check"
ls "$T/mnt/bag" | grep -q '\.reindex$' && fail "repair file left behind"
echo "mcap: $said committed, $kept kept"
exit 0
INNER
