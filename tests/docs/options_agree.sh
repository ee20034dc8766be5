#!/bin/sh
# Every user-visible option is in --help, in man/bagtop.1 and in README.md,
# command by command, and nowhere else: the three lists must be equal.
set -u
B=${BAGTOP_BIN:?}
SRC=${BAGTOP_SOURCE_DIR:?}
MAN=$SRC/man/bagtop.1
README=$SRC/README.md
T=$(mktemp -d "${TMPDIR:-/tmp}/bagtop-test-docs-XXXXXX")
trap 'rm -rf "$T"' EXIT
status=0

opts() { grep -oE -- '(^|[^A-Za-z0-9-])--?[A-Za-z][A-Za-z0-9-]*' | sed 's/^[^-]*//' | sort -u; }

from_help() { # option rows follow "Options:"
	"$B" $1 --help | awk '/^Options:/ {on=1; next} on && /^ +-/' | sed 's/^ *//; s/  .*//' |
		sed 's/ [A-Z=]*$//' | tr ',' '\n' | opts
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
	[ $status = 0 ] && echo "ok $1: $(tr '\n' ' ' <"$T/help")"
}

check bagtop "" '.SH "GLOBAL OPTIONS"' '### bagtop'
for c in $("$B" --help | awk '/^Commands:/ {on=1; next} on && /^  [a-z]/ {print $1}'); do
	check "$c" "$c" ".SS \"bagtop $c\"" "### bagtop $c"
done
# A command must not exist in --help without a man section and README section.
for c in $("$B" --help | awk '/^Commands:/ {on=1; next} on && /^  [a-z]/ {print $1}'); do
	grep -q "^\.SS \"bagtop $c\"" "$MAN" || { echo "FAIL: no man section for $c"; status=1; }
	grep -q "^### bagtop $c\( \|\$\)" "$README" || { echo "FAIL: no README section for $c"; status=1; }
done
exit $status
