#!/bin/sh
# --min-free-space on a small tmpfs (a private mount namespace), real
# bagtop and tpub, DDS domain 76: recording stops before the disk is full
# (the file being written is closed, the rest counted as lost: disk guard,
# said in the log and a LOST line), resumes by itself in a new file once a
# file is deleted, the bag stays complete (`bagtop check`), and the counts
# add up: recorded + disk guard = published. Bad values: exit 2.
set -u
B=${BAGTOP_BIN:?}
P=${BAGTOP_TPUB:?}
# shellcheck source=proc_lib.sh
. "${BAGTOP_SOURCE_DIR:?}/tests/integration/proc_lib.sh"
proc_scratch guard

for a in -1 abc 1Q; do
	usage_error "--min-free-space wants a byte count" record -a -o "$T/usage" --min-free-space "$a"
done
[ ! -e "$T/usage" ] || fail "a usage error left a bag"

if ! unshare -rm true 2>/dev/null; then
	echo "SKIP: cannot make a private mount namespace here (unshare -rm refused)"
	exit 77
fi
mkdir "$T/mnt"
unshare -rm sh -s "$T" "$B" "$P" <<'INNER'
set -u
T=$1 B=$2 P=$3
fail() { echo "FAIL: $*"; exit 1; }
# shellcheck source=proc_lib.sh
. "${BAGTOP_SOURCE_DIR:?}/tests/integration/proc_lib.sh"
mount -t tmpfs -o size=4m bagtop-guard "$T/mnt" || { echo "SKIP: cannot mount a tmpfs"; exit 77; }
# Another user of the disk: 1.5 MiB of it, deleted later.
dd if=/dev/zero of="$T/mnt/filler" bs=1k count=1500 2>/dev/null || fail "filler"
record_bg "$T/out" -a --domain 76 -o "$T/mnt/bag" --min-free-space 1M --log-file "$T/log"
sleep 1
# 2.4 MB into the 2.5 MiB left: the guard must stop it at 1 MiB free.
tpub_run "$T/pub" --domain 76 --topic rt/guarded --type string --count 600 --size 4000 \
	--rate 100 --wait-readers 1
sleep 1
grep -q 'disk guard: only .* free on .*, under --min-free-space 1.0 MiB: recording stopped' \
	"$T/log" || { cat "$T/out"; fail "no stop line in the log"; }
avail=$(df -k "$T/mnt" | awk 'NR == 2 {print $4}')
[ "$avail" -ge 512 ] || fail "only ${avail} KiB left: the guard did not stop in time"
rm "$T/mnt/filler"
tpub_run "$T/pub" --domain 76 --topic rt/guarded --type string --count 100 --size 4000 \
	--rate 50 --wait-readers 1
sleep 1
stop_wait "$rec" 600
cat "$T/out"
[ "$rc" = 0 ] || fail "record exit $rc, want 0 (the disk never filled)"
grep -q 'no space left' "$T/out" && fail "the disk filled up"
grep -q 'disk guard: .* free on .* again: recording resumed in .*bag_1.db3' "$T/log" ||
	fail "no resume line (in a new file) in the log"
grep -q 'LOST /guarded +[0-9]* in the recorder (disk guard)' "$T/out" || fail "no LOST line"
line=$(grep '^  /guarded ' "$T/out")
recorded=$(echo "$line" | awk '{print $2}')
lost_t=$(echo "$line" | awk '{print $5}')
lost_r=$(echo "$line" | awk '{print $7}')
echo "recorded $recorded, lost $lost_t transport, $lost_r recorder"
[ "$lost_t" = 0 ] || fail "lost in transport"
[ "$lost_r" -gt 0 ] || fail "nothing counted as disk guard"
[ $((recorded + lost_r)) = 700 ] || fail "recorded + disk guard = $((recorded + lost_r)), want 700"
# Messages written after the resume: the second publisher's are there.
[ "$recorded" -ge 150 ] || fail "recording did not resume"
guard=$(sed -n 's/^ *lost_disk_guard: //p' "$T/mnt/bag/metadata.yaml" | sort -n | tail -1)
[ "$guard" = "$lost_r" ] || fail "metadata.yaml says lost_disk_guard $guard, want $lost_r"
[ "$(ls "$T/mnt/bag" | grep -c 'db3$')" -ge 2 ] || fail "want the stopped file and a new one"
"$B" check "$T/mnt/bag" || fail "check"
echo ok
INNER
