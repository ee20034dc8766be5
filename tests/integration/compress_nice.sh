#!/bin/sh
# --compression-threads-priority (domain 223): the compression threads of
# message mode (rec-zstd-1, rec-zstd-2) and of file mode (rec-zstd-file)
# run at the nice value given, read from /proc; every other thread of the
# recorder stays at the process's; the bags are complete; out-of-range
# values are usage errors.
set -u
B=${BAGTOP_BIN:?}
# shellcheck source=proc_lib.sh
. "${BAGTOP_SOURCE_DIR:?}/tests/integration/proc_lib.sh"
proc_scratch compress-nice

# nice NAME: the nice value of the recorder's thread NAME ($rec), "" if none
nice_of() {
	for t in /proc/"$rec"/task/*; do
		[ "$(cat "$t/comm" 2>/dev/null)" = "$1" ] || continue
		sed 's/^.*) //' "$t/stat" | awk '{print $17}'
		return
	done
}

base=$(sed 's/^.*) //' /proc/self/stat | awk '{print $17}')
want=$((base < 12 ? base + 7 : 19))
for mode in message file; do
	record_bg "$T/$mode.out" -a --compression-mode "$mode" --compression-threads 2 \
		--compression-threads-priority "$want" --domain 223 -o "$T/$mode"
	if [ "$mode" = message ]; then names="rec-zstd-1 rec-zstd-2"; else names="rec-zstd-file"; fi
	for n in $names; do
		got=$(nice_of "$n")
		[ "$got" = "$want" ] || fail "$mode: thread $n at nice '$got', want $want"
	done
	main=$(sed 's/^.*) //' /proc/"$rec"/stat | awk '{print $17}')
	[ "$main" = "$base" ] || fail "$mode: the main thread at nice $main, want $base"
	stop_wait "$rec" 300
	[ "$rc" = 0 ] || { cat "$T/$mode.out"; fail "$mode: record exit $rc"; }
	"$B" check "$T/$mode" >"$T/check.out" 2>&1 || { cat "$T/check.out"; fail "$mode: check"; }
	echo "$mode: $names at nice $want, the rest at $base"
done

usage_error "--compression-threads-priority wants a nice value, -20..19, got '20'" \
	record -a --compression-threads-priority 20
usage_error "got '-21'" record -a --compression-threads-priority -21
usage_error "got 'low'" convert "$T/file" "$T/c" --compression-threads-priority low
echo ok
