#!/bin/sh
# run-tests.sh TESTDIR: the guest side of the rig protocol, shared by both guests
# (busybox ash in the fast guest, dash in the system guest).
#
# Runs TESTDIR/*.sh in name order, each with stdin from /dev/null, cwd /tmp and a per-script
# timeout. A script prints TAP lines on stdout: "ok - NAME", "not ok - NAME", "# diagnostic".
# This numbers them ("ok 3 - SCRIPT: NAME"), writes them to the result port /dev/ttyS1 and
# echoes everything on the console; a script that exits non-zero, times out or asserts
# nothing adds a "not ok", and so does each line of /run/rig-setup-failures (what the guest's
# setup could not do). Last line on the result port: "N passed, N failed[, N skipped]".
#
# Kernel command line (read from /proc/cmdline):
#   rig.tests=NAME[,NAME]  run only these scripts (file names without .sh; default: all)
#   rig.timeout=SECS       per-script timeout (default 60, 0 = none); a script that needs
#                          more says so in its first lines: "# rig.timeout: SECS" (a bound
#                          only raised by it, never lowered, and never set when it is none)
#   rig.inject=fail|hang|timeout   also run a rig self-test that fails / hangs the whole
#                                  guest / hangs past its per-script timeout (5 s)
testdir=$1
results=${RIG_RESULTS:-/dev/ttyS1}

tests= timeout=60 inject=
for arg in $(cat /proc/cmdline); do
	case $arg in
	rig.tests=*) tests=$(echo "${arg#*=}" | tr ',' ' ') ;;
	rig.timeout=*) timeout=${arg#*=} ;;
	rig.inject=*) inject=${arg#*=} ;;
	esac
done

say() { echo "rig: [$(cut -d" " -f1 /proc/uptime)] $*" >/dev/console; }

exec 3>"$results"
stty -F "$results" raw -echo 2>/dev/null
n=0 pass=0 fail=0 skipped=0
out=$(mktemp)

emit() { # emit ok|not-ok DESCRIPTION
	n=$((n + 1))
	case $1 in
	ok)
		line="ok $n - $2"
		case $2 in *'# SKIP'*) skipped=$((skipped + 1)) ;; *) pass=$((pass + 1)) ;; esac
		;;
	*) line="not ok $n - $2" fail=$((fail + 1)) ;;
	esac
	echo "$line" >&3
	say "$line"
}

run_script() { # run_script PATH TIMEOUT
	name=${1##*/}
	name=${name%.sh}
	own=$(sed -n '1,20s/^# rig.timeout: *\([0-9][0-9]*\).*/\1/p' "$1" | head -n 1)
	if [ -n "$own" ] && [ "$2" -gt 0 ] && [ "$own" -gt "$2" ]; then
		set -- "$1" "$own"
	fi
	say "=== $name"
	start=$(date +%s)
	if [ "$2" -gt 0 ]; then
		(cd /tmp && exec timeout -s KILL "$2" sh "$1") </dev/null >"$out" 2>&1
	else
		(cd /tmp && exec sh "$1") </dev/null >"$out" 2>&1
	fi
	rc=$?
	elapsed=$(($(date +%s) - start))
	sed "s/^/[$name] /" "$out" >/dev/console
	asserted=0
	while IFS= read -r line; do
		case $line in
		"not ok"*)
			emit not-ok "$name: $(echo "$line" | sed -E 's/^not ok *[0-9]* *-? *//')"
			asserted=1
			;;
		"ok "* | ok)
			emit ok "$name: $(echo "$line" | sed -E 's/^ok *[0-9]* *-? *//')"
			asserted=1
			;;
		"#"*) echo "$line" >&3 ;;
		esac
	done <"$out"
	if [ "$2" -gt 0 ] && [ $rc -ne 0 ] && [ $elapsed -ge "$2" ]; then
		emit not-ok "$name: timed out after $2 s"
		# Killed mid-way, it restored nothing: what it may have changed for the
		# scripts after it goes back (auditctl -f 2 would panic on a lost record).
		auditctl -f 1 >/dev/null 2>&1
		[ -w /proc/sys/kernel/brute/mode ] && echo 2 >/proc/sys/kernel/brute/mode
		[ -w /sys/kernel/security/brute/lift ] && echo flush >/sys/kernel/security/brute/lift
	elif [ $rc -ne 0 ]; then
		emit not-ok "$name: exited with status $rc"
	elif [ $asserted -eq 0 ]; then
		emit not-ok "$name: printed no TAP result"
	fi
	say "=== $name: exit $rc after $elapsed s"
}

# What the guest's setup could not do (auditd, audit rules) fails the run.
if [ -f /run/rig-setup-failures ]; then
	while IFS= read -r line; do emit not-ok "rig setup: $line"; done </run/rig-setup-failures
fi

for t in "$testdir"/*.sh; do
	[ -e "$t" ] || continue
	name=${t##*/}
	name=${name%.sh}
	if [ -n "$tests" ]; then
		case " $tests " in *" $name "*) ;; *) continue ;; esac
	fi
	run_script "$t" "$timeout"
done
case $inject in
fail) run_script "$RIG/inject/fail.sh" "$timeout" ;;
hang) run_script "$RIG/inject/hang.sh" 0 ;;
timeout) run_script "$RIG/inject/hang.sh" 5 ;;
esac

summary="$pass passed, $fail failed"
[ $skipped -eq 0 ] || summary="$summary, $skipped skipped"
echo "$summary" >&3
say "$summary"
rm -f "$out"
exec 3>&-
sync
