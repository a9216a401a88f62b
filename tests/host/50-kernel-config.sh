#!/bin/bash
# make kernel-deb's configuration, without the build (scripts/kernel-deb.sh --config-only, a
# partial scratch tree in $BRUTE_CACHE/kdeb-config): Debian's own config of linux-image-6.12
# (linux-config-6.12) + kernel/configs/brute.config keeps AppArmor as the major LSM and every
# LSM of Debian's CONFIG_LSM in order, appends brute, enables Brute, leaves the KUnit tests
# out, and changes nothing else of Debian's configuration (beyond what the build machine
# decides: compiler, module signing key, trusted keys).
. "$(dirname "$0")/lib.bash"
set -u
base=${BRUTE_KDEB_BASE_CONFIG:-/usr/src/linux-config-6.12/config.amd64_none_amd64.xz}
start=$(date +%s)
if ! cfg=$("$top/scripts/kernel-deb.sh" --config-only 2>"${TMPDIR:-/tmp}/kdeb.err.$$"); then
	not_ok "scripts/kernel-deb.sh --config-only" "$(cat "${TMPDIR:-/tmp}/kdeb.err.$$")"
	rm -f "${TMPDIR:-/tmp}/kdeb.err.$$"
	exit 0
fi
ok "scripts/kernel-deb.sh --config-only"
diag "$(cat "${TMPDIR:-/tmp}/kdeb.err.$$") (this run: $(($(date +%s) - start)) s)"
rm -f "${TMPDIR:-/tmp}/kdeb.err.$$"
B=$(mktemp)
trap 'rm -f "$B"' EXIT
case $base in *.xz) xzcat "$base" ;; *) cat "$base" ;; esac >"$B"
val() { sed -n "s/^CONFIG_$1=//p" "$2"; }

base_lsm=$(val LSM "$B" | tr -d '"')
same "CONFIG_LSM: Debian's order with brute appended" "\"$base_lsm,brute\"" "$(val LSM "$cfg")"
case ,$base_lsm, in
*,apparmor,*) ok "Debian's CONFIG_LSM has apparmor (so it is kept)" ;;
*) not_ok "Debian's CONFIG_LSM has apparmor" "$base_lsm" ;;
esac
same "AppArmor built in and the default major LSM" "y y" \
	"$(val SECURITY_APPARMOR "$cfg") $(val DEFAULT_SECURITY_APPARMOR "$cfg")"
same "Brute built in (CONFIG_SECURITY_FORK_BRUTE=y)" "y" "$(val SECURITY_FORK_BRUTE "$cfg")"
same "no KUnit test of Brute in a host kernel" "" "$(val SECURITY_FORK_BRUTE_KUNIT_TEST "$cfg")"
same "audit enabled (CONFIG_AUDIT=y, Brute reports through it)" "y" "$(val AUDIT "$cfg")"
# Everything else as Debian has it (scripts/diffconfig of the kernel tree).
other=$("$(dirname "$cfg")/scripts/diffconfig" "$B" "$cfg" | awk '{ n = $1; sub(/^[-+]/, "", n); print n }' |
	grep -vx -e LSM -e SECURITY_FORK_BRUTE -e CC_VERSION_TEXT -e 'RUSTC_.*' -e BUILD_SALT \
		-e MODULE_SIG_ALL -e MODULE_SIG_KEY -e SYSTEM_TRUSTED_KEYS -e SYSTEM_REVOCATION_KEYS | xargs)
same "no other option differs from Debian's configuration" "" "$other"
