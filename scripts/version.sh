#!/bin/sh
# version.sh [--date]: the version of this tree, or (--date) its SOURCE_DATE_EPOCH.
#
# Version: in a git checkout `git describe --tags --always --dirty --match 'v[0-9]*'`
# (a tag v0.2 gives "0.2", 3 commits later "0.2+3+gHASH"; with no tag, VERSION's content
# plus "+gHASH"; "+dirty" for uncommitted changes): '-' becomes '+' so that the string is
# also a valid Debian native version. Outside git (a `make dist` tarball): the VERSION file,
# which `make dist` writes with the full version.
# Date: $SOURCE_DATE_EPOCH if set, else the last commit's date, else VERSION's mtime (make
# dist stamps every file of the tarball with the commit date).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
ingit() { [ -e "$top/.git" ] && command -v git >/dev/null 2>&1 && git -C "$top" rev-parse --git-dir >/dev/null 2>&1; }

if [ "${1:-}" = --date ]; then
	if [ -n "${SOURCE_DATE_EPOCH:-}" ]; then
		echo "$SOURCE_DATE_EPOCH"
	elif ingit; then
		git -C "$top" log -1 --format=%ct
	else
		stat -c %Y "$top/VERSION"
	fi
	exit 0
fi

if ingit; then
	d=$(git -C "$top" describe --tags --always --dirty --match 'v[0-9]*')
	case $d in
	v[0-9]*) v=${d#v} ;;
	*) v=$(head -n 1 "$top/VERSION")+g$d ;;
	esac
	echo "$v" | tr -- - +
else
	head -n 1 "$top/VERSION"
fi
