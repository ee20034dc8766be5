#!/bin/sh
# Every user-visible option is in --help, in man/bagtop.1 and in README.md,
# command by command, and nowhere else: the three lists must be equal.
# README's option tables also say what --help says, row by row (the same
# words, Markdown's backticks aside), and every --help line fits 80 columns.
set -u
B=${BAGTOP_BIN:?}
SRC=${BAGTOP_SOURCE_DIR:?}
MAN=$SRC/man/bagtop.1
README=$SRC/README.md
T=$(mktemp -d "${TMPDIR:-/tmp}/bagtop-test-docs-XXXXXX")
trap 'rm -rf "$T"' EXIT
status=0

opts() { grep -oE -- '(^|[^A-Za-z0-9-])--?[A-Za-z][A-Za-z0-9-]*' | sed 's/^[^-]*//' | sort -u; }

# An option row of --help starts "  -x, --name" or "      --name"; its
# description follows two spaces later, or on the next line, and goes on in
# lines indented further.
from_help() { # option rows follow "Options:"
	"$B" $1 --help | awk '/^Options:/ {on=1; next} on && /^(  -[A-Za-z0-9],|      --)/' |
		sed 's/^ *//; s/  .*//' | sed 's/ [A-Z=]*$//' | tr ',' '\n' | opts
}

# "names<TAB>description" per option row: names are the row's options in
# order ("-a --all"), the description is one line with single spaces.
rows_help() {
	"$B" $1 --help | awk '
		function flush() { if (names != "") print names "\t" desc; names = ""; desc = "" }
		function add(t) { gsub(/^ +| +$/, "", t); if (t != "") desc = desc (desc == "" ? "" : " ") t }
		/^Options:/ { on = 1; next }
		!on { next }
		/^(  -[A-Za-z0-9],|      --)/ {
			flush()
			line = $0; sub(/^ +/, "", line)
			left = line; sub(/  .*/, "", left)
			rest = substr(line, length(left) + 1)
			n = split(left, w, /[ ,]+/)
			for (i = 1; i <= n; i++) if (w[i] ~ /^-/) names = names (names == "" ? "" : " ") w[i]
			add(rest); next
		}
		/^        / { add($0); next }
		{ flush(); on = ($0 != "") }
		END { flush() }' | sort
}

rows_readme() {
	sec=$1
	awk -v sec="$sec" '/^#/ { on = ($0 == sec || (index($0, sec " ") == 1 &&
		substr($0, length(sec) + 2, 1) ~ /[A-Z[-]/)); next }
		on && /^\| `-/' "$README" | awk -F'|' '{
			left = $2; desc = $3
			for (i = 4; i < NF; i++) desc = desc "|" $i
			gsub(/`/, "", left); gsub(/`/, "", desc)
			gsub(/^ +| +$/, "", desc); gsub(/  +/, " ", desc)
			names = ""
			n = split(left, w, /[ ,]+/)
			for (i = 1; i <= n; i++) if (w[i] ~ /^-/) names = names (names == "" ? "" : " ") w[i]
			print names "\t" desc
		}' | sort
}

width() { # width NAME HELP-ARGS: every --help line fits 80 columns
	long=$("$B" $2 --help | awk 'length($0) > 80')
	if [ -n "$long" ]; then
		echo "FAIL $1: --help lines over 80 columns:"
		echo "$long"
		status=1
	fi
}

from_man() { # rows of the command's section that introduce an option (.TP headers)
	sec=$1
	sed 's/\\-/-/g' "$MAN" | awk -v sec="$sec" '
		/^\.S[HS] / { on = ($0 == sec) ; next }
		on && /^\.TP/ { grab = 1; next }
		on && grab { print; grab = 0 }' | sed 's/"[^"]*"//g; s/\\f[BIRP]//g' | opts
}

from_readme() { # table rows of the command's "### bagtop ..." section
	sec=$1
	# "### bagtop info BAG" is the section of "### bagtop info" (operands in
	# capitals, [OPTIONAL] or --option)
	awk -v sec="$sec" '/^#/ { on = ($0 == sec || (index($0, sec " ") == 1 &&
		substr($0, length(sec) + 2, 1) ~ /[A-Z[-]/)); next }
		on && /^\| `-/' "$README" |
		cut -d'|' -f2 | sed 's/`//g; s/ [A-Z=]*[A-Z]\b//g' | tr ',' '\n' | opts
}

check() { # check NAME HELP-ARGS MAN-SECTION README-SECTION
	from_help "$2" >"$T/help"
	from_man "$3" >"$T/man"
	from_readme "$4" >"$T/readme"
	if [ ! -s "$T/help" ]; then
		echo "FAIL $1: no options found in --help"
		status=1
	fi
	for other in man readme; do
		if ! cmp -s "$T/help" "$T/$other"; then
			echo "FAIL $1: --help and $other disagree (< only in --help, > only in $other):"
			diff "$T/help" "$T/$other" | grep '^[<>]'
			status=1
		fi
	done
	rows_help "$2" >"$T/help-rows"
	rows_readme "$4" >"$T/readme-rows"
	if ! cmp -s "$T/help-rows" "$T/readme-rows"; then
		echo "FAIL $1: --help and README describe options differently (< --help, > README):"
		diff "$T/help-rows" "$T/readme-rows" | grep '^[<>]'
		status=1
	fi
	width "$1" "$2"
	[ $status = 0 ] && echo "ok $1: $(tr '\n' ' ' <"$T/help")"
}

check bagtop "" '.SH "GLOBAL OPTIONS"' '### bagtop'
for c in $("$B" --help | awk '/^Commands:/ {on=1; next} on && /^  [a-z]/ {print $1}'); do
	check "$c" "$c" ".SS \"bagtop $c\"" "### bagtop $c"
done
# A command must not exist in --help without a man section, a README section
# and a line in the man page's SYNOPSIS.
awk '/^\.SH/ { on = ($0 == ".SH SYNOPSIS"); next } on' "$MAN" >"$T/synopsis"
for c in $("$B" --help | awk '/^Commands:/ {on=1; next} on && /^  [a-z]/ {print $1}'); do
	sed -n 's/^\.BR\{0,1\} //p' "$T/synopsis" | tr -d '"' | tr ' ' '\n' | grep -qx "$c" ||
		{ echo "FAIL: $c not in the man page's SYNOPSIS"; status=1; }
	grep -q "^\.SS \"bagtop $c\"" "$MAN" || { echo "FAIL: no man section for $c"; status=1; }
	grep -q "^### bagtop $c\( \|\$\)" "$README" || { echo "FAIL: no README section for $c"; status=1; }
done
exit $status
