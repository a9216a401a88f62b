#!/usr/bin/env bash
# kernel-deb.sh [--config-only]: a Debian kernel package of Linux 6.12 with Brute, for a real
# host (`make kernel-deb`; README "Deploy on a host").
#
#   source  Debian's linux-source-6.12 + kernel/ (overlay and patches), in its own tree
#           $BRUTE_CACHE/kdeb/linux-source-6.12 (never the test kernel's tree)
#   config  Debian's own configuration of its linux-image-6.12-amd64 (package linux-config-6.12:
#           /usr/src/linux-config-6.12/config.amd64_none_amd64.xz; BRUTE_KDEB_BASE_CONFIG=FILE
#           for another one, e.g. /boot/config-$(uname -r) of a Debian 6.12 kernel), merged with
#           kernel/configs/brute.config, except that fragment's CONFIG_LSM (the test kernel's
#           `brute` alone) and its KUnit tests: the distro's CONFIG_LSM order is kept and
#           `brute` appended (AppArmor stays the major LSM), then `make olddefconfig`; every
#           value asked for is checked in the result.
#   build   make bindeb-pkg LOCALVERSION=-brute: linux-image-VERSION-brute_*.deb,
#           linux-headers-*, linux-libc-dev_* (and linux-image-*-dbg, Debian's config having
#           debug info) in $BRUTE_CACHE/kdeb/. Jobs: BRUTE_JOBS (default nproc). Run again
#           after an interruption, it resumes; build-times.log keeps each run's time.
#
# --config-only stops after the configuration (a partial tree: only what Kconfig needs) and
# prints the .config path: what `make check` tests (tests/host/50-kernel-config.sh).
# --dry-run prepares the full tree and its configuration and prints the build command
# instead of running it.
set -euo pipefail
. "$(dirname "$0")/common.sh"

mode=build dry=
[ "${1:-}" = --config-only ] && mode=config
[ "${1:-}" = --dry-run ] && dry=1
tarball=${BRUTE_KERNEL_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
base=${BRUTE_KDEB_BASE_CONFIG:-/usr/src/linux-config-6.12/config.amd64_none_amd64.xz}
jobs=${BRUTE_JOBS:-$(nproc)}
kdeb=$cache/kdeb
[ "$mode" = config ] && kdeb=$cache/kdeb-config
tree=$kdeb/linux-source-6.12

[ -r "$tarball" ] || die "$tarball missing: apt-get install linux-source-6.12 (make deps)"
[ -r "$base" ] || die "no base configuration $base: apt-get install linux-config-6.12 (make deps), or set BRUTE_KDEB_BASE_CONFIG to Debian's config of a 6.12 kernel"
mkdir -p "$kdeb"
exec 9>"$kdeb/.lock"
flock 9

# 1. The source tree: extracted and patched again whenever the tarball or kernel/ changes.
key=$( (stat -c '%s-%Y' "$tarball"; echo "$mode"; cd "$top" && find kernel -type f \
	-not -path '*/configs/*' -print0 | sort -z | xargs -0 sha256sum) | sha256sum | cut -d' ' -f1)
if [ "$(cat "$tree/.brute-src-key" 2>/dev/null)" != "$key" ]; then
	rm -rf "$tree"
	# a new tree is a new build: its time starts from zero
	[ "$mode" = config ] || [ ! -e "$kdeb/build-times.log" ] ||
		mv "$kdeb/build-times.log" "$kdeb/build-times.log.old"
	rm -f "$kdeb/segment.open" "$kdeb/segment.heartbeat"
	start=$(date +%s)
	if [ "$mode" = config ]; then
		# Kconfig needs the Kconfig files, the top Makefile, scripts/, arch/x86 and include/;
		# plus every file the patches touch.
		patched=$(sed -n 's|^+++ b/\([^[:space:]]*\).*|linux-source-6.12/\1|p' "$top"/kernel/patches/*.patch |
			grep -v -e '^linux-source-6.12/\(include\|scripts\|arch/x86\)/' -e 'Kconfig' | sort -u)
		# shellcheck disable=SC2086
		tar -C "$kdeb" -xf "$tarball" --wildcards --no-wildcards-match-slash \
			linux-source-6.12/Makefile 'linux-source-6.12/scripts/*' \
			'linux-source-6.12/arch/x86/*' 'linux-source-6.12/include/*' $patched \
			--wildcards-match-slash '*Kconfig*'
	else
		tar -C "$kdeb" -xf "$tarball"
	fi
	log "extracted $tarball ($mode) in $(($(date +%s) - start)) s"
	(cd "$top/kernel" && find . -type f -not -path './patches/*' -not -path './configs/*' \
		-print0 | cpio -0pdmu --quiet "$tree")
	for p in "$top"/kernel/patches/*.patch; do
		patch -s -p1 -d "$tree" --no-backup-if-mismatch -r - <"$p" ||
			die "patch $(basename "$p") does not apply to $tarball"
	done
	echo "$key" >"$tree/.brute-src-key"
fi

# 2. The configuration.
start=$(date +%s)
case $base in *.xz) xzcat "$base" ;; *) cat "$base" ;; esac >"$tree/.config"
lsm=$(sed -n 's/^CONFIG_LSM="\(.*\)"$/\1/p' "$tree/.config")
[ -n "$lsm" ] || die "$base has no CONFIG_LSM"
case ",$lsm," in *,brute,*) ;; *) lsm=$lsm,brute ;; esac
frag=$kdeb/brute-host.config
{
	echo "# kernel/configs/brute.config for a host kernel (scripts/kernel-deb.sh)"
	grep -v -e '^CONFIG_LSM=' -e '_KUNIT_TEST=' "$top/kernel/configs/brute.config"
	echo "CONFIG_LSM=\"$lsm\""
} >"$frag"
(cd "$tree" && ARCH=x86_64 scripts/kconfig/merge_config.sh -m .config "$frag" >/dev/null)
make -s -C "$tree" ARCH=x86_64 olddefconfig >&2
bad=
while IFS= read -r line; do
	case $line in CONFIG_*=*) grep -qxF -- "$line" "$tree/.config" || bad="$bad $line" ;; esac
done <"$frag"
[ -z "$bad" ] || die "not in the merged .config:$bad"
log "configured in $(($(date +%s) - start)) s: CONFIG_LSM=\"$lsm\""
if [ "$mode" = config ]; then
	echo "$tree/.config"
	exit 0
fi

# 3. The packages.
version=$("$top/scripts/version.sh")
kver=$(make -s -C "$tree" kernelversion)
if [ -n "$dry" ]; then
	echo "make -C $tree ARCH=x86_64 -j$jobs LOCALVERSION=-brute KDEB_PKGVERSION=$kver-1+brute$version bindeb-pkg"
	exit 0
fi
# The build takes hours on a small machine and may be stopped and run again (make resumes
# where it stopped): each run is a segment in $kdeb/build-times.log, and the total of the
# segments is the build's measured time.  A segment cut off without a trace (the machine
# went away) is closed from its last heartbeat, a minute at most behind.
times_log=$kdeb/build-times.log
# a finished build's time is final: a run after it (a re-package) starts its own log
if grep -q 'status=done' "$times_log" 2>/dev/null; then
	mv "$times_log" "$times_log.old"
fi
if [ -s "$kdeb/segment.open" ]; then
	read -r s0 <"$kdeb/segment.open"
	hb=$(cat "$kdeb/segment.heartbeat" 2>/dev/null || echo "$s0")
	echo "segment start=$s0 end=$hb wall=$((hb - s0)) status=lost jobs=?" >>"$times_log"
fi
start=$(date +%s)
echo "$start" >"$kdeb/segment.open"
# (not holding the lock; gone with this script)
(exec 9>&-; while sleep 60 && kill -0 $$ 2>/dev/null; do date +%s >"$kdeb/segment.heartbeat"; done) &
heartbeat=$!
segment_end() { # STATUS
	local end cpu
	end=$(date +%s)
	# user+sys of make and everything it ran: the children's line of bash's times, which
	# must run in this shell (in a pipeline's subshell it counts that subshell's children).
	# Only a make that ended by itself has reaped them all: an interrupted one's is "?".
	cpu='?'
	if [ "$1" != interrupted ]; then
		times >"$kdeb/segment.times"
		cpu=$(tail -n 1 "$kdeb/segment.times" | awk '{ n = 0; for (i = 1; i <= 2; i++) { split($i, t, /[ms]/); n += t[1] * 60 + t[2] } printf "%d", n }')
	fi
	kill "$heartbeat" 2>/dev/null || true
	echo "segment start=$start end=$end wall=$((end - start)) cpu=$cpu status=$1 jobs=$jobs nproc=$(nproc)" >>"$times_log"
	rm -f "$kdeb/segment.open" "$kdeb/segment.heartbeat" "$kdeb/segment.times"
	awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^wall=/) { sub(/wall=/, "", $i); w += $i; n++ } }
		END { printf "kernel-deb.sh: %d segment(s), %d s of build in all (%s)\n", n, w, FILENAME }' "$times_log" >&2
}
trap 'segment_end interrupted; exit 130' INT TERM
log "make -j$jobs bindeb-pkg (Debian's full configuration: hours on 2 cores; segments in $times_log)"
if ! make -C "$tree" ARCH=x86_64 -j"$jobs" LOCALVERSION=-brute \
	KDEB_PKGVERSION="$kver-1+brute$version" bindeb-pkg >>"$kdeb/build.log" 2>&1; then
	segment_end failed
	die "make bindeb-pkg failed, log: $kdeb/build.log"
fi
trap - INT TERM
segment_end "done"
ls "$kdeb"/linux-image-"$kver"-brute_*.deb
