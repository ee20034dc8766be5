#!/bin/sh
# The live view of the real binary, driven through tmux (80x24, TERM=screen)
# against real publishers (tpub) on loopback-only DDS domains 155..158 and 15:
# topics with rates on screen, Space stops a topic's recording, `t` marks a
# topic, `n` splits, `p` pauses (Rcvd stands still), resize to 50x10 and
# back, `q` + `y` finishes a complete bag; `s` Enter writes a snapshot, `q`
# `s` one more before quitting; the `s` dialog: Esc writes nothing, Before 1
# and Topics /alpha narrow the snapshot to /alpha's last second; NO_COLOR=1
# and TERM=vt100, xterm, linux and tmux-256color show the same text. The
# bag is checked with sqlite3 (and bagtop info), not with the view.
set -u
. "$(dirname "$0")/tmux_lib.sh"
tmux_test_dir tui
RUN=0
SOCK="bagtop-test-$$-$RUN"
publish() { # publish DOMAIN TOPIC RATE
	"$P" --domain "$1" --topic "$2" --type string --count 100000 --rate "$3" >/dev/null 2>&1 &
	PUBS="$PUBS $!"
}
# start SESSION-ENV COMMAND...: the recorder in a fresh 80x24 tmux session.
start() {
	tm kill-server 2>/dev/null
	RUN=$((RUN + 1)) # a fresh server each time: no race with the old one's exit
	SOCK="bagtop-test-$$-$RUN"
	rm -f "$T/exit"
	tm new-session -d -x 80 -y 24 "env $1 $2; echo \$? > $T/exit; sleep 60"
}
# The row of TOPIC shows a rate in [lo, hi] Hz (the table row comes first;
# the event line at the bottom may name the topic too).
rate_shown() {
	screen | awk -v t="$1" -v lo="$2" -v hi="$3" '
		row == "" { for (i = 1; i <= NF; i++) if ($i == t) row = $0 }
		END { n = split(row, f, " "); for (i = 1; i <= n; i++)
			if (f[i] ~ /^[0-9.]+$/ && f[i] + 0 >= lo && f[i] + 0 <= hi) ok = 1
		exit !ok }'
}
# The Rcvd column of TOPIC's row (the field after its QoS).
rcvd() {
	screen | awk -v t="$1" '
		{ for (i = 1; i <= NF; i++) if ($i == t) for (k = i + 1; k <= NF; k++)
			if ($k ~ /^(R|BE)\/(V|TL)$/) { print $(k + 1); exit } }'
}

# ---- 1. record: rates, Space, t, n, p, resize, quit ----------------------
publish 155 rt/alpha 50
publish 155 rt/beta 50
publish 155 rt/gamma 20
start "TERM=screen" "$B record -a --domain 155 -o $T/bag1 --log-file $T/log1"
wait_for 3 on_screen /alpha || fail "no /alpha within 3 s"
wait_for 3 rate_shown /alpha 40 60 || fail "/alpha has no rate near 50 Hz within 3 s"
screen >"$T/screen-colour.txt"

# Space on /beta (found with the filter): its recording stops.
tm send-keys / b e t a Enter
wait_for 2 on_screen "Topic /beta" || fail "the filter did not apply"
tm send-keys Space
OFF=$(now_ns)
wait_for 2 on_screen "/beta: recording off" || fail "no event for switching /beta off"
tm send-keys / Escape

# t marks /alpha for repeat-transient-local.
tm send-keys / a l p h a Enter
tm send-keys t
wait_for 2 on_screen "/alpha: its last 1 message start every file" || fail "t did not mark /alpha"
tm send-keys / Escape

# n: a new file.
tm send-keys n
wait_for 3 test -e "$T/bag1/bag1_1.db3" || fail "n made no second file"
wait_for 3 on_screen "split: now writing bag1_1.db3" || fail "no event for the split"

# f: the counters of the file being written (#1 since the split), and back.
tm send-keys f
wait_for 2 on_screen "Topic \[file #1\]" || fail "f did not show the file's counters"
tm send-keys f
wait_for 2 not_on_screen "\[file #" || fail "f again did not go back to the totals"

# p: paused (nothing recorded), then resumed.
sleep 0.5
tm send-keys p
PAUSE=$(now_ns)
wait_for 2 on_screen PAUSED || fail "p did not pause"
# Rcvd is received while recording: it stands still while paused (the view
# refreshes every second: the first reading is taken after one refresh).
sleep 1.2
R1=$(rcvd /alpha)
sleep 1.5
R2=$(rcvd /alpha)
[ -n "$R1" ] && [ "$R1" = "$R2" ] || fail "/alpha's Rcvd went on while paused ($R1, then $R2)"
RESUME=$(now_ns)
tm send-keys p
wait_for 2 on_screen RECORDING || fail "p did not resume"

# Resize: too small, then the table again; recording goes on.
tm resize-window -x 50 -y 10
wait_for 3 on_screen "too small" || fail "50x10 does not say the terminal is too small"
tm resize-window -x 80 -y 24
wait_for 3 on_screen "Topic" || fail "the table did not come back after the resize"

# q, then y: the bag is finished within 10 s.
sleep 1
tm send-keys q
wait_for 2 on_screen "Quit bagtop?" || fail "q did not ask to confirm"
tm send-keys y
LAST=$(now_ns)
wait_for 10 test -s "$T/exit" || fail "bagtop did not exit within 10 s of q y"
[ "$(cat "$T/exit")" = 0 ] || fail "bagtop exited with $(cat "$T/exit")"
"$B" check "$T/bag1" >/dev/null || fail "bagtop check failed on the bag"
BETA=$(last_stamp "$T/bag1" /beta)
ALPHA=$(last_stamp "$T/bag1" /alpha)
[ "$BETA" -gt 0 ] || fail "/beta was never recorded"
[ "$BETA" -lt $((OFF + 500000000)) ] || fail "/beta recorded after Space switched it off"
[ "$ALPHA" -gt $((RESUME + 500000000)) ] || fail "/alpha not recorded after the resume"
[ "$ALPHA" -lt $((LAST + 1000000000)) ] || fail "messages stamped after quitting"
PAUSED_N=$(count_between "$T/bag1" $((PAUSE + 500000000)) "$RESUME")
[ "$PAUSED_N" = 0 ] || fail "$PAUSED_N messages recorded while paused"
# --log-file kept the log lines and the events, with UTC times.
grep -q "Z info: recording /alpha" "$T/log1" || fail "no subscription line in the log file"
grep -q "Z event: /beta: recording off" "$T/log1" || fail "no event line in the log file"
echo "ok 1: rates, Space, t, n, p, resize, quit, log file"

# ---- 2. snapshot mode: s Enter writes a snapshot file ---------------------
publish 156 rt/alpha 50
start "TERM=screen" "$B record -a --domain 156 --snapshot-mode --max-cache-size 1M -o $T/bag2"
wait_for 3 rate_shown /alpha 40 60 || fail "snapshot mode: no /alpha rate"
on_screen SNAPSHOT-ARMED || fail "snapshot mode: state is not SNAPSHOT-ARMED"
tm send-keys s
wait_for 2 on_screen "Snapshot (narrows" || fail "s opened no snapshot dialog"
tm send-keys Enter
wait_for 5 on_screen "snapshot 1: " || fail "s Enter wrote no snapshot"
N=$(sqlite3 "$T/bag2/bag2_0.db3" "SELECT count(*) FROM messages;")
[ "$N" -gt 10 ] || fail "the snapshot file holds $N messages"
# q says what quitting loses; s writes it as a snapshot, then quits.
sleep 1.5 # the buffer fills again
tm send-keys q
wait_for 2 on_screen "in the snapshot buffer" || fail "q in snapshot mode did not say what is lost"
tm send-keys s
wait_for 10 test -s "$T/exit" || fail "snapshot mode: no exit after q s"
[ "$(cat "$T/exit")" = 0 ] || fail "q s: bagtop exited with $(cat "$T/exit")"
test -e "$T/bag2/bag2_1.db3" || fail "q s wrote no second snapshot file"
N2=$(sqlite3 "$T/bag2/bag2_1.db3" "SELECT count(*) FROM messages;")
[ "$N2" -gt 10 ] || fail "the snapshot written at quit holds $N2 messages"
"$B" check "$T/bag2" >/dev/null || fail "bagtop check failed on the snapshot bag"
echo "ok 2: s Enter wrote a snapshot of $N messages; q s one of $N2 before quitting"

# ---- 2b. the s dialog: Esc writes nothing; Before 1, Topics /alpha -------
# --snapshot-duration 10 and 3 s buffered of /alpha and /beta: the dialog's
# values narrow that snapshot to /alpha's last second (50 Hz: 50).
publish 15 rt/alpha 50
publish 15 rt/beta 50
start "TERM=screen" "$B record -a --domain 15 --snapshot-mode --snapshot-duration 10 -o $T/bag4 \
	--log-file $T/log4"
wait_for 3 rate_shown /alpha 40 60 || fail "dialog: no /alpha rate"
wait_for 3 rate_shown /beta 40 60 || fail "dialog: no /beta rate"
sleep 3
tm send-keys s
wait_for 2 on_screen "Before (s)  10_" || fail "s: no dialog with Before 10"
tm send-keys Escape
wait_for 2 not_on_screen "Snapshot (narrows" || fail "Esc did not close the dialog"
sleep 1
# The first snapshot's file is open from the start, empty until a trigger.
[ "$(count_between "$T/bag4" 0 $(now_ns))" = 0 ] || fail "s Esc wrote messages"
grep -q snapshot "$T/log4" && fail "s Esc triggered: $(grep snapshot "$T/log4")"
# Not a number: said in the dialog, nothing triggered.
tm send-keys s BSpace BSpace x Enter
wait_for 2 on_screen "not a number" || fail "Before x: no error in the dialog"
tm send-keys BSpace 1 Tab Tab
tm send-keys -l /alpha
wait_for 2 on_screen "Topics      /alpha_" || fail "the dialog did not take /alpha"
TRIG=$(now_ns)
tm send-keys Enter
wait_for 5 on_screen "snapshot 1: " || fail "s with Before 1, Topics /alpha wrote no snapshot"
grep -q "snapshot 2" "$T/log4" && fail "more than one snapshot: $(grep snapshot "$T/log4")"
F4=$T/bag4/bag4_0.db3 # the next snapshot's file opens after it, empty
"$B" info "$F4" >"$T/info4" || fail "bagtop info failed on $F4"
N4=$(sqlite3 "$F4" "SELECT count(*) FROM messages;")
grep -q "Topic: /alpha | .* | Count: $N4 |" "$T/info4" ||
	fail "not all $N4 messages of /alpha: $(cat "$T/info4")"
grep -q "Topic: /beta | .* | Count: 0 |" "$T/info4" ||
	fail "/beta in a snapshot of /alpha alone: $(cat "$T/info4")"
OLD=$(sqlite3 "$F4" "SELECT min(timestamp) FROM messages;")
[ "$N4" -ge 40 ] && [ "$N4" -le 60 ] || fail "Before 1 at 50 Hz: $N4 messages, want 50 +- 10"
[ "$(count_between "$T/bag4" 0 $(now_ns))" = "$N4" ] || fail "messages outside the snapshot"
[ "$OLD" -ge $((TRIG - 1200000000)) ] || fail "a message $(((TRIG - OLD) / 1000000)) ms before s"
tm send-keys q y
wait_for 10 test -s "$T/exit" || fail "dialog: no exit after q y"
[ "$(cat "$T/exit")" = 0 ] || fail "dialog: bagtop exited with $(cat "$T/exit")"
echo "ok 2b: s Esc wrote nothing; Before 1, Topics /alpha: $N4 messages of /alpha"

# ---- 3. NO_COLOR=1 and other terminals show the same text ----------------
# The same lines that do not hold live numbers: the column header and the
# key bar, against the TERM=screen run above (the key bar by its start: the
# header line holds the scratch directory, whose random name can hold "F1").
text_of() { grep -E '^R +TL +Topic|^F1Help' "$1" | sed 's/ *$//'; }
publish 157 rt/alpha 50
for envs in "TERM=screen NO_COLOR=1" "TERM=vt100" "TERM=xterm" "TERM=linux" \
	"TERM=tmux-256color"; do
	term=$(echo "$envs" | sed 's/^TERM=\([^ ]*\).*/\1/')
	infocmp "$term" >/dev/null 2>&1 || { echo "skip $envs: no terminfo entry"; continue; }
	start "$envs" "$B record -a --domain 157 -o $T/bag3"
	wait_for 5 rate_shown /alpha 40 60 || fail "$envs: no /alpha rate"
	screen >"$T/screen-other.txt"
	[ "$(text_of "$T/screen-colour.txt")" = "$(text_of "$T/screen-other.txt")" ] ||
		fail "$envs shows other text: $(text_of "$T/screen-other.txt")"
	[ -n "$(text_of "$T/screen-other.txt")" ] || fail "$envs: no header or key bar"
	tm send-keys q y
	wait_for 10 test -s "$T/exit" || fail "$envs: no exit"
	rm -rf "$T/bag3"
done
echo "ok 3: NO_COLOR=1, vt100, xterm, linux and tmux-256color show the same text"
