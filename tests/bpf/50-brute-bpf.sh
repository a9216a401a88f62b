#!/bin/sh
# rig.timeout: 400
# Brute's BPF flavour (bpf/, docs/bpf-flavour.md) on Debian's stock kernel (make check-bpf):
# brute-bpf-loaded loads, attaches and pins the programs (one loader at a time); a crash of a set-user-ID program a
# user runs is a BRUTE_BPF_CRASH audit record (2712) after its setid boundary record (2711);
# a crash without a boundary is none; self-sent aborts, a handler's re-raise and threads
# faulting together are one crash each; a handler that exit()s is a crash, one that resumes
# is none; a fault signal another process sends is none; forked children share their parent's hierarchy; the pinned state survives a
# restart of the loader, and a crash while it is down is recorded when it is back; --unload
# removes the programs and their state.
. "$RIG/tap.sh"

st=/selftests pins=/sys/fs/bpf/brute
CRASH=2712 BOUNDARY=2711

# Raw records of a type (the audit tools do not know the names of the user-space types).
recs() { ausearch --raw -m "$1" 2>/dev/null | grep "^type=UNKNOWN\[$1\] "; }
# The crash records of process $1.
crash_of() { recs $CRASH | grep " opid=$1 "; }
wait_crash() { wait_for 15 sh -c "ausearch --raw -m $CRASH 2>/dev/null | grep -q ' opid=$1 '"; }
status() { brute-bpf-loaded --status 2>&1; }
stat_of() { status | tr ' ' '\n' | sed -n "s/^$1=//p"; }

starts=0
start_loader() { # start_loader GENERATION: its output in $log (log.1, log.2, ...)
	starts=$((starts + 1))
	log=/tmp/brute-bpf.log.$starts
	brute-bpf-loaded >$log 2>&1 &
	loader=$!
	wait_for 180 grep -q "^ready generation=$1 " $log
}
stop_loader() {
	kill "$loader" 2>/dev/null
	wait "$loader"
}
# run_as_user PROGRAM ARGS...: as uid 1000, through a shell that executes it (its pid: $pid,
# its status: $rc).
run_as_user() {
	runas 1000 sh -c 'echo $$ >/tmp/bpf-pid; exec "$@"' sh "$@" >/tmp/bpf-run.out 2>&1
	rc=$?
	pid=$(cat /tmp/bpf-pid)
}

for p in crasher attacker; do
	cp $st/$p $st/${p}_suid && chmod 4755 $st/${p}_suid
done
cp /usr/local/bin/handled /tmp/handled_suid && chmod 4755 /tmp/handled_suid

# --- 1. Load, attach, pin.
t0=$(date +%s)
if start_loader 1; then
	links=$(ls $pins/links | tr '\n' ' ')
	maps=$(ls $pins | grep -v '^links$' | tr '\n' ' ')
	if [ "$maps" = "control events hierarchies state task_states " ] &&
		[ "$links" = "brute_bprm_committing_creds brute_sched_process_exit brute_signal_deliver brute_task_alloc " ]; then
		ok "loaded and attached in $(($(date +%s) - t0)) s; pinned: maps $maps, links $links"
	else
		not_ok "loaded, attached and pinned" "maps: $maps" "links: $links"
	fi
else
	not_ok "loader ready within 180 s" "$(tail -n 30 $log)"
	exit 0
fi

# One loader at a time: a second one, and --unload, refuse while it runs.
brute-bpf-loaded >/tmp/bpf-second.out 2>&1
rc=$?
if [ $rc = 1 ] && grep -q "another brute-bpf-loaded serves $pins" /tmp/bpf-second.out &&
	[ "$(stat_of generation)" = 1 ]; then
	ok "a second loader refuses to start (generation still 1)"
else
	not_ok "a second loader refuses to start" "exit $rc" "$(cat /tmp/bpf-second.out)" "$(status)"
fi
brute-bpf-loaded --unload >/tmp/bpf-second.out 2>&1
rc=$?
if [ $rc = 1 ] && grep -q "stop it first" /tmp/bpf-second.out && [ -e $pins/state ]; then
	ok "--unload refuses while the loader runs"
else
	not_ok "--unload refuses while the loader runs" "exit $rc" "$(cat /tmp/bpf-second.out)"
fi

# --- 2. A user's crash of a set-user-ID program: its boundary, then its crash.
run_as_user $st/crasher_suid segv
suid_pid=$pid
if [ $rc = 139 ] && wait_crash $pid; then
	r=$(crash_of $pid)
	diag "$r"
	if echo "$r" | grep " sig=11 si_code=1 faults=1 boundaries=setid total=1 " |
		grep " ouid=1000 oeuid=0 " | grep -q 'ocomm="crasher_suid"'; then
		ok "set-user-ID crash of uid 1000: audit record $CRASH (sig 11, SEGV_MAPERR, faults 1, setid)"
	else
		not_ok "set-user-ID crash: the record's fields" "$r"
	fi
	n=$(crash_of $pid | wc -l)
	[ "$n" = 1 ] && ok "one record for one crash" || not_ok "one record for one crash" "$n records"
else
	not_ok "set-user-ID crash of uid 1000: audit record $CRASH" "exit $rc (want 139)" \
		"$(tail -n 5 $log)" "$(tail -n 3 /var/log/audit/audit.log)"
fi
b=$(recs $BOUNDARY | grep " opid=$suid_pid ")
if echo "$b" | grep " boundary=setid " | grep " ouid=1000 oeuid=0 " |
	grep -q 'opath="/selftests/crasher_suid"'; then
	ok "its execve() crossed the setid boundary: audit record $BOUNDARY"
else
	not_ok "its execve() crossed the setid boundary: audit record $BOUNDARY" "$b" \
		"$(recs $BOUNDARY | tail -n 2)"
fi

# --- 3. The same crash without a boundary is not counted.
unbounded=$(stat_of crashes_unbounded)
run_as_user $st/crasher segv
plain_pid=$pid
after=$(stat_of crashes_unbounded)
if [ $rc = 139 ] && [ "$after" = $((unbounded + 1)) ] && [ "$(stat_of crashes)" = 1 ]; then
	ok "a crash with no boundary crossed is not counted (crashes_unbounded $unbounded -> $after)"
else
	not_ok "a crash with no boundary crossed is not counted" "exit $rc" "$(status)"
fi

# --- 4. Crashes a process causes itself, each one crash.
check_one() { # check_one NAME WANT_RC FIELDS PROGRAM ARGS...
	_name=$1 _want=$2 _fields=$3
	shift 3
	run_as_user "$@"
	if [ $rc = "$_want" ] && wait_crash $pid; then
		_r=$(crash_of $pid)
		if [ "$(echo "$_r" | wc -l)" = 1 ] && echo "$_r" | grep -q -- " $_fields"; then
			ok "$_name: one record ($_fields)"
		else
			not_ok "$_name: one record with $_fields" "$_r"
		fi
	else
		not_ok "$_name: a record" "exit $rc (want $_want)" "$(cat /tmp/bpf-run.out)"
	fi
}
check_one "abort() (SIGABRT sent by the process itself)" 134 "sig=6 si_code=-6 " \
	$st/crasher_suid abort
check_one "a handler that re-raises the fault with the default action" 139 "sig=11 " \
	$st/crasher_suid reraise
check_one "eight threads faulting at once" 139 "sig=11 si_code=1 faults=1 " \
	$st/crasher_suid threads
check_one "a handler that _exit()s after the fault" 3 "sig=11 si_code=1 faults=1 boundaries=setid total=5 handled=exit " \
	/tmp/handled_suid exit
run_as_user /tmp/handled_suid resume
resume_pid=$pid resume_rc=$rc

# A fault signal another process sends is no crash, whatever its number.
runas 1000 sh -c 'echo $$ >/tmp/bpf-pid; exec "$@"' sh $st/crasher_suid pause >/dev/null 2>&1 &
wait_for 10 sh -c "grep -q crasher_suid /proc/\$(cat /tmp/bpf-pid)/comm"
killed_pid=$(cat /tmp/bpf-pid)
kill -SEGV "$killed_pid"
wait $!
killed_rc=$?

# --- 5. Forked children share their parent's hierarchy.
run_as_user $st/attacker_suid fork 6
attacker_pid=$pid
wait_for 15 sh -c "[ \$(ausearch --raw -m $CRASH 2>/dev/null | grep -c ' oppid=$attacker_pid ') -ge 6 ]"
r=$(recs $CRASH | grep " oppid=$attacker_pid ")
h=$(echo "$r" | head -n 1 | sed -n 's/.*brute_hierarchy=\([0-9]*\) .*/\1/p')
faults=$(echo "$r" | sed -n 's/.* faults=\([0-9]*\) .*/\1/p' | tr '\n' ' ')
if [ $rc = 0 ] && [ -n "$h" ] && [ "$(echo "$r" | grep -c "brute_hierarchy=$h ")" = 6 ] &&
	[ "$faults" = "1 2 3 4 5 6 " ]; then
	ok "6 forked children's crashes: one hierarchy ($h), faults $faults"
else
	not_ok "6 forked children's crashes in one hierarchy" "exit $rc" "$r"
fi

# --- 6. A restart of the loader: the pinned state is kept; a crash while it is down is
# counted by the programs still attached, and recorded once it is back.
total=$(stat_of crashes)
if stop_loader && [ "$(stat_of crashes)" = "$total" ] && [ "$(stat_of generation)" = 1 ] &&
	[ "$(ls $pins/links | wc -l)" = 4 ]; then
	ok "loader stopped (SIGTERM): pins and count kept (crashes=$total)"
else
	not_ok "loader stopped: pins and count kept" "$(status)" "$(ls -R $pins)"
fi
run_as_user $st/crasher_suid segv
down_pid=$pid
if [ $rc = 139 ] && [ "$(stat_of crashes)" = $((total + 1)) ]; then
	ok "a crash while the loader is down is counted (crashes=$((total + 1)))"
else
	not_ok "a crash while the loader is down is counted" "exit $rc" "$(status)"
fi
if start_loader 2; then
	ok "loader started again: generation 2"
else
	not_ok "loader started again: generation 2" "$(tail -n 20 $log)"
fi
if wait_crash $down_pid && crash_of $down_pid | grep -q " total=$((total + 1)) " &&
	[ "$(crash_of $down_pid | wc -l)" = 1 ]; then
	ok "the crash while it was down is recorded once it is back (total=$((total + 1)))"
else
	not_ok "the crash while it was down is recorded once it is back" "$(crash_of $down_pid)"
fi
run_as_user $st/crasher_suid segv
if [ $rc = 139 ] && wait_crash $pid && crash_of $pid | grep -q " total=$((total + 2)) " &&
	[ "$(stat_of crashes)" = $((total + 2)) ] && [ "$(stat_of generation)" = 2 ] &&
	[ "$(crash_of $pid | wc -l)" = 1 ]; then
	ok "after the restart the pinned map kept its count: the next crash is total=$((total + 2)), recorded once"
else
	not_ok "after the restart the pinned map kept its count" "exit $rc" "$(crash_of $pid)" \
		"$(status)"
fi

# --- 7. What must never be recorded (checked last: the loader has long read past them).
[ "$killed_rc" = 139 ] || not_ok "SIGSEGV sent by root killed crasher_suid pause" "exit $killed_rc"
for p in "$plain_pid:the crash with no boundary" "$resume_pid:the handler that resumed" \
	"$killed_pid:SIGSEGV sent by another process"; do
	if crash_of "${p%%:*}" >/dev/null; then
		not_ok "no record for ${p#*:}" "$(crash_of "${p%%:*}")"
	else
		ok "no record for ${p#*:} (pid ${p%%:*})"
	fi
done
[ "$resume_rc" = 0 ] || not_ok "the handler that resumed: exit 0" "exit $resume_rc"

# --- 8. --unload detaches and removes the state: loaded again, it starts from nothing.
stop_loader
if brute-bpf-loaded --unload && [ ! -e $pins ] && ! brute-bpf-loaded --status 2>/dev/null; then
	ok "--unload removes every pin"
else
	not_ok "--unload removes every pin" "$(ls -R $pins 2>&1)"
fi
if start_loader 1 && [ "$(stat_of crashes)" = 0 ]; then
	run_as_user $st/crasher_suid segv
	if [ $rc = 139 ] && wait_crash $pid && crash_of $pid | grep -q " faults=1 boundaries=setid total=1 " &&
		[ "$(crash_of $pid | wc -l)" = 1 ]; then
		ok "loaded after --unload: new state (generation 1), a crash is total=1, recorded once"
	else
		not_ok "loaded after --unload: a crash is total=1, recorded once" "exit $rc" \
			"$(crash_of $pid)"
	fi
else
	not_ok "loaded after --unload: new state (generation 1, crashes 0)" "$(status)" \
		"$(tail -n 10 $log)"
fi
stop_loader
brute-bpf-loaded --unload
for f in /tmp/brute-bpf.log.*; do
	diag "$f:"
	sed 's/^/#   /' "$f" | tail -n 15
done
