#!/usr/bin/env bash
# Build the system guest: a Debian bookworm (minbase + systemd, auditd, rsyslog with its TLS
# and RELP inputs, certtool) ext4 image.
# Cached in $cache/rig, keyed on this script's content: edit the recipe below and the next run
# rebuilds it (~1 min). Prints the image path. Needs root (debootstrap, chroot).
#
# The image carries brute-tests.service, which only starts when the kernel command line says
# systemd.wants=brute-tests.service (the host runner does, `make shell-system` doesn't): it
# mounts the per-run data disk (label "data") on /data and runs /data/rig/system-run.
set -euo pipefail
. "$(dirname "$0")/common.sh"

img=$rig/rootfs.ext4
# One build at a time (make check builds it beside the host layers, the guest asks again).
mkdir -p "$rig"
exec 6>"$rig/.rootfs.lock"
flock 6
# The audit packages with userspace/audit/ applied (built once, cached), installed over
# Debian's: the image's key covers them.
audit=$("$top/scripts/audit-pkgs.sh" | tail -n 1)
# (The script's content, not its path: the key is the same however the script is called.)
svcetc=$top/tests/services/etc
key=$( (sha256sum <"$0"; cat "$svcetc/brute-fault.conf" "$svcetc/brute-svc-lb.service" "$svcetc/brute-svc-lbha.service"
	echo "$audit") | sha256sum | cut -d' ' -f1)
if [ -f "$img" ] && [ "$(cat "$img.key" 2>/dev/null)" = "$key" ]; then
	echo "$img"
	exit 0
fi
[ "$(id -u)" -eq 0 ] || die "must run as root (debootstrap)"

# The Debian mirror apt uses here (deb822 or one-line sources), else the default one.
mirror=$(sed -n 's/^URIs: *\([^ ]*\).*/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null |
	grep -v -e security -e nodesource -e google | head -n1 || true)
[ -n "$mirror" ] || mirror=$(grep -hs '^deb .*debian.* bookworm ' /etc/apt/sources.list \
	/etc/apt/sources.list.d/*.list | awk '{print $2}' | head -n1 || true)
mirror=${mirror:-http://deb.debian.org/debian}

dir=$rig/rootfs.d
rm -rf "$dir" "$img" "$img.key"
log "debootstrap bookworm from $mirror"
start=$(date +%s)
debootstrap --variant=minbase \
	--include=systemd,systemd-sysv,auditd,rsyslog,iproute2,procps,udev,kmod,rsyslog-gnutls,rsyslog-relp,gnutls-bin,nftables \
	bookworm "$dir" "$mirror" >"$rig/debootstrap.log" 2>&1 ||
	die "debootstrap failed, log: $rig/debootstrap.log"
log "debootstrap took $(($(date +%s) - start)) s"

# auditd, libaudit1, libauparse0 and libaudit-common 1:3.0.9-1+brute1 replace Debian's
# (same ABI).
mkdir -p "$dir/tmp/audit-debs"
for p in auditd libaudit1 libauparse0 libaudit-common; do
	cp "$audit"/debs/${p}_*.deb "$dir/tmp/audit-debs/"
done
chroot "$dir" sh -c 'dpkg -i /tmp/audit-debs/*.deb' >>"$rig/debootstrap.log" 2>&1 ||
	die "installing the patched audit packages failed, log: $rig/debootstrap.log"
rm -rf "$dir/tmp/audit-debs"
[ "$(chroot "$dir" dpkg-query -W auditd libaudit1 libauparse0 | grep -c '+brute1$')" = 3 ] ||
	die "the image does not have the patched audit packages"

# The real services of tests/services/ (issue 30), from Debian's own packages: installed here,
# configured and started only by the scripts that use them (tests/services/services.sh). Every
# unit the packages enable is disabled below, so that the other system tests boot and run as
# before: nothing of these listens or runs unless a test starts it. No policy-rc.d is needed:
# with no systemd running in the chroot, the maintainer scripts enable units but start none.
services="nginx php8.2-fpm apache2 openssh-server postfix dovecot-core dovecot-imapd dovecot-lmtpd haproxy"
log "installing the services: $services"
start=$(date +%s)
wants_before=$(cd "$dir/etc/systemd/system" && find . -type l | sort)
cp /etc/resolv.conf "$dir/etc/resolv.conf"
cat >"$dir/tmp/debconf" <<'CONF'
postfix postfix/main_mailer_type select Local only
postfix postfix/mailname string system
CONF
chroot "$dir" sh -c 'debconf-set-selections /tmp/debconf && apt-get update &&
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends '"$services" \
	>>"$rig/debootstrap.log" 2>&1 ||
	die "installing $services failed, log: $rig/debootstrap.log"
rm -f "$dir/tmp/debconf" "$dir/etc/resolv.conf"
# What the packages enabled (multi-user.target.wants/nginx.service, timers, sockets, ...):
# disabled, by removing the links they made; the scripts start what they use.
for link in $(cd "$dir/etc/systemd/system" && find . -type l | sort |
	comm -13 <(echo "$wants_before") -); do
	rm -f "$dir/etc/systemd/system/$link"
	echo "disabled: $link" >>"$rig/debootstrap.log"
done
# What tests/services/services.sh expects of the image (the rest of its configuration it copies
# at test time, without a daemon-reload, which takes 10-40 s under TCG): the units' drop-ins
# that load the preload library once a test writes the unit's environment file (inert until
# then), the load balancers' units (nginx, HAProxy), the site's and the mail's users, Apache's prefork MPM.
for u in nginx php8.2-fpm apache2 ssh postfix@ dovecot; do
	mkdir -p "$dir/etc/systemd/system/$u.service.d"
	install -m 644 "$svcetc/brute-fault.conf" "$dir/etc/systemd/system/$u.service.d/"
done
install -m 644 "$svcetc/brute-svc-lb.service" "$svcetc/brute-svc-lbha.service" "$dir/etc/systemd/system/"
chroot "$dir" sh -c 'useradd -r -U -d /var/www/app -s /usr/sbin/nologin webapp &&
	useradd -m -u 2001 -U alice && useradd -m -u 2002 -U bob &&
	a2dismod -q mpm_event && a2enmod -q mpm_prefork' >>"$rig/debootstrap.log" 2>&1 ||
	die "configuring the services failed, log: $rig/debootstrap.log"
log "services installed in $(($(date +%s) - start)) s"

echo system >"$dir/etc/hostname"
printf '127.0.0.1 localhost system\n::1 localhost\n' >"$dir/etc/hosts"
# The data disk's label appears once udevd runs, which on a loaded 2-core host under TCG
# can be ~40 s after systemd's device job starts: 30 s timed the disk out (no test ran).
cat >"$dir/etc/fstab" <<'CONF'
/dev/nvme0n1 / ext4 rw,errors=remount-ro 0 1
LABEL=data /data ext4 rw,nofail,x-systemd.device-timeout=180s 0 0
CONF
mkdir -p "$dir/data"
chroot "$dir" passwd -dq root
chroot "$dir" useradd -m -u 1000 -U -s /bin/bash brute

# journald must not switch kernel auditing off when it starts after auditd.
mkdir -p "$dir/etc/systemd/journald.conf.d"
cat >"$dir/etc/systemd/journald.conf.d/50-brute-rig.conf" <<'CONF'
[Journal]
Audit=yes
ForwardToSyslog=yes
CONF

# Interactive debugging (make shell-system): root shell on the serial console.
mkdir -p "$dir/etc/systemd/system/serial-getty@ttyS0.service.d"
cat >"$dir/etc/systemd/system/serial-getty@ttyS0.service.d/autologin.conf" <<'CONF'
[Service]
ExecStart=
ExecStart=-/sbin/agetty --autologin root --keep-baud 115200,57600,38400,9600 %I $TERM
CONF

cat >"$dir/etc/systemd/system/brute-tests.service" <<'CONF'
[Unit]
Description=Brute rig: run the system-guest tests from the data disk
RequiresMountsFor=/data
After=multi-user.target auditd.service rsyslog.service systemd-journald.service
SuccessAction=poweroff-force
FailureAction=poweroff-force

[Service]
Type=oneshot
ExecStart=/bin/sh /data/rig/system-run
StandardOutput=journal+console
StandardError=journal+console
TimeoutStartSec=infinity
CONF

# Nothing the tests need that slows the boot down (TCG + lockdep make every unit count).
for unit in getty-static.service getty@tty1.service e2scrub_reap.service apt-daily.timer \
	apt-daily-upgrade.timer dpkg-db-backup.timer e2scrub_all.timer fstrim.timer; do
	ln -sf /dev/null "$dir/etc/systemd/system/$unit"
done
rm -f "$dir"/var/cache/apt/archives/*.deb "$dir"/var/lib/apt/lists/*_Packages
size=$(($(du -sm "$dir" | cut -f1) + 512))
mkfs.ext4 -q -F -L root -d "$dir" "$img" "${size}M" >&2
echo "$key" >"$img.key"
log "$img: ${size} MiB"
echo "$img"
