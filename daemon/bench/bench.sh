#!/bin/sh
# make -C daemon bench: throughput vs audisp-syslog, kill latency, RSS.
set -eu
bin=$(realpath "$1")
here=$(dirname "$0")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
records=${BENCH_RECORDS:-1000000}

printf 'journal = no\n' > "$tmp/reportd.conf"
chmod 600 "$tmp/reportd.conf"

throughput() { # EVERY: one record in EVERY is brute's
	every=$1
	echo "== generating $records records (1 in $every brute) =="
	"$here/gen-stream" "$records" 0 "$every" > "$tmp/stream.log"
	ls -l "$tmp/stream.log" | awk '{ printf "%d bytes\n", $5 }'

	now() { date +%s.%N; }

	echo "== throughput: same file on stdin, output discarded =="
	cat "$tmp/stream.log" > /dev/null		# warm the page cache
	t0=$(now)
	"$bin" --config "$tmp/reportd.conf" --input - --output text < "$tmp/stream.log" > /dev/null
	t1=$(now)
	ours=$(echo "$t1 - $t0" | bc -l)

	# audisp-syslog writes every record with syslog(3) to /dev/log.  Give it a
	# real datagram sink there (private mount namespace) so it is not timed
	# failing to connect; without unshare it is timed against a missing /dev/log.
	if [ -x /usr/sbin/audisp-syslog ]; then
		if unshare -m true 2>/dev/null; then
			theirs=$(unshare -m sh -c '
				d=$(mktemp -d); touch "$d/null"; mount --bind /dev/null "$d/null"
				mount --bind "$d" /dev
				"$1" --sink /dev/log & s=$!; sleep 0.3
				t0=$(date +%s.%N)
				/usr/sbin/audisp-syslog < "$2" > /dev/null 2>&1 || true
				t1=$(date +%s.%N)
				kill $s; echo "$t1 - $t0" | bc -l' sh "$(realpath "$here/latency")" "$tmp/stream.log")
			how="to a datagram sink on /dev/log"
		else
			t0=$(now)
			/usr/sbin/audisp-syslog < "$tmp/stream.log" > /dev/null 2>&1 || true
			t1=$(now)
			theirs=$(echo "$t1 - $t0" | bc -l)
			how="(no /dev/log: syslog(3) fails to connect)"
		fi
		printf 'brute-reportd --input -   %8.3f s  %10.0f records/s\n' "$ours" "$(echo "$records / $ours" | bc -l)"
		printf 'audisp-syslog             %8.3f s  %10.0f records/s  %s\n' "$theirs" "$(echo "$records / $theirs" | bc -l)" "$how"
		printf 'ratio (audisp-syslog time / brute-reportd time): %.1fx\n' "$(echo "$theirs / $ours" | bc -l)"
	else
		printf 'brute-reportd --input -   %8.3f s  %10.0f records/s (audisp-syslog not installed)\n' "$ours" "$(echo "$records / $ours" | bc -l)"
	fi


}

throughput 100
throughput 1

echo "== latency: BRUTE_KILL record -> entry (plugin mode, kill_coalesce_ms=10) =="
"$here/latency" "$bin" "$tmp/reportd.conf" 200

echo "== memory: 100000 open hierarchies =="
"$here/gen-stream" 0 100000 > "$tmp/open.log"
"$bin" --config "$tmp/reportd.conf" --input "$tmp/open.log" --output none --stats 2>&1 >/dev/null |
	sed -n 's/.*hierarchies \([0-9]*\), open.*max RSS \([0-9]*\) KiB.*/tracked hierarchies at end: \1, max RSS \2 KiB/p'
"$bin" --config "$tmp/reportd.conf" --input /dev/null --output none --stats 2>&1 |
	sed -n 's/.*max RSS \([0-9]*\) KiB.*/baseline (no hierarchies): max RSS \1 KiB/p'
