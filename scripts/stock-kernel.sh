#!/usr/bin/env bash
# stock-kernel.sh: Debian's unmodified linux-image-6.12 for the fast guest (make check-bpf).
#
# Downloads the newest 6.12 image apt offers (the package linux-image-6.12-amd64 depends on,
# or $BRUTE_STOCK_IMAGE, e.g. linux-image-6.12.118+deb12-amd64) with `apt-get download` into
# $BRUTE_CACHE/stock (kept: an apt that no longer offers it still finds it there) and prepares,
# once per package, $BRUTE_CACHE/stock/KVER/:
#   vmlinuz              the kernel, as the package ships it (bzImage, zstd inside)
#   config               its /boot/config-*
#   vmlinux              the ELF taken out of vmlinuz (its .BTF section: bpf/'s vmlinux.h)
#   modules.cpio.gz      /lib/modules/KVER/ with the modules the fast guest needs and their
#                        dependencies, decompressed (busybox insmod reads no .ko.xz), and
#                        modules.load: their insmod order; appended to the fast guest's
#                        initramfs (BRUTE_INITRD_EXTRA), loaded by tests/bpf/01-stock-kernel.sh
# Prints that directory. $BRUTE_STOCK_MODULES (space-separated) replaces the default list:
# veth (tests/fast's network namespaces; virtio, NVMe and the 8250 serial port are not needed
# by the fast guest: no disks, and the serial driver and virtio-pci are built in).
set -euo pipefail
. "$(dirname "$0")/common.sh"

stock=$cache/stock
mkdir -p "$stock"
exec 7>"$stock/.lock"
flock 7

modules=${BRUTE_STOCK_MODULES:-veth}
image=${BRUTE_STOCK_IMAGE:-}
if [ -z "$image" ]; then
	# The meta package names the newest image it offers: linux-image-6.12.N+debX-amd64.
	image=$(apt-cache show linux-image-6.12-amd64 2>/dev/null |
		sed -n 's/^Depends:.*\(linux-image-6\.12\.[0-9]*+[^ ,]*-amd64\) .*/\1/p' |
		sort -V | tail -n 1) || true
fi
if [ -z "$image" ]; then
	# No apt metadata for it (offline): the newest package already downloaded.
	deb=$(ls "$stock"/linux-image-6.12.*-amd64_*.deb 2>/dev/null | sort -V | tail -n 1) ||
		true
	[ -n "$deb" ] || die "apt offers no linux-image-6.12-amd64 (apt-get update?) and" \
		"$stock has no linux-image-6.12.*-amd64_*.deb"
else
	deb=$(ls "$stock/${image}_"*.deb 2>/dev/null | sort -V | tail -n 1) || true
	if [ -z "$deb" ]; then
		log "downloading $image"
		# apt's sandbox user cannot write into a root-owned cache: download as root.
		(cd "$stock" && apt-get download -q -o APT::Sandbox::User=root "$image" >&2) ||
			die "apt-get download $image failed"
		deb=$(ls "$stock/${image}_"*.deb | sort -V | tail -n 1)
	fi
fi

kver=$(dpkg-deb -f "$deb" Package | sed 's/^linux-image-//')
out=$stock/$kver
key=$( (sha256sum "$deb" | cut -d' ' -f1; echo "$modules"; hash_inputs scripts/stock-kernel.sh) |
	sha256sum | cut -d' ' -f1)
if [ "$(cat "$out/.key" 2>/dev/null)" = "$key" ] && [ -f "$out/modules.cpio.gz" ]; then
	echo "$out"
	exit 0
fi
log "preparing $out from $(basename "$deb")"
rm -rf "$out"
mkdir -p "$out/pkg"
dpkg-deb -x "$deb" "$out/pkg"
cp "$out/pkg/boot/vmlinuz-$kver" "$out/vmlinuz"
cp "$out/pkg/boot/config-$kver" "$out/config"

# vmlinux: the payload of the bzImage, at its compressor's magic (Debian: zstd); the first
# offset that decompresses to an ELF file is the one.
for off in $(LC_ALL=C grep -aboP '\x28\xb5\x2f\xfd' "$out/vmlinuz" | cut -d: -f1); do
	tail -c +"$((off + 1))" "$out/vmlinuz" | zstd -dcq 2>/dev/null >"$out/vmlinux" || true
	[ "$(head -c 4 "$out/vmlinux" | od -An -tx1 | tr -d ' ')" = 7f454c46 ] && break
	rm -f "$out/vmlinux"
done
[ -s "$out/vmlinux" ] || die "no zstd-compressed ELF in $out/vmlinuz"
readelf -S "$out/vmlinux" | grep -q ' \.BTF ' || die "$out/vmlinux has no .BTF section"

# The modules, their dependencies first (depmod on the package's tree: it ships no
# modules.dep), decompressed under root/lib/modules/KVER/.
mods=$out/pkg/lib/modules/$kver
depmod -b "$out/pkg" "$kver"
root=$out/root
mkdir -p "$root/lib/modules/$kver"
: >"$root/lib/modules/$kver/modules.load"
for m in $modules; do
	modprobe -d "$out/pkg" -S "$kver" --show-depends "$m" ||
		die "$m: no such module in $(basename "$deb")"
done | awk '$1 == "insmod" && !seen[$2]++ { print $2 }' | while read -r ko; do
	rel=${ko#"$mods"/}
	rel=${rel%.xz}
	mkdir -p "$root/lib/modules/$kver/$(dirname "$rel")"
	xz -dc "$ko" >"$root/lib/modules/$kver/$rel"
	echo "$rel" >>"$root/lib/modules/$kver/modules.load"
done
(cd "$root" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) |
	gzip -1 >"$out/modules.cpio.gz"
rm -rf "$out/pkg"
echo "$key" >"$out/.key"
log "$kver: $(wc -l <"$root/lib/modules/$kver/modules.load") modules ($modules and dependencies)"
echo "$out"
