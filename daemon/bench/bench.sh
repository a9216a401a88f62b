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

reps=${BENCH_REPS:-5}
now() { date +%s.%N; }

# stats FILE: "min median" of the numbers in FILE
stats() { sort -g "$1" | awk '{ v[NR] = $1 } END { printf "%.3f %.3f", v[1], v[int((NR + 1) / 2)] }'; }

# cpu_seconds FILE: user + system seconds of the reaped children in FILE, the
# output of `times` (second line: "0m1.234s 0m0.567s").  `times` itself must
# run in the shell whose children are counted, not in a $(...) subshell.
cpu_seconds() {
	sed -n 2p "$1" | awk '{ s = 0; for (i = 1; i <= 2; i++) { split($i, t, "m"); s += t[1] * 60 + t[2] } printf "%.3f\n", s }'
}

# run_ours: wall seconds on stdout, CPU seconds (user + system) appended to ours.cpu
run_ours() {
	t0=$(now)
	times > "$tmp/times.0"
	"$bin" --config "$tmp/reportd.conf" --input - --output text < "$tmp/stream.log" > /dev/null
	times > "$tmp/times.1"
	t1=$(now)
	echo "$(cpu_seconds "$tmp/times.1") - $(cpu_seconds "$tmp/times.0")" | bc -l >> "$tmp/ours.cpu"
	echo "$t1 - $t0" | bc -l
}

# run_floor: wall seconds on stdout, CPU seconds appended to floor.cpu
run_floor() {
	t0=$(now)
	times > "$tmp/times.0"
	"$here/auparse-floor" < "$tmp/stream.log" 2> /dev/null
	times > "$tmp/times.1"
	t1=$(now)
	echo "$(cpu_seconds "$tmp/times.1") - $(cpu_seconds "$tmp/times.0")" | bc -l >> "$tmp/floor.cpu"
	echo "$t1 - $t0" | bc -l
}

# audisp-syslog writes every record with syslog(3) to /dev/log.  Give it a
# real datagram sink there (private mount namespace) so it is not timed
# failing to connect; without unshare it is timed against a missing /dev/log.
run_theirs() {
	if unshare -m true 2>/dev/null; then
		unshare -m sh -c '
			d=$(mktemp -d); touch "$d/null"; mount --bind /dev/null "$d/null"
			mount --bind "$d" /dev
			"$1" --sink /dev/log & s=$!; sleep 0.3
			t0=$(date +%s.%N)
			times > "$3.0"
			/usr/sbin/audisp-syslog < "$2" > /dev/null 2>&1 || true
			times > "$3.1"
			t1=$(date +%s.%N)
			kill $s; echo "$t1 - $t0" | bc -l' sh "$(realpath "$here/latency")" "$tmp/stream.log" "$tmp/times"
	else
		t0=$(now)
		times > "$tmp/times.0"
		/usr/sbin/audisp-syslog < "$tmp/stream.log" > /dev/null 2>&1 || true
		times > "$tmp/times.1"
		t1=$(now)
		echo "$t1 - $t0" | bc -l
	fi
	# audisp-syslog's own CPU: the sink is never reaped, so it is not counted
	echo "$(cpu_seconds "$tmp/times.1") - $(cpu_seconds "$tmp/times.0")" | bc -l >> "$tmp/theirs.cpu"
}

line() { # NAME MIN MEDIAN NOTE
	printf '%-26s %7.3f s %7.3f s %10.0f %10.0f  %s\n' "$1" "$2" "$3" \
		"$(echo "$records / $2" | bc -l)" "$(echo "$records / $3" | bc -l)" "$4"
}

throughput() { # EVERY: one record in EVERY is brute's
	every=$1
	echo "== throughput: $records records, 1 in $every brute's; $reps runs each, interleaved =="
	"$here/gen-stream" "$records" 0 "$every" > "$tmp/stream.log"
	cat "$tmp/stream.log" > /dev/null		# warm the page cache
	: > "$tmp/ours"; : > "$tmp/theirs"; : > "$tmp/floor"; : > "$tmp/ours.cpu"; : > "$tmp/theirs.cpu"
	: > "$tmp/floor.cpu"
	for _ in $(seq "$reps"); do
		run_ours >> "$tmp/ours"
		[ -x /usr/sbin/audisp-syslog ] && run_theirs >> "$tmp/theirs"
		run_floor >> "$tmp/floor"
	done
	printf '%-26s %9s %9s %10s %10s\n' "" "min" "median" "rec/s max" "rec/s med"
	set -- $(stats "$tmp/ours"); o_min=$1 o_med=$2
	line "brute-reportd --input -" "$o_min" "$o_med" "(text output, discarded)"
	set -- $(stats "$tmp/floor"); f_min=$1 f_med=$2
	line "libauparse alone" "$1" "$2" "(bench/auparse-floor: feed, flush, visit every field)"
	# what brute-reportd costs beyond libauparse itself (issue 31 #5: the goal is <= 1.3x)
	set -- $(stats "$tmp/ours.cpu"); oc_min=$1 oc_med=$2
	set -- $(stats "$tmp/floor.cpu")
	printf 'ratio brute-reportd / libauparse alone: time %.2fx (medians), %.2fx (minimums); CPU %.2fx (medians), %.2fx (minimums) (CPU %.3f / %.3f s, min)\n' \
		"$(echo "$o_med / $f_med" | bc -l)" "$(echo "$o_min / $f_min" | bc -l)" \
		"$(echo "$oc_med / $2" | bc -l)" "$(echo "$oc_min / $1" | bc -l)" "$oc_min" "$1"
	if [ -s "$tmp/theirs" ]; then
		set -- $(stats "$tmp/theirs"); t_min=$1 t_med=$2
		if unshare -m true 2>/dev/null; then how="(syslog(3) to a datagram sink on /dev/log)"; else how="(no /dev/log: syslog(3) fails to connect)"; fi
		line "audisp-syslog" "$t_min" "$t_med" "$how"
		printf 'ratio audisp-syslog / brute-reportd time: %.2fx (medians), %.2fx (minimums)\n' \
			"$(echo "$t_med / $o_med" | bc -l)" "$(echo "$t_min / $o_min" | bc -l)"
		set -- $(stats "$tmp/ours.cpu"); oc_min=$1 oc_med=$2
		set -- $(stats "$tmp/theirs.cpu")
		printf 'CPU (user + system) per run: brute-reportd %.3f / %.3f s, audisp-syslog %.3f / %.3f s (min / median)\n' \
			"$oc_min" "$oc_med" "$1" "$2"
		printf 'ratio audisp-syslog / brute-reportd CPU: %.2fx (medians), %.2fx (minimums)\n' \
			"$(echo "$2 / $oc_med" | bc -l)" "$(echo "$1 / $oc_min" | bc -l)"
	else
		echo "audisp-syslog not installed: no ratio"
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
