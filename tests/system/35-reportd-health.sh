#!/bin/sh
# brute-reportd is never silently useless (issue 12): under its unit it says, in one journal
# line each, that Brute is in mode 0, that net.core.rmem_max caps its netlink receive buffer
# below netlink_rcvbuf, and that it cannot tell whether audit is on (AUDIT_GET needs
# CAP_AUDIT_CONTROL, which the unit does not grant); it notices mode 2 coming back by its
# periodic check; STATUS= carries the same view.  As root, `brute-reportd --health` sees audit
# disabled (auditctl -e 0) and exits 1.
. "$RIG/tap.sh"

MODE=/proc/sys/kernel/brute/mode
if [ ! -w $MODE ]; then
	not_ok "brute is enabled" "$(cat /sys/kernel/security/lsm 2>&1)"
	exit 0
fi
mode0=$(cat $MODE)
rmem0=$(sysctl -n net.core.rmem_max)
# the journal of the daemon's current run only
since() { journalctl -u brute-reportd -o cat --no-pager _SYSTEMD_INVOCATION_ID="$(systemctl show -p InvocationID --value brute-reportd)" 2>/dev/null; }
has() { since | grep -q "$1"; }
restore() {
	echo "$mode0" >$MODE
	sysctl -q -w net.core.rmem_max="$rmem0"
	auditctl -e 1 >/dev/null 2>&1
}

# --- mode 0 and the default rmem_max (212992 < 8M netlink_rcvbuf) ---------------------------
echo 0 >$MODE
sysctl -q -w net.core.rmem_max=212992
if ! systemctl restart brute-reportd.service; then
	not_ok "brute-reportd restarts" "$(systemctl status --no-pager brute-reportd 2>&1 | tail -n 8)"
	restore
	exit 0
fi
if wait_for 10 has 'Brute is in mode 0'; then
	ok "mode 0: one journal line at start ($(since | grep 'mode 0' | head -n 1 | cut -c1-80)...)"
else
	not_ok "mode 0: one journal line at start" "$(since | tail -n 6)"
fi
if has 'receive buffer is 208 KiB, not the 8192 KiB of netlink_rcvbuf: net.core.rmem_max caps it'; then
	ok "a capped netlink receive buffer is said at start (rmem_max 212992)"
else
	not_ok "a capped netlink receive buffer is said at start" "$(since | tail -n 6)"
fi
if has 'cannot tell whether audit is enabled (AUDIT_GET: Operation not permitted, needs CAP_AUDIT_CONTROL'; then
	ok "audit's state unknown under the unit: said once"
else
	not_ok "audit's state unknown under the unit: said once" "$(since | tail -n 6)"
fi
st=$(systemctl show -p StatusText --value brute-reportd)
case $st in
"brute active, audit unknown, mode 0, receive buffer capped; records "*) ok "STATUS=: $st" ;;
*) not_ok "STATUS= shows mode 0 and the capped buffer" "$st" ;;
esac
[ "$(since | grep -c 'Brute is in mode 0')" = 1 ] && ok "said once, not at every check" ||
	not_ok "said once, not at every check" "$(since | grep 'mode 0')"

# --- mode 2 again: the periodic check (every 30 s) notices ----------------------------------
echo 2 >$MODE
if wait_for 45 has 'Brute is in mode 2 again'; then
	ok "mode 2 again: noticed by the periodic check"
else
	not_ok "mode 2 again: noticed by the periodic check" "$(since | tail -n 4)"
fi
if wait_for 10 sh -c 'systemctl show -p StatusText --value brute-reportd | grep -q "mode 2, receive buffer capped;"'; then
	ok "STATUS= follows: $(systemctl show -p StatusText --value brute-reportd | cut -d';' -f1)"
else
	not_ok "STATUS= follows the mode" "$(systemctl show -p StatusText --value brute-reportd)"
fi

# --- rmem_max raised: no warning; the state file goes with the daemon ------------------------
sysctl -q -w net.core.rmem_max=8388608
systemctl restart brute-reportd.service
wait_for 10 has 'brute active'
if ! has 'receive buffer is' && ! has 'mode 0'; then
	ok "rmem_max 8M, mode 2: no warning ($(since | grep 'brute active' | head -n 1))"
else
	not_ok "rmem_max 8M, mode 2: no warning" "$(since | tail -n 5)"
fi
systemctl stop brute-reportd.service
if [ ! -e /run/brute-reportd/status ] && brutectl status | grep -q '^reportd: not running'; then
	ok "stopped: no state file, brutectl status says not running"
else
	not_ok "stopped: no state file, brutectl status says not running" "$(brutectl status 2>&1 | tail -n 2)"
fi

# --- audit disabled, seen as root -----------------------------------------------------------
auditctl -e 0 >/dev/null
out=$(brute-reportd --health 2>&1)
rc=$?
auditctl -e 1 >/dev/null
if [ $rc = 1 ] && echo "$out" | grep -q 'audit is disabled' &&
	echo "$out" | grep -q '^brute active, audit disabled, mode 2$'; then
	ok "brute-reportd --health as root: audit disabled, exit 1"
else
	not_ok "brute-reportd --health as root: audit disabled, exit 1" "exit $rc" "$out"
fi
out=$(brute-reportd --health 2>&1)
rc=$?
if [ $rc = 0 ] && echo "$out" | grep -q '^brute active, audit enabled, mode 2$'; then
	ok "brute-reportd --health: all well, exit 0"
else
	not_ok "brute-reportd --health: all well, exit 0" "exit $rc" "$out"
fi
restore
exit 0
