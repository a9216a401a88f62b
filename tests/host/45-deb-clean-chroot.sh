#!/bin/bash
# issue 22 #6: the brute-reportd source package builds in a clean chroot, its tests included:
# pbuilder (a debootstrap'd Debian 12 with build-essential, then exactly the Build-Depends of
# debian/control), `dpkg-buildpackage` of the source package made from `make dist`'s tarball,
# with dh_auto_test (the daemon's two test runners, the fuzz corpora replayed by the clang
# libFuzzer targets, brutectl's tests).  Anything the build or the tests use and
# Build-Depends does not name is missing there, and the build fails.
#
# Then, in the same clean chroot (pbuilder execute: no auditd, no systemd running), the
# package's maintainer scripts on the audit rules (issue 22 #10): an upgrade from a package
# of the previous layout, where the rules were the conffile /etc/audit/rules.d/70-brute.rules
# (a stand-in, brute-reportd 0.0.1 made here with dpkg-deb), unmodified and modified: the
# old file goes, or becomes /etc/brute/70-brute.rules with the package's version beside it;
# then remove (the link goes, the conffile stays) and purge (nothing left).
#
# Heavy (a base tarball, ~250 MB of build dependencies downloaded once, the tests): it runs
# only with BRUTE_DEB_CHROOT=1 (needs root, pbuilder and Debian's mirror); the base tarball
# and the downloaded packages are kept in $BRUTE_CACHE/pbuilder.
. "$(dirname "$0")/lib.bash"
set -u
. "$top/scripts/common.sh"   # $cache, $rig
if [ "${BRUTE_DEB_CHROOT:-}" != 1 ]; then
	skip "the package builds in a clean chroot (pbuilder), tests included" "BRUTE_DEB_CHROOT=1 runs it"
	exit 0
fi
if [ "$(id -u)" != 0 ] || ! command -v pbuilder >/dev/null; then
	skip "the package builds in a clean chroot (pbuilder), tests included" "needs root and pbuilder"
	exit 0
fi
P=$cache/pbuilder
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir -p "$P/aptcache" "$T/result"
mirror=$(sed -n 's/^URIs: *\([^ ]*\).*/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null |
	grep -v -e security | head -n1 || true)
mirror=${mirror:-http://deb.debian.org/debian}
start=$(date +%s)
if [ ! -s "$P/base.tgz" ]; then
	if pbuilder create --basetgz "$P/base.tgz" --distribution bookworm --mirror "$mirror" \
		--aptcache "$P/aptcache" >"$P/create.log" 2>&1; then
		diag "pbuilder create (base.tgz): $(($(date +%s) - start)) s"
	else
		not_ok "pbuilder create" "$(tail -n 20 "$P/create.log")"
		exit 0
	fi
fi

# the source package: make dist's tarball, debian/changelog at the tree's version (as pkg.sh)
tgz=$("$top/scripts/dist.sh" "$T")
version=$(tar -xzOf "$tgz" --wildcards '*/VERSION')
tar -C "$T" -xzf "$tgz"
src=$T/brute-$version
if [ "$(dpkg-parsechangelog -l "$src/debian/changelog" -S Version)" != "$version" ]; then
	{
		printf 'brute (%s) unstable; urgency=medium\n\n  * Built from the tree at %s.\n\n' "$version" "$version"
		printf ' -- %s  %s\n\n' "$(dpkg-parsechangelog -l "$src/debian/changelog" -S Maintainer)" \
			"$(LC_ALL=C date -u -R -d "@$(cd "$src" && scripts/version.sh --date)")"
		cat "$src/debian/changelog"
	} >"$src/debian/changelog.new"
	mv "$src/debian/changelog.new" "$src/debian/changelog"
fi
(cd "$T" && dpkg-source -b "brute-$version" >"$T/source.log" 2>&1) ||
	{ not_ok "dpkg-source -b" "$(tail -n 10 "$T/source.log")"; exit 0; }

start=$(date +%s)
log=$P/build.log
if pbuilder build --basetgz "$P/base.tgz" --aptcache "$P/aptcache" --buildresult "$T/result" \
	"$T/brute_$version.dsc" >"$log" 2>&1; then
	ok "pbuilder build: the source package builds with only build-essential and Build-Depends ($(($(date +%s) - start)) s, log $log)"
else
	not_ok "pbuilder build: the source package builds with only build-essential and Build-Depends" \
		"log: $log" "$(grep -E 'error|Error|not found|No such' "$log" | tail -n 15)" "$(tail -n 15 "$log")"
	exit 0
fi
ls "$T/result"/brute-reportd_*.deb >/dev/null 2>&1 && ok "the package was built: $(cd "$T/result" && ls *.deb | xargs)" ||
	not_ok "the package was built" "$(ls "$T/result")"
# dh_auto_test ran, and passed: both runners, every fuzz corpus (clang), brutectl
runs=$(grep -c '^checks: [0-9]* run, 0 failed$' "$log")
fuzz=$(grep -c '^fuzz [a-z]*: ok' "$log")
ctl=$(grep -Ec '^[0-9]+ passed, 0 failed$' "$log")
summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$log")
if [ "$runs" = 2 ] && [ "$fuzz" = 3 ] && [ "$ctl" -ge 1 ] && [ -n "$summary" ]; then
	ok "dh_auto_test in the chroot: the daemon ($summary: both runners, 3 fuzz corpora built with clang), brutectl"
else
	not_ok "dh_auto_test in the chroot: the daemon's runners, the fuzz corpora, brutectl" \
		"runners ok: $runs, fuzz ok: $fuzz, brutectl: $ctl, daemon: $summary"
fi
skipped=$(grep '^SKIPPED: ' "$log" | sort -u | sed 's/^SKIPPED: //')
[ -n "$skipped" ] && diag "skipped in the chroot (no root, no journald, no cgroup v2 there): $(echo "$skipped" | tr '\n' ';')"

# --- the rules' maintainer scripts: upgrade from the previous layout, remove, purge --------
deb=$(ls "$T"/result/brute-reportd_*_*.deb | grep -v dbgsym | head -n 1)
O=$T/old
mkdir -p "$O/root/DEBIAN" "$O/root/etc/audit/rules.d"
cp "$top/rules/70-brute.rules" "$O/root/etc/audit/rules.d/70-brute.rules"
printf 'Package: brute-reportd\nVersion: 0.0.1\nArchitecture: %s\nMaintainer: Brute tests <root@localhost>\nDescription: stand-in for brute-reportd of the previous layout\n its audit rules are the conffile /etc/audit/rules.d/70-brute.rules\n' \
	"$(dpkg --print-architecture)" >"$O/root/DEBIAN/control"
echo /etc/audit/rules.d/70-brute.rules >"$O/root/DEBIAN/conffiles"
dpkg-deb --root-owner-group --build "$O/root" "$T/old.deb" >/dev/null
cp "$deb" "$T/new.deb"
cat >"$T/rules-scripts.sh" <<'SCRIPT'
#!/bin/sh
# in the chroot: $1 holds old.deb and new.deb; prints TAP lines
set -u
cd "$1"
L=/etc/audit/rules.d/70-brute.rules R=/etc/brute/70-brute.rules
export DEBIAN_FRONTEND=noninteractive
res() { if [ "$1" = 0 ]; then echo "ok - $2"; else echo "not ok - $2"; shift 2; for d in "$@"; do echo "#   $d"; done; fi; }
apt-get -q update >/dev/null 2>&1
for modified in no yes; do
	dpkg --purge brute-reportd >/dev/null 2>&1
	dpkg -i old.deb >/dev/null 2>&1 && [ -f $L ] && [ ! -L $L ] || { res 1 "the previous layout installed"; continue; }
	[ $modified = yes ] && echo '-w /etc/shadow -p wa -k brute-admin' >>$L
	want=$(cat $L)
	out=$(apt-get install -y -q ./new.deb </dev/null 2>&1)
	rc=$?
	conffiles=$(dpkg-query -W -f '${Conffiles}\n' brute-reportd | awk 'NF { print $1 }' | sort | tr '\n' ' ')
	[ $rc = 0 ] && [ "$(readlink $L)" = ../../brute/70-brute.rules ] && [ "$(cat $R)" = "$want" ] &&
		[ ! -e $L.dpkg-remove ] && [ ! -e $L.dpkg-backup ] &&
		[ "$conffiles" = "/etc/audit/plugins.d/brute-reportd.conf /etc/brute/70-brute.rules /etc/brute/reportd.conf " ]
	res $? "upgrade from the previous layout, the old rules $([ $modified = yes ] && echo modified: kept in $R || echo unmodified: $R the package\'s), $L a link" \
		"exit $rc" "conffiles: $conffiles" "$(ls -l /etc/audit/rules.d /etc/brute 2>&1)" "$(echo "$out" | tail -n 5)"
	if [ $modified = yes ]; then
		[ -f $R.dpkg-dist ] && echo "$out" | grep -q 'keeping your changes' &&
			[ "$(grep -v brute-admin $R)" = "$(cat $R.dpkg-dist)" ]
		res $? "modified: the package's version beside it as $R.dpkg-dist, and the upgrade said so" "$(ls -l /etc/brute)"
	else
		[ ! -e $R.dpkg-dist ]
		res $? "unmodified: nothing beside it" "$(ls -l /etc/brute)"
	fi
done
dpkg --remove brute-reportd >/dev/null 2>&1
[ ! -e $L ] && [ ! -L $L ] && [ -f $R ] && grep -q brute-admin $R
res $? "remove: the link goes, $R (the administrator's) stays" "$(ls -l /etc/audit/rules.d /etc/brute 2>&1)"
apt-get install -y -q ./new.deb >/dev/null 2>&1
[ "$(readlink $L)" = ../../brute/70-brute.rules ] && grep -q brute-admin $R
res $? "installed again: the link is back, $R as the administrator left it" "$(ls -l /etc/audit/rules.d /etc/brute 2>&1)"
dpkg --purge brute-reportd >/dev/null 2>&1
left=$(ls -d $L* /etc/brute /var/lib/brute-reportd 2>/dev/null)
[ -z "$left" ]
res $? "purge: nothing of either layout left" "left: $left"
SCRIPT
chmod +x "$T/rules-scripts.sh"
out=$(pbuilder execute --basetgz "$P/base.tgz" --aptcache "$P/aptcache" --bindmounts "$T" -- \
	"$T/rules-scripts.sh" "$T" 2>&1)
n=$(printf '%s\n' "$out" | grep -c '^ok - \|^not ok - ')
if [ "$n" -ge 6 ]; then
	printf '%s\n' "$out" | grep '^ok - \|^not ok - \|^#   '
else
	not_ok "the rules' maintainer scripts in the chroot (pbuilder execute)" "$(printf '%s\n' "$out" | tail -n 20)"
fi
exit 0
