#!/usr/bin/env bash
# Build the fast guest: a busybox initramfs with the real audit tools and iproute2, the rig
# helpers, the selftests and tests/fast/*.sh. Cached in $cache/rig, rebuilt only when an input
# changes. Prints the path of the cpio.gz. Needs root (device nodes, ownership, setuid bits).
set -euo pipefail
. "$(dirname "$0")/common.sh"

# One build at a time per cache: two runs side by side (make check-debug next to make
# check) raced in the same initramfs.d.
mkdir -p "$rig"
exec 8>"$rig/.initramfs.lock"
flock 8

"$top/scripts/selftests.sh"
# The audit tools and libraries with userspace/audit/ applied (built once, cached).
audit=$("$top/scripts/audit-pkgs.sh" | tail -n 1)

out=$rig/initramfs.cpio.gz
key=$( {
	hash_inputs scripts/initramfs.sh scripts/common.sh tests/rig tests/fast rules
	find "$rig/bin" "$rig/selftests" -type f -exec sha256sum {} + 2>/dev/null | sort
	find "$rig/selftests" -printf "%P %m\n" 2>/dev/null | sort
	dpkg-query -W busybox-static auditd iproute2 libc6
	echo "$audit"
} | sha256sum | cut -d' ' -f1)
if [ -f "$out" ] && [ "$(cat "$out.key" 2>/dev/null)" = "$key" ]; then
	echo "$out"
	exit 0
fi
[ "$(id -u)" -eq 0 ] || die "must run as root (device nodes, file owners, setuid bits)"

log "building $out"
root=$rig/initramfs.d
rm -rf "$root"
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,usr/local/bin,etc/audit/rules.d,etc/audit/plugins.d} \
	"$root"/{proc,sys,dev,run,tmp,root,home/brute,var/log/audit,tests,rig,selftests}
chmod 700 "$root/root"
chown 1000:1000 "$root/home/brute"
mknod -m 600 "$root/dev/console" c 5 1
mknod -m 666 "$root/dev/null" c 1 3

# busybox and its applets (real binaries below win over applets of the same name)
cp /bin/busybox "$root/bin/busybox"
for applet in $(busybox --list-full); do
	[ -e "$root/$applet" ] || ln -s /bin/busybox "$root/$applet"
done

# Dynamic binaries with every library ldd lists, the loader included.
add_dynamic() { # add_dynamic HOST_PATH GUEST_PATH
	rm -f "$root/$2"
	cp -L "$1" "$root/$2"
	for lib in $(ldd "$1" | grep -o '/[^ ]*'); do
		[ -e "$root/$lib" ] && continue
		mkdir -p "$root/$(dirname "$lib")"
		cp -L "$lib" "$root/$lib"
	done
}
# The patched libaudit and libauparse go first, so add_dynamic keeps them; the patched tools
# link them. The host's (stock) ausearch and aureport, with the stock libraries, are kept in
# /opt/audit-stock for the tests that document what works without the patches:
# LD_LIBRARY_PATH=/opt/audit-stock/lib /opt/audit-stock/bin/ausearch ...
for lib in libaudit.so.1 libauparse.so.0; do
	host=$(ldd /sbin/ausearch | sed -n "s|^[[:space:]]*$lib => \(/[^ ]*\).*|\1|p")
	[ -n "$host" ] || die "ldd /sbin/ausearch names no $lib"
	mkdir -p "$root/$(dirname "$host")" "$root/opt/audit-stock/lib"
	cp -L "$(find "$audit/root/" -name "$lib" | head -n 1)" "$root/$host"
	cp -L "$host" "$root/opt/audit-stock/lib/$lib"
done
for tool in auditd auditctl ausearch aureport; do
	add_dynamic "$audit/root/sbin/$tool" "sbin/$tool"
done
mkdir -p "$root/opt/audit-stock/bin"
for tool in ausearch aureport; do
	cp /sbin/$tool "$root/opt/audit-stock/bin/$tool"
done
add_dynamic /sbin/ip sbin/ip
rm -f "$root/bin/ip" "$root/usr/bin/ip" "$root/usr/sbin/ip"

# Configuration
cat >"$root/etc/audit/auditd.conf" <<'CONF'
local_events = yes
write_logs = yes
log_file = /var/log/audit/audit.log
log_group = root
log_format = ENRICHED
flush = DATA
freq = 0
max_log_file = 64
num_logs = 2
priority_boost = 4
name_format = NONE
max_log_file_action = IGNORE
space_left = 75
space_left_action = IGNORE
admin_space_left = 50
admin_space_left_action = IGNORE
disk_full_action = IGNORE
disk_error_action = IGNORE
verify_email = no
action_mail_acct = root
use_libwrap = no
tcp_listen_queue = 5
tcp_max_per_addr = 1
tcp_client_max_idle = 0
transport = TCP
distribute_network = no
q_depth = 2000
overflow_action = IGNORE
max_restarts = 10
plugin_dir = /etc/audit/plugins.d
end_of_event_timeout = 2
CONF
chmod 640 "$root/etc/audit/auditd.conf"
for rules in "$top"/rules/*.rules; do
	[ -e "$rules" ] && install -m 640 "$rules" "$root/etc/audit/rules.d/"
done
cat >"$root/etc/passwd" <<'CONF'
root:x:0:0:root:/root:/bin/sh
brute:x:1000:1000:brute:/home/brute:/bin/sh
nobody:x:65534:65534:nobody:/nonexistent:/bin/false
CONF
cat >"$root/etc/group" <<'CONF'
root:x:0:
brute:x:1000:
nogroup:x:65534:
CONF
cat >"$root/etc/shadow" <<'CONF'
root::19000:0:99999:7:::
brute:!:19000:0:99999:7:::
nobody:!:19000:0:99999:7:::
CONF
chmod 640 "$root/etc/shadow"
echo 'hosts: files' >"$root/etc/nsswitch.conf"
printf '127.0.0.1 localhost fast\n::1 localhost\n' >"$root/etc/hosts"

# Rig: init, TAP helpers, injections, helper programs; tests; selftests.
install -m 755 "$top/tests/rig/fast-init" "$root/init"
install -m 644 "$top/tests/rig/tap.sh" "$top/tests/rig/run-tests.sh" "$root/rig/"
cp -r "$top/tests/rig/inject" "$root/rig/inject"
install -m 755 "$rig"/bin/* "$root/usr/local/bin/"
for t in "$top"/tests/fast/*.sh; do
	[ -e "$t" ] && install -m 755 "$t" "$root/tests/"
done
[ -d "$rig/selftests" ] && cp -a "$rig/selftests/." "$root/selftests/"

(cd "$root" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc --quiet) | gzip -1 >"$out.tmp"
mv "$out.tmp" "$out"
echo "$key" >"$out.key"
log "$(du -h "$out" | cut -f1) initramfs"
echo "$out"
