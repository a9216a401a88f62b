#!/bin/sh
# The audit-tools layer of make check (host side):
#   1. scripts/audit-pkgs.sh: the patched audit packages (built once, cached);
#   2. check-tools.sh with the stock tools (they lack each feature) and the patched ones
#      (they have it), on brute-v2.log and brute-v3.log;
#   3. make -C daemon check-normal built and run against the patched libaudit/libauparse
#      (the daemon layer runs make check, with its ASan+UBSan build, against the stock ones).
# Last line: "audit-tools: N passed, N failed".
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
passed=0 failed=0
add() { # add OUTPUT_FILE: sum its last "N passed, N failed" line
	line=$(grep -E '[0-9]+ passed, [0-9]+ failed' "$1" | tail -n 1)
	if [ -z "$line" ]; then
		failed=$((failed + 1))
		return
	fi
	p=$(echo "$line" | grep -oE '[0-9]+ passed' | cut -d' ' -f1)
	f=$(echo "$line" | grep -oE '[0-9]+ failed' | cut -d' ' -f1)
	passed=$((passed + p))
	failed=$((failed + f))
}
out=$(mktemp)
trap 'rm -f "$out"' EXIT

start=$(date +%s)
if ! pkgs=$("$top/scripts/audit-pkgs.sh" | tail -n 1) || [ ! -d "$pkgs/root" ]; then
	echo "audit-tools: *** scripts/audit-pkgs.sh failed"
	echo "audit-tools: 0 passed, 1 failed"
	exit 1
fi
echo "audit-tools: patched packages in $pkgs ($(($(date +%s) - start)) s)"
root=$pkgs/root

sh "$here/check-tools.sh" stock >"$out" 2>&1
cat "$out"
add "$out"
sh "$here/check-tools.sh" patched "$root" >"$out" 2>&1
cat "$out"
add "$out"

# The daemon, built and tested against the patched libraries (rpath: no install needed).
lib=$(dirname "$(find "$root/lib" -name libauparse.so.0 | head -n 1)")
devlib=$(dirname "$(find "$root/usr/lib" -name libauparse.so | head -n 1)")
sysd_cflags=$(pkg-config --cflags libsystemd gnutls relp)
sysd_libs=$(pkg-config --libs libsystemd gnutls relp)
echo "== make -C daemon check-normal against the patched libauparse ($lib)"
# One build directory per package build (its rpath names that build); older ones go.
bdir=build/audit-$(basename "$pkgs")
for d in "$top"/daemon/build/audit-*; do
	[ -d "$d" ] && [ "$d" != "$top/daemon/$bdir" ] && rm -rf "$d"
done
make -s -C "$top/daemon" B="$bdir" check-normal \
	DEPS_CFLAGS="-I$root/usr/include $sysd_cflags" \
	DEPS_LIBS="-L$devlib -Wl,-rpath,$lib $sysd_libs -lauparse -laudit" >"$out" 2>&1
rc=$?
cat "$out"
add "$out"
if ldd "$top/daemon/$bdir/normal/brute-reportd" | grep -q "libauparse.so.0 => $lib/"; then
	echo "ok - brute-reportd of that build runs with the patched libauparse"
	passed=$((passed + 1))
else
	echo "not ok - brute-reportd of that build runs with the patched libauparse"
	ldd "$top/daemon/$bdir/normal/brute-reportd" | sed 's/^/#   /'
	failed=$((failed + 1))
fi
[ $rc -eq 0 ] || { [ "$failed" -gt 0 ] || failed=1; }

echo "audit-tools: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
