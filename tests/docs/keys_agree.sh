#!/bin/sh
# The man page's INTERACTIVE COMMANDS sections (record's, then play's right
# after it) are exactly what the live view's key tables generate
# (tui_man_section): the keys the handler uses are the keys the page lists.
set -u
GEN=${BAGTOP_TUI_MAN:?}
MAN=${BAGTOP_SOURCE_DIR:?}/man/bagtop.1
T=$(mktemp -d "${TMPDIR:-/tmp}/bagtop-test-keys-XXXXXX")
trap 'rm -rf "$T"' EXIT
"$GEN" >"$T/want" || { echo "FAIL: tui_man_section failed"; exit 1; }
awk '/^\.SH "INTERACTIVE COMMANDS"$/ { on = 1; print; next }
	on && /^\.SH "INTERACTIVE COMMANDS \(play\)"$/ { print; next }
	on && /^\.SH / { exit } on' "$MAN" >"$T/have"
[ -s "$T/have" ] || { echo "FAIL: no INTERACTIVE COMMANDS section in man/bagtop.1"; exit 1; }
if ! cmp -s "$T/want" "$T/have"; then
	echo "FAIL: man/bagtop.1 INTERACTIVE COMMANDS differs from the key tables"
	echo "(regenerate: build/tests/tui/tui_man_section)"
	diff "$T/want" "$T/have"
	exit 1
fi
echo "ok: $(grep -c '^\.TP' "$T/want") key entries"
