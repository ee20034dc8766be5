#!/bin/sh
# The live view's "? " (a topic without a message definition) on plain DDS
# topics, with the real binary in tmux (100x24) on domain 67: it goes from
# bagtest::Rich once the publisher's XTypes type information has given the
# IDL, and stays on a type whose publisher has no type information.
set -u
. "$(dirname "$0")/tmux_lib.sh"
tmux_test_dir xtypes-tui
SOCK="bagtop-test-xtypes-$$"
# At most 60 s each; killed at the end.
"$P" --domain 67 --topic rich_topic --type rich --count 600 --rate 10 >/dev/null 2>&1 &
PUBS="$PUBS $!"
"$P" --domain 67 --topic plain_battery --type battery --count 600 --rate 10 >/dev/null 2>&1 &
PUBS="$PUBS $!"
tm new-session -d -x 100 -y 24 "env TERM=screen $B record -a --domain 67 -o $T/bag --log-file $T/log; sleep 60"
# row TOPIC: the table's line for TOPIC.
row() { screen | awk -v t="$1" '{ for (i = 1; i <= NF; i++) if ($i == t) { print; exit } }'; }
has_def() { row rich_topic | grep -q 'bagtest::Rich' && ! row rich_topic | grep -q '? bagtest'; }
no_def() { row plain_battery | grep -q '? my_msgs'; }
wait_for 10 on_screen rich_topic || fail "no rich_topic within 10 s"
wait_for 10 on_screen plain_battery || fail "no plain_battery within 10 s"
wait_for 15 has_def || fail "rich_topic still shown without a definition after 15 s"
no_def || fail "plain_battery is not shown without a definition"
# The log line may reach the file a moment after the screen changed.
logged() {
	grep -q "rich_topic \[bagtest::Rich\]: message definition from XTypes type information" \
		"$T/log"
}
wait_for 5 logged || fail "the log does not say where the definition came from"
echo "PASS"
