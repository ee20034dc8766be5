#!/bin/sh
# Regenerates the generated part of tests/data/bad (the hand-written YAML
# cases in meta/ are source files and are not touched). Needs the sqlite3
# and zstd command-line tools, and a built bagtop for the two truncated
# real bags:
#
#   sh tests/data/bad/make_corpus.sh [path/to/bagtop]     (default build/src/app/bagtop)
#
# Pseudo-random bytes come from a fixed-seed generator, so those files are
# byte-identical on every run; the truncated bags hold `bagtop demo`'s
# wall-clock timestamps, so they differ run to run but are made the same way.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
bagtop=${1:-$root/build/src/app/bagtop}
export LC_ALL=C

# bytes N SEED > file: N pseudo-random bytes (Park-Miller generator; every
# product stays below 2^53, so any awk computes it exactly).
bytes() {
	printf "$(awk -v n="$1" -v x="$2" 'BEGIN {
		for (i = 0; i < n; i++) {
			x = (x * 16807) % 2147483647
			printf "\\%03o", int(x / 256) % 256
		}
	}')"
}

# repeat N STRING: STRING N times, no newline.
repeat() {
	awk -v n="$1" -v s="$2" 'BEGIN { for (i = 0; i < n; i++) printf "%s", s }'
}

# halve SRC DST: the first half of SRC.
halve() {
	size=$(wc -c < "$1")
	head -c $((size / 2)) "$1" > "$2"
}

cd "$here"
mkdir -p meta storage

# ---- metadata.yaml cases that are binary or large ----
bytes 2048 12345 > meta/garbage_bytes.yaml
{
	printf 'rosbag2_bagfile_information:\n  storage_identifier: '
	repeat 65536 'x'
	printf '\n  version: '
	repeat 4096 '9'
	printf '\n'
} > meta/huge_line.yaml
{
	printf 'rosbag2_bagfile_information:\n  version: 9\n  topics_with_message_count: '
	repeat 20000 '['
	repeat 20000 ']'
	printf '\n'
} > meta/deep_nesting_flow.yaml
{
	printf 'rosbag2_bagfile_information:\n  version: 9\n  custom_data:\n'
	awk 'BEGIN { ind = "  "; for (i = 2; i < 202; i++) { ind = ind "  "; print ind "k" i ":" } }'
	printf '%404sleaf: x\n' ''
} > meta/deep_nesting_block.yaml

# ---- storage files (each case is a bag directory without metadata.yaml) ----
rm -rf storage/*
mkdir -p storage/random_bytes storage/empty_db3 storage/plain_sqlite storage/random_zstd \
	storage/zstd_not_sqlite storage/truncated_db3 storage/truncated_zstd
bytes 4096 777 > storage/random_bytes/x_0.db3
: > storage/empty_db3/x_0.db3
sqlite3 storage/plain_sqlite/x_0.db3 \
	"CREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT NOT NULL);
	 INSERT INTO notes(body) VALUES ('a valid SQLite file'), ('without rosbag2 tables');"
bytes 4096 4242 > storage/random_zstd/x_0.db3.zstd
printf 'This is zstd-compressed text, not an SQLite database.\n' |
	zstd -q -c > storage/zstd_not_sqlite/x_0.db3.zstd

# Real bags from bagtop demo, split at the minimum size so file 0 is small.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$bagtop" demo -o "$tmp/plain" --max-bag-size 86016 > /dev/null
halve "$tmp/plain/plain_0.db3" storage/truncated_db3/demo_0.db3
"$bagtop" demo -o "$tmp/file" --max-bag-size 86016 --compression-mode file > /dev/null
halve "$tmp/file/file_0.db3.zstd" storage/truncated_zstd/demo_0.db3.zstd
echo "corpus written under $here"
