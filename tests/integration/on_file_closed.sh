#!/bin/sh
# --on-file-closed with the real binary and real publishers (tpub), DDS
# domains 70..75: a command runs once per finished file (splits by size,
# the final close, snapshots from `bagtop snapshot --pid`) with the
# documented environment, only once the file is complete (the command
# itself checks it and copies it; the copy must hold every message the
# final file holds); never for a file whose close failed (a full tmpfs); a
# command that hangs stops neither recording nor splitting, and the exit
# waits only for --on-file-closed-timeout; a command that is not executable
# or fails is a log line with its status and stderr; bad values: exit 2.
set -u
B=${BAGTOP_BIN:?}
P=${BAGTOP_TPUB:?}
T=$(mktemp -d "${TMPDIR:-/tmp}/bagtop-test-hook-XXXXXX")
trap 'rm -rf "$T"' EXIT
T=$(realpath "$T")
fail() { echo "FAIL: $*"; exit 1; }

# The hook: logs its environment (one file per call, under $T/calls/N),
# runs `bagtop check` on the file it is given and copies it.
mkdir "$T/calls"
cat >"$T/hook.sh" <<EOF
#!/bin/sh
n=\$(mktemp -d "$T/calls/XXXXXX")
env | grep '^BAGTOP_' | sort >"\$n/env"
"$B" check "\$BAGTOP_FILE" >"\$n/check" 2>&1
echo \$? >"\$n/check_rc"
stat -c %s "\$BAGTOP_FILE" >"\$n/size"
cp "\$BAGTOP_FILE" "\$n/copy"
EOF
chmod +x "$T/hook.sh"

# shellcheck source=proc_lib.sh
. "${BAGTOP_SOURCE_DIR:?}/tests/integration/proc_lib.sh"

# record ARGS... in the background; $rec, output in $T/out.
record() {
	record_bg "$T/out" "$@"
	sleep 1 # discovery
}
stop() { # SIGINT, wait (bounded), $rc
	stop_wait "$rec" 600
	cat "$T/out"
}
pub() { # DOMAIN COUNT [tpub args...]
	d=$1 n=$2
	shift 2
	tpub_run "$T/pub" --domain "$d" --topic rt/hooked --type string --count "$n" \
		--wait-readers 1 "$@"
}
var() { sed -n "s/^$2=//p" "$1/env"; }
msgs_of() { "$B" info "$1" | sed -n 's/^Messages: *//p'; }

# Each call names a different file; every file of the bag got exactly one
# call (but those listed in $1, separated by spaces, none); each call's
# file was complete: check passed and its copy holds what the final file
# holds; its variables say what the file is. $2: the reason of all calls
# but the last file's, $3 the last file's.
check_calls() {
	skip=$1 reason=$2 last_reason=$3 bag=$4
	files=$(cd "$bag" && ls ./*.db3* | sed 's|^\./||' | sort)
	last=$(echo "$files" | sort -t_ -k2 -n | tail -1)
	ncalls=$(ls "$T/calls" | wc -l)
	nwant=0
	for f in $files; do
		case " $skip " in *" $f "*) continue ;; esac
		nwant=$((nwant + 1))
		c=$(grep -l "^BAGTOP_FILE=$bag/$f\$" "$T"/calls/*/env | xargs -r -n1 dirname)
		[ "$(echo "$c" | grep -c .)" = 1 ] || fail "$f: $(echo "$c" | grep -c .) calls, want 1"
		[ "$(cat "$c/check_rc")" = 0 ] || { cat "$c/check"; fail "$f: check failed in the hook"; }
		want=$(msgs_of "$bag/$f")
		[ "$(msgs_of "$c/copy")" = "$want" ] || fail "$f: the hook saw $(msgs_of "$c/copy") messages, the file has $want"
		[ "$(var "$c" BAGTOP_MESSAGES)" = "$want" ] || fail "$f: BAGTOP_MESSAGES $(var "$c" BAGTOP_MESSAGES), want $want"
		[ "$(var "$c" BAGTOP_BYTES)" = "$(cat "$c/size")" ] || fail "$f: BAGTOP_BYTES"
		[ "$(var "$c" BAGTOP_BAG)" = "$bag" ] || fail "$f: BAGTOP_BAG $(var "$c" BAGTOP_BAG)"
		r=$reason
		[ "$f" = "$last" ] && r=$last_reason
		[ "$(var "$c" BAGTOP_REASON)" = "$r" ] || fail "$f: BAGTOP_REASON $(var "$c" BAGTOP_REASON), want $r"
	done
	[ "$ncalls" = "$nwant" ] || fail "$ncalls calls for $nwant files"
	echo "ok: $ncalls calls, one per file"
}

# 1. Splits by size and the final close (domain 70).
record -a --domain 70 -o "$T/bag" -b 100000 --on-file-closed "$T/hook.sh" \
	--log-file "$T/log"
pub 70 100 --size 4000 --rate 100
stop
[ "$rc" = 0 ] || fail "record exit $rc"
grep -q ' /hooked .* 100 recorded' "$T/out" || fail "not every message recorded"
[ "$(ls "$T/bag" | grep -c 'db3$')" -ge 4 ] || fail "want at least 4 files"
check_calls "" split close "$T/bag"
[ "$(grep -c 'on-file-closed for .*: exit status 0' "$T/log")" = "$(ls "$T/calls" | wc -l)" ] ||
	fail "want one log line per call"
"$B" check "$T/bag" || fail "check"

# 2. Snapshot mode: one call per snapshot, none for the empty file that
# waits for the next, which is deleted at the end (domain 71).
rm -rf "$T/calls" && mkdir "$T/calls"
record -a --domain 71 -o "$T/snap" --snapshot-mode --on-file-closed "$T/hook.sh"
"$P" --domain 71 --topic rt/hooked --type string --count 200 --rate 50 --wait-readers 1 \
	>"$T/pub" 2>&1 &
pub_pid=$!
sleep 1.5
"$B" snapshot --pid "$rec" --timeout 20 || fail "first snapshot"
i=0
until [ "$(ls "$T/calls" | wc -l)" = 1 ]; do
	i=$((i + 1))
	[ $i -lt 100 ] || fail "no call for the first snapshot before the next"
	sleep 0.1
done
sleep 1
"$B" snapshot --pid "$rec" --timeout 20 || fail "second snapshot"
wait "$pub_pid" || { cat "$T/pub"; fail "tpub"; }
stop
[ "$rc" = 0 ] || fail "record exit $rc"
last=$(cd "$T/snap" && ls ./*.db3 | sed 's|^\./||' | sort -t_ -k2 -n | tail -1)
[ "$(msgs_of "$T/snap/$last")" != 0 ] || fail "the empty file that waited should be gone"
[ "$(ls "$T/snap"/*.db3 | wc -l)" = 2 ] || fail "want 2 files, one per snapshot"
[ "$(ls "$T/calls" | wc -l)" = 2 ] || fail "want 2 calls, one per snapshot"
check_calls "" snapshot snapshot "$T/snap"

# 3. A hook that hangs: recording and splitting go on; the exit waits for
# the timeout only, and names what it killed and what never ran (domain 72).
record -a --domain 72 -o "$T/hang" -b 100000 --on-file-closed 'sleep 1000' \
	--on-file-closed-timeout 2 --log-file "$T/hang.log"
pub 72 100 --size 4000 --rate 100
t0=$(date +%s)
stop
t1=$(date +%s)
[ "$rc" = 0 ] || fail "record exit $rc"
grep -q ' /hooked .* 100 recorded' "$T/out" || fail "not every message recorded"
[ "$(ls "$T/hang" | grep -c 'db3$')" -ge 4 ] || fail "splitting stopped"
[ $((t1 - t0)) -ge 2 ] || fail "did not wait for the timeout"
[ $((t1 - t0)) -le 20 ] || fail "waited $((t1 - t0)) s, not the 2 s timeout"
grep -q 'Waiting up to 2 s for .* --on-file-closed commands' "$T/out" || fail "no waiting line"
grep -q -- "--on-file-closed still running, killed: for $T/hang/hang_0.db3 (split)" "$T/out" ||
	fail "the killed command is not named"
grep -q -- '--on-file-closed not run (recording ended): for .*(close)' "$T/out" ||
	fail "the commands never run are not named"
grep -q 'still running at exit, killed' "$T/hang.log" || fail "no log line for the kill"
"$B" check "$T/hang" || fail "check"

# 4. Not executable, and a failing command: a log line with the status and
# the stderr, nothing lost (domains 73, 74).
printf 'echo never\n' >"$T/noexec.sh"
record -a --domain 73 -o "$T/noexec" --on-file-closed "$T/noexec.sh" --log-file "$T/noexec.log"
pub 73 20
stop
[ "$rc" = 0 ] || fail "record exit $rc"
grep -q ' /hooked .* 20 recorded' "$T/out" || fail "not every message recorded"
grep -q "on-file-closed for $T/noexec/noexec_0.db3 (close): exit status 126 .*stderr: .*Permission denied" \
	"$T/noexec.log" || { cat "$T/noexec.log"; fail "no log line with status 126 and the stderr"; }
record -a --domain 74 -o "$T/bad" --on-file-closed 'echo oops >&2; echo again >&2; exit 3' \
	--log-file "$T/bad.log"
pub 74 20
stop
[ "$rc" = 0 ] || fail "record exit $rc"
grep -q "warning: --on-file-closed for $T/bad/bad_0.db3 (close): exit status 3 after .* s; stderr: oops | again\$" \
	"$T/bad.log" || { cat "$T/bad.log"; fail "no log line with status 3 and the stderr"; }
grep -q 'on-file-closed for .*exit status 3' "$T/out" || fail "headless: the failure not on stderr"

# 5. Bad values: usage errors, exit 2, no bag.
for a in "--on-file-closed-jobs 0" "--on-file-closed-jobs 65" "--on-file-closed-jobs x" \
	"--on-file-closed-timeout -1" "--on-file-closed-timeout abc"; do
	# shellcheck disable=SC2086
	usage_error on-file-closed record -a -o "$T/usage" --on-file-closed true $a
done
"$B" record -a -o "$T/usage" --on-file-closed ' ' >"$T/u" 2>&1
[ $? = 2 ] || fail "an empty command: want exit 2"
"$B" record -a -o "$T/usage" --on-file-closed-jobs 2 >"$T/u" 2>&1
[ $? = 2 ] || fail "--on-file-closed-jobs without --on-file-closed: want exit 2"
[ ! -e "$T/usage" ] || fail "a usage error left a bag"

# 6. A file whose close failed (a full tmpfs) gets no call, a log line
# instead; the files before it get theirs (domain 75).
if ! unshare -rm true 2>/dev/null; then
	echo "SKIP part 6: cannot make a private mount namespace here"
	exit 0
fi
rm -rf "$T/calls" && mkdir "$T/calls" "$T/mnt"
unshare -rm sh -s "$T" "$B" <<'INNER' || exit 1
T=$1 B=$2
fail() { echo "FAIL: $*"; exit 1; }
mount -t tmpfs -o size=1m bagtop-hook "$T/mnt" || { echo "SKIP: cannot mount a tmpfs"; exit 0; }
"$B" demo -o "$T/mnt/bag" --min-free-space 0 -b 200000 --domain 75 --duration 20 --on-file-closed "$T/hook.sh" \
	--log-file "$T/full.log" >"$T/out" 2>"$T/err"
rc=$?
cat "$T/err"
[ "$rc" = 1 ] || fail "demo exit $rc, want 1 (disk full)"
failed=$(sed -n 's/.*\(bag_[0-9]*\.db3\): .*no space left.*/\1/p' "$T/err" | head -1)
[ -n "$failed" ] || fail "which file failed?"
# A file that failed while being created is removed (it holds nothing):
# no command, no line; one that existed gets a warning instead.
if [ -e "$T/mnt/bag/$failed" ]; then
	grep -q -- "--on-file-closed: not run for $T/mnt/bag/$failed: its close failed" \
		"$T/full.log" || fail "no log line for the failed file"
else
	echo "$failed failed while being created: removed"
fi
if grep -l "^BAGTOP_FILE=$T/mnt/bag/$failed\$" "$T"/calls/*/env; then
	fail "a call for the failed file"
fi
n=$(ls "$T/calls" | wc -l)
[ "$n" -ge 1 ] || fail "no call for the files before it"
for c in "$T"/calls/*; do
	[ "$(cat "$c/check_rc")" = 0 ] || fail "a call for an incomplete file"
done
echo "ok: $n calls for complete files, none for $failed"
INNER
echo "ok"
