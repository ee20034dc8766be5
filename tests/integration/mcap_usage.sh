#!/bin/sh
# -s / --storage-preset-profile / --storage-config-file / --compression-mode
# misuse on `bagtop record` and `bagtop demo`: exit 2, one line naming the
# option (and the config key), nothing created. Refused before DDS starts.
set -u
B=${BAGTOP_BIN:?}
T=$(mktemp -d "${TMPDIR:-/tmp}/bagtop-test-mcapusage-XXXXXX")
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
printf 'chunkSize: 4096\nbogusKey: true\n' >"$T/unknown.yaml"
printf 'noChunking: maybe\n' >"$T/badvalue.yaml"
printf 'compression: [Zstd]\n' >"$T/notscalar.yaml"
printf 'compression: Zstd\ncompression: Lz4\n' >"$T/twice.yaml"
printf 'chunkSize: 4096\n' >"$T/good.yaml"

# expect WANT ARGS...: exit 2, one stderr line containing WANT, no bag
expect() {
	want=$1
	shift
	for cmd in record demo; do
		extra=""
		[ "$cmd" = record ] && extra="-a"
		"$B" $cmd $extra -o "$T/bag" --domain 58 "$@" >"$T/out" 2>"$T/err"
		rc=$?
		[ "$rc" = 2 ] || { cat "$T/err"; fail "$cmd $*: exit $rc, want 2"; }
		[ "$(wc -l <"$T/err")" = 1 ] || { cat "$T/err"; fail "$cmd $*: not one line"; }
		grep -qF -- "$want" "$T/err" || { cat "$T/err"; fail "$cmd $*: does not say '$want'"; }
		[ -e "$T/bag" ] && fail "$cmd $*: created the bag"
	done
	echo "ok: $* -> $want"
}

expect "unknown storage 'sqlite'" -s sqlite
expect "unknown storage 'MCAP'" --storage MCAP
expect "resilient is sqlite3's" -s mcap --storage-preset-profile resilient
expect "is none or resilient with sqlite3, not 'zstd_fast'" --storage-preset-profile zstd_fast
expect "is none or resilient with sqlite3, not 'fastwrite'" -s sqlite3 --storage-preset-profile fastwrite
expect "unknown mcap storage preset 'zstd'" -s mcap --storage-preset-profile zstd
expect "--compression-mode file: mcap compresses chunks" -s mcap --compression-mode file
expect "use --storage-preset-profile zstd_fast or zstd_small" -s mcap --compression-mode message
expect "--storage-config-file is read with -s mcap only" --storage-config-file "$T/good.yaml"
expect "unknown MCAP writer option 'bogusKey'" -s mcap --storage-config-file "$T/unknown.yaml"
expect "noChunking: expected true or false, not 'maybe'" -s mcap --storage-config-file "$T/badvalue.yaml"
expect "'compression' wants a single value" -s mcap --storage-config-file "$T/notscalar.yaml"
expect "'compression' given twice" -s mcap --storage-config-file "$T/twice.yaml"
expect "cannot open $T/none.yaml" -s mcap --storage-config-file "$T/none.yaml"
expect "--max-bag-size must be 0 or at least 1024 bytes with -s mcap" -s mcap -b 1000
expect "--max-bag-size must be 0 or at least 86016 bytes" -b 2000
echo PASS
