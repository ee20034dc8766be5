#!/bin/sh
# The live view recording with -s mcap, through tmux (80x24) against a real
# publisher (tpub) on loopback-only DDS domain 77: the header names the
# current file, bag_0.mcap; Written moves and the file grows on disk while
# recording (a chunk at least once a second); `n` splits to bag_1.mcap,
# named in the header and the event line; `q` `y` finishes a bag that
# check passes and info counts.
set -u
. "$(dirname "$0")/tmux_lib.sh"
tmux_test_dir mcaptui
SOCK="bagtop-test-$$"
PUBS=""
trap tmux_cleanup EXIT
# The Written figure of the header line ("Written 7.8 KiB").
written() { screen | sed -n 's/.*Written \([0-9.]* [KMG]*i*B\).*/\1/p' | head -n 1; }
size_of() { stat -c %s "$1" 2>/dev/null || echo 0; }

"$P" --domain 77 --topic rt/alpha --type string --count 20000 --rate 200 >/dev/null 2>&1 &
PUBS=$!
tm new-session -d -x 80 -y 24 \
	"env TERM=screen $B record -a -s mcap --domain 77 -o $T/bag --log-file $T/log; echo \$? > $T/exit; sleep 60"
wait_for 5 on_screen /alpha || fail "no /alpha within 5 s"
wait_for 3 on_screen "File #0 bag_0.mcap" || fail "the header does not name bag_0.mcap"

# Written moves, and so does the file (chunks reach the disk each second).
W1=$(written)
S1=$(size_of "$T/bag/bag_0.mcap")
sleep 2.5
W2=$(written)
S2=$(size_of "$T/bag/bag_0.mcap")
[ -n "$W1" ] && [ "$W1" != "$W2" ] || fail "Written did not move ($W1, then $W2)"
[ "$S2" -gt "$S1" ] || fail "bag_0.mcap did not grow on disk while recording ($S1, then $S2)"
echo "ok 1: bag_0.mcap in the header; Written $W1 -> $W2; on disk $S1 -> $S2 bytes"

# n: the next file, named in the header and the event line.
tm send-keys n
wait_for 3 test -e "$T/bag/bag_1.mcap" || fail "n made no bag_1.mcap"
wait_for 3 on_screen "split: now writing bag_1.mcap" || fail "no event for the split"
wait_for 3 on_screen "File #1 bag_1.mcap" || fail "the header does not name bag_1.mcap"
echo "ok 2: n splits to bag_1.mcap"

# q, then y: a finished bag.
sleep 1
tm send-keys q
wait_for 2 on_screen "Quit bagtop?" || fail "q did not ask to confirm"
tm send-keys y
wait_for 10 test -s "$T/exit" || fail "bagtop did not exit within 10 s of q y"
[ "$(cat "$T/exit")" = 0 ] || fail "bagtop exited with $(cat "$T/exit")"
"$B" check "$T/bag" >/dev/null || fail "bagtop check failed on the bag"
INFO=$("$B" info "$T/bag") || fail "bagtop info failed on the bag"
echo "$INFO" | grep -q "Storage id: *mcap" || fail "info does not say mcap: $INFO"
echo "$INFO" | grep -q "bag_1.mcap" || fail "info does not list bag_1.mcap: $INFO"
N=$(echo "$INFO" | sed -n 's/^Messages: *\([0-9]*\).*/\1/p')
[ "${N:-0}" -gt 500 ] || fail "info counts ${N:-no} messages (> 500 expected at 200 Hz)"
echo "ok 3: q y finishes a bag of 2 files, $N messages, check passes"
