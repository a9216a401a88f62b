#!/bin/sh
# rig.timeout: 900
# Code patched at run time while another vCPU forks (BRUTE_BPF_STRESS=MODE:N make check-bpf;
# not run otherwise): N rounds of
#   bpf      brute-bpf-loaded loads, attaches, is stopped and --unload detaches (BPF
#            trampolines on the bpf_lsm_* hooks, and the static keys of the BPF LSM's hooks)
#   ftrace   the function tracer on security_task_alloc and security_bprm_committing_creds,
#            on and off (no BPF at all: the control)
# while a loop forks and executes /bin/true. Under multi-threaded TCG (BRUTE_QEMU_ACCEL=tcg)
# both modes end in "Oops: int3" within about 30 rounds, in the patched function's entry;
# with tcg,thread=single they do not (docs/bpf-flavour.md, "The rig and code patching").
. "$RIG/tap.sh"

mode=$(sed -n 's/.*stress\.mode=\([a-z]*\).*/\1/p' /proc/cmdline)
n=$(sed -n 's/.*stress\.n=\([0-9]*\).*/\1/p' /proc/cmdline)
if [ -z "$mode" ]; then
	skip "text patching stress" "no stress.mode= on the kernel command line"
	exit 0
fi
(while :; do /bin/true; done) &
forker=$!
i=0
while [ $i -lt "${n:-30}" ]; do
	i=$((i + 1))
	case $mode in
	bpf)
		brute-bpf-loaded >/tmp/stress.log 2>&1 &
		loader=$!
		if ! wait_for 60 grep -q '^ready' /tmp/stress.log; then
			not_ok "$mode: round $i: loader ready" "$(cat /tmp/stress.log)"
			break
		fi
		kill $loader
		wait $loader
		brute-bpf-loaded --unload
		;;
	ftrace)
		t=/sys/kernel/tracing
		[ -e $t/current_tracer ] || mount -t tracefs tracefs $t
		printf 'security_task_alloc\nsecurity_bprm_committing_creds\n' >$t/set_ftrace_filter &&
			echo function >$t/current_tracer && echo nop >$t/current_tracer ||
			{ not_ok "$mode: round $i: tracer on and off"; break; }
		;;
	*) not_ok "stress.mode=$mode: bpf or ftrace"; break ;;
	esac
	echo "rig: stress $mode round $i" >/dev/console
done
kill $forker
ok "$mode: $i rounds of code patching while forking, no oops"
