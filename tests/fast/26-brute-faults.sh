#!/bin/sh
# Fault injection aimed at Brute's allocations (issue 10): failslab on Brute's own caches
# (brute_hierarchy, brute_target; the debug kernels boot with slab_nomerge so that they stay
# apart) and on audit buffers, fail_page_alloc under a task filter.  No task is left without
# statistics, nothing leaks, detection goes on, and the audit trail says what was skipped.
# Needs CONFIG_FAILSLAB and CONFIG_FAIL_PAGE_ALLOC: the kernels of make check-debug.
. "$RIG/tap.sh"

st=/selftests
CRASH=1712
[ -d /proc/sys/kernel/brute ] || { not_ok "brute is enabled" "no /proc/sys/kernel/brute"; exit 0; }
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
F=/sys/kernel/debug/failslab P=/sys/kernel/debug/fail_page_alloc
if [ ! -d $F ] || [ ! -d $P ]; then
	skip "fault injection" "no failslab/fail_page_alloc in this kernel (make check-debug runs this)"
	exit 0
fi
for p in crasher attacker; do
	cp $st/$p $st/${p}_suid && chmod 4755 $st/${p}_suid
done
echo 0 >/proc/sys/debug/exception-trace 2>/dev/null
echo flush >/sys/kernel/security/brute/lift

recs() { ausearch --raw -m "$1" 2>/dev/null | grep -E "^type=(UNKNOWN\[$1\]|BRUTE_CRASH) "; }
lost() { auditctl -s | sed -n 's/^lost //p'; }
hierarchies() { sed -n 's/.*hierarchies=\([0-9]*\).*/\1/p' /sys/kernel/security/brute/stats; }
# Fail every allocation of the given caches, for the tasks that ask for it only.
failslab_on() {
	for c in brute_hierarchy brute_target audit_buffer; do
		echo 0 >/sys/kernel/slab/$c/failslab 2>/dev/null
	done
	for c in "$@"; do
		echo 1 >/sys/kernel/slab/$c/failslab || return 1
	done
	echo Y >$F/cache-filter && echo Y >$F/task-filter && echo 100 >$F/probability &&
		echo 0 >$F/interval && echo -1 >$F/times && echo N >$F/ignore-gfp-wait &&
		echo 0 >$F/verbose
}
failslab_off() {
	echo 0 >$F/probability
	for c in brute_hierarchy brute_target audit_buffer; do
		echo 0 >/sys/kernel/slab/$c/failslab 2>/dev/null
	done
}
# Run a command whose allocations may fail (make-it-fail is inherited by its children).
failing() { sh -c 'echo 1 >/proc/self/make-it-fail && exec "$@"' sh "$@"; }
# Start an attacker that pauses after 2 attempts; make it (and its later children) fail.
attack_failing() {
	runas 1000 $st/attacker_suid -P 2 fork 12 >/tmp/faults.out 2>&1 &
	_pid=$!
	wait_for 20 grep -q paused /tmp/faults.out
	echo 1 >/proc/$_pid/make-it-fail
	kill -USR1 $_pid
	wait $_pid
}

base=$(hierarchies)

# 1. No memory for the hierarchy of a new image: execve() fails with ENOMEM, before its
#    point of no return; the task keeps its image and its hierarchy.
if ! failslab_on brute_hierarchy; then
	not_ok "failslab set up on brute_hierarchy" "$(ls /sys/kernel/slab | grep brute)"
else
	out=$(failing sh -c "exec $st/crasher true" 2>&1)
	rc=$?
	failslab_off
	case "$out" in
	*"memory"*) ok "execve() without memory for a hierarchy fails with ENOMEM (exit $rc)" ;;
	*) not_ok "execve() without memory for a hierarchy fails with ENOMEM" "exit $rc: $out" ;;
	esac
	check "after the failures, execve() works again" $st/crasher true
	# The process that failed to execute still counts its crashes: a fork attack in it.
	failslab_on brute_hierarchy
	attack_failing
	rc=$?
	failslab_off
	if [ $rc = 137 ]; then
		ok "a fork attack of a task whose allocations fail is killed"
	else
		not_ok "a fork attack of a task whose allocations fail is killed" "exit $rc" \
			"$(cat /tmp/faults.out)"
	fi
fi

# 2. No memory for a (user, target) entry: the crash is not charged, a CRASH record says so
#    (charged=no), and the fork attack is still detected and killed.
# (An entry that exists needs no memory: empty the table, the attacks above made one.)
echo flush >/sys/kernel/security/brute/lift
before=$(recs $CRASH | grep -c ' charged=no')
failslab_on brute_target
# Failing from its first crash on: a hierarchy is charged to the table once, at its first.
failing runas 1000 $st/attacker_suid fork 12 >/tmp/faults.out 2>&1
rc=$?
failslab_off
# After the storm auditd may still be catching up (sanitizer kernels): give the record time.
charged_no() { recs $CRASH | grep -c ' charged=no'; }
wait_for 30 sh -c "[ \$(ausearch --raw -m $CRASH 2>/dev/null | grep -c ' charged=no') -gt $before ]"
after=$(charged_no)
if [ "$after" = "$before" ] && dmesg | grep -q 'not charged to user'; then
	diag "the kernel skipped the charge (dmesg) but no charged=no record reached audit.log in 30 s; lost: $(lost)"
fi
if [ $rc = 137 ] && [ "$after" -gt "$before" ]; then
	ok "without memory for the table: attack killed, CRASH charged=no recorded"
else
	not_ok "without memory for the table: attack killed, CRASH charged=no recorded" \
		"exit $rc, charged=no records $before -> $after"
fi

# 3. No memory for audit buffers: the records are lost, counted as lost by audit and as
#    dropped by Brute (its stats, then the next record it emits); the attack is still killed.
dropped() { sed -n 's/.* records_dropped=\([0-9]*\).*/\1/p' /sys/kernel/security/brute/stats; }
lost_before=$(lost)
dropped_before=$(dropped)
failslab_on audit_buffer
failing runas 1000 $st/attacker_suid fork 12 >/tmp/faults.out 2>&1
rc=$?
failslab_off
lost_after=$(lost)
dropped_after=$(dropped)
# The first Brute record emitted after the losses reports them: whichever it is (on a slow
# kernel the attack's hierarchy may end after failslab_off, its record first), and with a
# total that may have grown meanwhile (a record refused by a full backlog counts too).
reported() {
	ausearch --raw -m 1710,1711,1712,1713,1714,1715,1716,1717,1718,1719 2>/dev/null |
		sed -n 's/.* records_dropped=\([0-9]*\).*/\1/p' | sort -n | tail -n 1
}
reported_all() { [ "$(reported)" -ge "$dropped_after" ] 2>/dev/null; }
# Nothing else may emit one: make one, a crash of a set-user-ID image charged to user 1000
# (a CRASH record), and again if that one was refused too (by a backlog the storm filled:
# it then counts as dropped, and the next record reports it). Three stay under min_faults.
i=0
while [ $i -lt 3 ] && ! reported_all; do
	runas 1000 $st/crasher_suid segv >/dev/null 2>&1
	wait_for 20 reported_all
	i=$((i + 1))
done
if [ $rc = 137 ] && [ "$lost_after" -gt "$lost_before" ] && [ "$dropped_after" -gt "$dropped_before" ] &&
	reported_all; then
	ok "without audit buffers: attack killed, $((lost_after - lost_before)) lost, $((dropped_after - dropped_before)) dropped and reported (records_dropped=$(reported))"
else
	not_ok "without audit buffers: attack killed, records lost, dropped and reported" \
		"exit $rc, lost $lost_before -> $lost_after, dropped $dropped_before -> $dropped_after" \
		"highest records_dropped= in audit.log: $(reported); audit lost now $(lost)"
fi

# 4. Page allocations failing at random (10%) in attacks and exec attacks: no splat (the
#    rig checks the console), every process ends, nothing leaks.
echo Y >$P/task-filter && echo 10 >$P/probability && echo 0 >$P/interval &&
	echo -1 >$P/times && echo N >$P/ignore-gfp-wait && echo N >$P/ignore-gfp-highmem &&
	echo 0 >$P/min-order && echo 0 >$P/verbose
i=0
while [ $i -lt 6 ]; do
	failing runas 1000 $st/attacker_suid fork 12 >/dev/null 2>&1
	failing $st/attacker -c 2500 exec 6 $st/crasher_suid segv >/dev/null 2>&1
	i=$((i + 1))
done
echo 0 >$P/probability
ok "attacks with 10% of page allocations failing ran to their end"

# Every hierarchy of the runs above freed (after a grace period, which the sanitizer kernels
# stretch: up to 30 s). Each reading counts the hierarchy of its own sed, as the baseline's
# did, and whatever else is executing at that moment; a leak stays above the baseline
# however long it waits.
back_to_base() { now=$(hierarchies); [ "$now" -le "$base" ]; }
echo flush >/sys/kernel/security/brute/lift
wait_for 30 back_to_base
if [ "$now" -le "$base" ]; then
	ok "live hierarchies back to baseline ($base before, $now after)"
else
	not_ok "live hierarchies back to baseline" "$base before, $now after"
fi
exit 0
