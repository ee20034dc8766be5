#!/bin/sh
# `cmake --install` puts what the README and the man page promise in place:
# the binary, the man page and the statistics IDL, and the binary runs.
set -u
BUILD=${BAGTOP_BUILD_DIR:?}
T=$(mktemp -d "${TMPDIR:-/tmp}/bagtop-test-install-XXXXXX")
trap 'rm -rf "$T"' EXIT
if ! cmake --install "$BUILD" --prefix "$T" >"$T.log" 2>&1; then
	echo "FAIL: cmake --install failed:"
	cat "$T.log"
	rm -f "$T.log"
	exit 1
fi
rm -f "$T.log"
status=0
for f in bin/bagtop share/man/man1/bagtop.1 share/bagtop/idl/BagtopStats.idl; do
	if [ -f "$T/$f" ]; then
		echo "ok: $f installed"
	else
		echo "FAIL: $f not installed"
		status=1
	fi
done
if ! "$T/bin/bagtop" --version >/dev/null; then
	echo "FAIL: the installed bagtop does not run"
	status=1
fi
exit $status
