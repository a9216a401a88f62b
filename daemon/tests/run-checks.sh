#!/bin/sh
# Run the test runner of the normal build and of the ASan+UBSan build ("-":
# none), then replay the fuzz corpora (one check per fuzz target, fuzz/replay.sh);
# print one closing "N passed, N failed[, N skipped]" line with the totals.
set -u
normal=$1
asan=$2
fuzzdir=${3:-}
fuzzsecs=${4:-5}
[ $# -ge 4 ] && shift 4
skipfile=$(mktemp)
trap 'rm -f "$skipfile"' EXIT
passed=0
failed=0
status=0

run() {
	label=$1; dir=$2; shift 2
	echo "== $label build =="
	out=$(mktemp)
	BRUTE_SKIP_FILE=$skipfile BRUTE_REPORTD=$dir/brute-reportd "$@" "$dir/test-runner" 2>&1 | tee "$out"
	rc=$(cat "$out.rc" 2>/dev/null || echo 0)
	line=$(grep '^checks: ' "$out" | tail -n 1)
	if [ -z "$line" ]; then
		echo "$label: test runner did not finish"
		failed=$((failed + 1))
		status=1
	else
		r=$(echo "$line" | sed 's/^checks: \([0-9]*\) run, \([0-9]*\) failed$/\1/')
		f=$(echo "$line" | sed 's/^checks: \([0-9]*\) run, \([0-9]*\) failed$/\2/')
		passed=$((passed + r - f))
		failed=$((failed + f))
		[ "$f" -eq 0 ] || status=1
	fi
	rm -f "$out" "$out.rc"
	: "$rc"
}

run normal "$normal" env
[ "$asan" = - ] || {
# fast_unwind_on_malloc=0: a leak inside GnuTLS called by librelp is traced through
# libgnutls (no frame pointers) back to librelp, which lsan.supp can then name.
run "asan+ubsan" "$asan" env ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:halt_on_error=1:fast_unwind_on_malloc=0 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 CK_DEFAULT_TIMEOUT=60 \
	LSAN_OPTIONS=suppressions=$(dirname "$0")/lsan.supp
}
if [ -n "$fuzzdir" ]; then
	echo "== fuzz corpora (+${fuzzsecs} s each of fresh inputs) =="
	for t in "$@"; do
		if sh fuzz/replay.sh "$fuzzdir" "$fuzzsecs" "$t"; then
			passed=$((passed + 1))
		else
			failed=$((failed + 1))
			status=1
		fi
	done
fi
skipped=$(wc -l < "$skipfile")
passed=$((passed - skipped))
echo "$passed passed, $failed failed, $skipped skipped"
exit $status
