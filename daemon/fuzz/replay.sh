#!/bin/sh
# Replay each fuzz target's corpus, then run it for a few seconds on fresh
# inputs (kept in a temporary directory, not in the corpus); SECONDS 0: the
# corpus only (deterministic: the package build's tests).
# Usage: replay.sh BUILD_DIR SECONDS TARGET...; prints "fuzz TARGET: ok|FAILED" per target.
set -u
dir=$1 secs=$2
shift 2
status=0
for t in "$@"; do
	tmp=$(mktemp -d)
	if "$dir/fuzz_$t" -runs=0 fuzz/corpus/"$t" >"$tmp/log" 2>&1 &&
		{ [ "$secs" = 0 ] || "$dir/fuzz_$t" -max_total_time="$secs" -max_len=65536 "$tmp" \
			fuzz/corpus/"$t" -runs=100000000 >>"$tmp/log" 2>&1; }; then
		echo "fuzz $t: ok ($(grep -c . "$tmp/log") log lines, $(ls "$tmp" | wc -l) new inputs)"
	else
		echo "fuzz $t: FAILED"
		tail -n 30 "$tmp/log"
		status=1
	fi
	rm -rf "$tmp"
done
exit $status
