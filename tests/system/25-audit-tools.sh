#!/bin/sh
# The Debian image runs the audit packages built from userspace/audit/*.patch
# (scripts/audit-pkgs.sh, installed by scripts/rootfs.sh): its auditd writes the records by
# name, and ausearch and aureport find the crashes of 20-brute-init.sh's service by
# program, user and key.
. "$RIG/tap.sh"

v=$(dpkg-query -W -f '${Package}=${Version} ' auditd libaudit1 libauparse0 2>&1)
if [ "$(echo "$v" | grep -o '+brute1' | wc -l)" = 3 ]; then
	ok "patched audit packages installed: $v"
else
	not_ok "patched audit packages installed" "$v"
fi
exe=/usr/local/bin/brute-crasher-suid
if grep -aq "^type=BRUTE_CRASH .*exe=\"$exe\"" /var/log/audit/audit.log; then
	ok "auditd writes type=BRUTE_CRASH"
else
	not_ok "auditd writes type=BRUTE_CRASH" "$(grep -a -m 2 -E 'BRUTE_|UNKNOWN\[171' /var/log/audit/audit.log)"
fi
for q in "-m BRUTE_CRASH -x $exe -ui 1000" "-k brute -m BRUTE_CRASH -c brute-crasher-s" \
	"-m BRUTE_CRASH -ue 0 --start today"; do
	if ausearch $q --raw 2>/dev/null | grep -q "^type=BRUTE_CRASH .*exe=\"$exe\""; then
		ok "ausearch $q"
	else
		not_ok "ausearch $q"
	fi
done
out=$(aureport --anomaly -i --start today 2>&1)
if echo "$out" | grep -q "BRUTE_CRASH $exe (none) ? unset " && ! echo "$out" | grep -q '(null)'; then
	ok "aureport --anomaly -i lists the crashes"
else
	not_ok "aureport --anomaly -i lists the crashes" "$(echo "$out" | tail -n 4)"
fi
exit 0
