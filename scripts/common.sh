# Sourced by the rig scripts: the cache location and small helpers.
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cache=${BRUTE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/brute}
rig=$cache/rig
mkdir -p "$rig"

log() { printf '%s: %s\n' "${0##*/}" "$*" >&2; }
die() { printf '%s: error: %s\n' "${0##*/}" "$*" >&2; exit 1; }

# hash_inputs PATH...: one sha256 over the names, modes and contents of the files under PATHs.
hash_inputs() {
	(cd "$top" && find "$@" -type f -print0 2>/dev/null | sort -z |
		xargs -0 -r stat -c '%n %a' && find "$@" -type f -print0 2>/dev/null | sort -z |
		xargs -0 -r sha256sum) | sha256sum | cut -d' ' -f1
}

# console_lsms CONSOLE: the LSMs the kernel of a guest's console initialized, in order,
# comma-separated ("LSM: initializing lsm=..."); empty when the console has no such line.
console_lsms() {
	grep -o 'LSM: initializing lsm=[^ ]*' "$1" 2>/dev/null | head -n 1 | sed 's/.*lsm=//' || true
}
