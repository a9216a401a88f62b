#!/bin/sh
# conffile.sh install SRC DEST MODE | conffile.sh remove SRC DEST [purge]
#
# `make install`/`make uninstall` for an operator's configuration file (the files under /etc),
# never overwriting or deleting an edited one:
#   install: DEST absent -> SRC installed as DEST. DEST identical to SRC -> nothing to do.
#            DEST edited -> DEST kept; SRC installed beside it as DEST.default (a name that
#            neither augenrules (*.rules) nor auditd's plugin loader (one '.' at most) reads),
#            and a note says so.
#   remove:  DEST.default removed; DEST removed when identical to SRC or with "purge", else
#            kept with a note.
set -eu
op=$1 src=$2 dest=$3
case $op in
install)
	mode=$4
	if [ ! -e "$dest" ] && [ ! -L "$dest" ]; then
		install -D -m "$mode" "$src" "$dest"
		rm -f "$dest.default"
	elif cmp -s "$src" "$dest"; then
		rm -f "$dest.default"
	else
		install -m "$mode" "$src" "$dest.default"
		echo "note: kept your $dest; the new default is $dest.default" >&2
	fi
	;;
remove)
	rm -f "$dest.default"
	if [ -e "$dest" ] || [ -L "$dest" ]; then
		if [ "${4:-}" = purge ] || cmp -s "$src" "$dest"; then
			rm -f "$dest"
		else
			echo "note: kept your edited $dest (make uninstall PURGE=yes removes it)" >&2
		fi
	fi
	;;
*)
	echo "usage: $0 install SRC DEST MODE | $0 remove SRC DEST [purge]" >&2
	exit 2
	;;
esac
