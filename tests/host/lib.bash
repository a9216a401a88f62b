# TAP helpers for the host layer's scripts (tests/host/*.sh, run by tests/rig/check.py from
# the top directory, as root in CI): same protocol as the guests' tap.sh.
top=$(cd "$(dirname "$0")/../.." && pwd)
diag() { printf '# %s\n' "$*"; }
ok() { printf 'ok - %s\n' "$1"; }
skip() { printf 'ok - %s # SKIP %s\n' "$1" "$2"; }
not_ok() {
	printf 'not ok - %s\n' "$1"
	shift
	for line in "$@"; do printf '%s\n' "$line" | sed 's/^/#   /'; done
	return 0
}
# check NAME CMD...: ok if CMD exits 0, else not ok with the end of its output
check() {
	_name=$1
	shift
	if _out=$("$@" 2>&1); then ok "$_name"; else not_ok "$_name" "command: $* (exit $?)" "$(printf '%s\n' "$_out" | tail -n 20)"; fi
}
# same NAME EXPECTED ACTUAL
same() {
	if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1" "expected: $2" "actual:   $3"; fi
}
