#!/usr/bin/env bash
# Install the Debian packages the project needs to build and test.
# Idempotent: on a machine that has them all it runs one dpkg-query and exits.
set -euo pipefail

packages=(
	build-essential flex bison bc libelf-dev libssl-dev dwarves linux-source-6.12
	qemu-system-x86 busybox-static cpio debootstrap auditd audispd-plugins
	libaudit-dev libauparse-dev libsystemd-dev check pkg-config e2fsprogs
	iproute2 rsyslog kmod python3 rsync xz-utils procps
	debhelper lintian linux-config-6.12 rsyslog-gnutls rsyslog-relp openssl python3-yaml
	# scripts/audit-pkgs.sh: the build dependencies of Debian's audit source package
	debhelper libkrb5-dev libwrap0-dev swig libcap-ng-dev libldap2-dev
	clang libclang-rt-14-dev
	# brute-reportd: syslog over TLS (GnuTLS) and RELP (librelp); certtool for the TLS tests
	libgnutls28-dev librelp-dev gnutls-bin
	# brute-reportd's delivery tests: a TCP proxy that keeps the half-close from the receiver
	socat
	# brute-peer-nft (the peer ban action): its test runs the real nft in a network namespace
	nftables
	# make check-kselftest: the kernel's selftests link libcap statically (clone3, seccomp);
	# bash for the upstream scripts that need it in the busybox guest
	libcap-dev bash-static
	# make check-bpf: the BPF flavour (bpf/: clang -target bpf, libbpf, bpftool's vmlinux.h and
	# skeleton); zstd takes the stock kernel's vmlinux out of its vmlinuz
	llvm libbpf-dev bpftool zstd
	# make bench's and make demo's plots (tests/bench/plot.py)
	python3-matplotlib
)

missing=()
for p in "${packages[@]}"; do
	status=$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null || true)
	[ "${status:0:2}" = "ii" ] || missing+=("$p")
done
[ "${#missing[@]}" -eq 0 ] && exit 0

echo "deps: installing ${missing[*]}" >&2
[ "$(id -u)" -eq 0 ] || { echo "deps: need root to install packages" >&2; exit 1; }
# Third-party apt sources may be unreachable; what matters is the install below.
apt-get update -q || echo "deps: warning: apt-get update reported errors" >&2
DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
