# TAP helpers for guest test scripts (fast and system guests), POSIX sh / busybox ash.
#   . "$RIG/tap.sh"
#   ok NAME | not_ok NAME [DIAG...] | skip NAME REASON | diag TEXT...
#   check NAME CMD [ARGS...]        ok if CMD exits 0, else not ok with its output as diagnostics
#   wait_for SECS CMD [ARGS...]     retry CMD every 0.2 s until it succeeds or SECS pass
# A script prints one TAP line per assertion on stdout; the guest's runner numbers them, sends
# them to the result port, and counts a script that exits non-zero or asserts nothing as failed.

diag() { printf '# %s\n' "$*"; }
ok() { printf 'ok - %s\n' "$1"; }
skip() { printf 'ok - %s # SKIP %s\n' "$1" "$2"; }
not_ok() {
	printf 'not ok - %s\n' "$1"
	shift
	for line in "$@"; do diag "$line"; done
	return 0
}

check() {
	_name=$1
	shift
	if _out=$("$@" 2>&1); then
		ok "$_name"
	else
		_rc=$?
		not_ok "$_name" "command: $* (exit $_rc)"
		printf '%s\n' "$_out" | tail -n 20 | sed 's/^/#   /'
	fi
}

wait_for() {
	_deadline=$(($(date +%s) + $1))
	shift
	while ! "$@" >/dev/null 2>&1; do
		[ "$(date +%s)" -lt "$_deadline" ] || return 1
		sleep 0.2
	done
}
