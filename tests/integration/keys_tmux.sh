#!/bin/sh
# Headless keyboard control of the real binary in tmux (stdin a terminal),
# against a real publisher (tpub) on the loopback-only DDS domain 163:
# `record --no-tui --start-paused` says what Space does, puts the terminal
# in non-canonical no-echo mode, records nothing until Space resumes, then
# nothing after Space pauses again; Ctrl-C finishes the bag and gives the
# terminal its settings back. The bag is checked with sqlite3.
set -u
. "$(dirname "$0")/tmux_lib.sh"
tmux_test_dir keys
SOCK="bagtop-test-keys-$$"
pane_stty() { stty -a <"$(tm display -p '#{pane_tty}')"; }

"$P" --domain 163 --topic rt/k --type string --count 100000 --rate 20 >/dev/null 2>&1 &
PUBS=$!
tm new-session -d -x 100 -y 30 "$B record /k --domain 163 -o $T/bag --no-tui --start-paused; \
echo \$? > $T/exit; stty -a > $T/stty; sleep 60"
wait_for 5 on_screen "Press SPACE to pause/resume" || fail "no key help line within 5 s"
wait_for 2 sh -c "stty -a <\"\$(tmux -L $SOCK display -p '#{pane_tty}')\" | grep -q -- -icanon" ||
	fail "the terminal is not in non-canonical mode"
pane_stty | grep -q -- "-echo " || fail "the terminal still echoes"
wait_for 3 on_screen "PAUSED 1/1 topic " || fail "/k not subscribed while paused"

RESUME=$(now_ns)
tm send-keys Space
wait_for 3 on_screen "recording resumed" || fail "Space did not resume"
sleep 1.5
PAUSE=$(now_ns)
tm send-keys Space
wait_for 3 on_screen "recording paused" || fail "Space did not pause again"
PAUSED=$(now_ns)
sleep 1.5
END=$(now_ns)
tm send-keys C-c
wait_for 10 test -s "$T/exit" || fail "bagtop did not exit within 10 s of Ctrl-C"
[ "$(cat "$T/exit")" = 0 ] || fail "bagtop exited with $(cat "$T/exit")"
grep -q " icanon" "$T/stty" || fail "canonical mode not restored: $(cat "$T/stty")"
grep -q " echo " "$T/stty" || fail "echo not restored: $(cat "$T/stty")"
"$B" check "$T/bag" >/dev/null || fail "bagtop check failed on the bag"
[ "$(count_between "$T/bag" 0 "$RESUME")" = 0 ] || fail "messages stamped before Space resumed"
N=$(count_between "$T/bag" "$RESUME" "$PAUSE")
[ "$N" -ge 10 ] || fail "only $N messages recorded while resumed (20 Hz for 1.5 s)"
N=$(count_between "$T/bag" $((PAUSED + 200000000)) "$END")
[ "$N" = 0 ] || fail "$N messages recorded while paused"
echo "ok: Space resumes and pauses, the terminal is restored"
