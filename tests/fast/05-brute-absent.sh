#!/bin/sh
# A kernel with Brute built in (its KUnit tests too) but booted without it in the LSM list
# (make check's second fast boot, with lsm=capability): nothing of Brute is there, its KUnit
# cases skip instead of touching what it never set up (the rig fails the run on any oops),
# and crashes, set-ID programs and sockets work as without Brute.
. "$RIG/tap.sh"

st=/selftests
if [ -d /proc/sys/kernel/brute ]; then
	skip "Brute absent" "Brute is initialized (this runs in the boot with lsm=capability)"
	exit 0
fi
lsm=$(cat /sys/kernel/security/lsm 2>&1)
if ! echo "$lsm" | grep -q brute && [ ! -e /sys/kernel/security/brute ]; then
	ok "not in the LSM list ($lsm): no sysctl, no securityfs directory"
else
	not_ok "not in the LSM list: no sysctl, no securityfs directory" "lsm: $lsm" \
		"$(ls /sys/kernel/security/brute 2>&1)"
fi
cp $st/crasher $st/crasher_suid && chmod 4755 $st/crasher_suid
crashed=0
for i in 1 2 3 4 5 6 7 8; do
	runas 1000 $st/crasher_suid segv 2>/dev/null
	[ $? = 139 ] && crashed=$((crashed + 1))
done
if [ $crashed = 8 ] && runas 1000 $st/crasher_suid true; then
	ok "8 crashes of a set-user-ID program, nothing stops the ninth run"
else
	not_ok "8 crashes of a set-user-ID program, nothing stops the ninth run" "crashed $crashed"
fi
$st/service unix /tmp/absent.sock >/tmp/absent.out 2>&1 &
svc=$!
wait_for 10 grep -q listening /tmp/absent.out
out=$($st/client -u 4243 -c 7 -r crash unix /tmp/absent.sock)
after=$($st/client -u 4243 -c 1 unix /tmp/absent.sock)
kill $svc
if [ "$out" = "answered 0 crashed 7 refused 0" ] && [ "$after" = "answered 1 crashed 0 refused 0" ]; then
	ok "a Unix service crashed 7 times by a peer still serves it"
else
	not_ok "a Unix service crashed 7 times by a peer still serves it" "$out" "$after"
fi
exit 0
