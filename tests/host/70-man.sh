#!/bin/bash
# The man pages are true to the code (issue 12): every key of the daemon's keyword table
# (daemon/config.c) is documented in brute-reportd.conf(5) with its default and its range or
# values, and the page documents no key the table lacks; every option of --help is in
# brute-reportd(8); each page has EXAMPLES and the SEE ALSO the operators need; every
# absolute path the pages name exists in a `make install` tree, or is documented in FILES as
# created at runtime, or belongs to the kernel (/proc, /sys) or to audit and systemd; man
# renders each page without a warning.
. "$(dirname "$0")/lib.bash"
set -u
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
conf5=$top/daemon/man/brute-reportd.conf.5
man8=$top/daemon/man/brute-reportd.8
ctl8=$top/tools/brutectl/brutectl.8

# --- keys: the table against the page -------------------------------------------------------
table=$(sed -n '/^} keywords\[\] = {/,/^};/s/^[[:space:]]*{ "\([a-z_]*\)",.*/\1/p' "$top/daemon/config.c" | sort)
documented=$(sed -n 's/^\.BR \([a-z_]*\) " (.*)"$/\1/p' "$conf5" | sort)
[ "$(echo "$table" | wc -l)" -gt 20 ] || not_ok "keyword table read from daemon/config.c" "$table"
same "brute-reportd.conf(5) documents exactly the keys of daemon/config.c's table" \
	"$table" "$documented"
# the shipped /etc/brute/reportd.conf names every key too (commented out, with its default)
shipped=$(sed -n 's/^#\([a-z_]*\) =.*/\1/p' "$top/etc/brute/reportd.conf" | sort)
same "etc/brute/reportd.conf lists exactly the keys of daemon/config.c's table" "$table" "$shipped"
# "(DEFAULT, RANGE)" or "(DEFAULT; VALUES)": both parts there for every key
bad=$(sed -n 's/^\.BR \([a-z_]*\) " (\(.*\))"$/\1 \2/p' "$conf5" |
	awk '{ k = $1; $1 = ""; if ($0 !~ /^ [^ ].*[,;] ./) print k }')
same "every key with its default and its range or values" "" "$bad"
# numbers and sizes: a range MIN..MAX as the parser enforces it
bad=
for k in $table; do
	parser=$(sed -n "s/^[[:space:]]*{ \"$k\",[[:space:]]*\([a-z_]*\) },/\1/p" "$top/daemon/config.c")
	body=$(sed -n "/^static const char \*$parser(/,/^}/p" "$top/daemon/config.c")
	if echo "$body" | grep -q 'parse_num\|parse_size'; then
		echo "$(grep "^\.BR $k \" (" "$conf5")" | grep -q '[0-9KMG]\.\.[0-9]' || bad="$bad $k"
	fi
done
same "every number or size with its MIN..MAX range" "" "$bad"

# --- options: --help against the page ------------------------------------------------------
make -s -C "$top/daemon" brute-reportd >/dev/null 2>&1
opts=$("$top/daemon/brute-reportd" --help | grep -o -- '--[a-z-]*' | sort -u)
missing=
for o in $opts; do
	grep -q -- "$(echo "$o" | sed 's/-/\\\\-/g')" "$man8" || missing="$missing $o"
done
same "every --help option is in brute-reportd(8) (-h, --version, --health ...)" "" "$missing"

# --- sections ------------------------------------------------------------------------------
for p in "$man8" "$conf5" "$ctl8"; do
	n=${p##*/}
	grep -q '^\.SH EXAMPLES' "$p" && ok "$n: EXAMPLES" || not_ok "$n: EXAMPLES"
done
want="ausearch (8) aureport (8) auditctl (8) augenrules (8) journalctl (1)"
for p in "$man8" "$ctl8"; do
	see=$(sed -n '/^\.SH SEE ALSO/,$p' "$p")
	missing=
	for r in ausearch aureport auditctl augenrules journalctl; do
		echo "$see" | grep -q "^\.BR $r (" || missing="$missing $r"
	done
	same "${p##*/}: SEE ALSO $want" "" "$missing"
done

# --- paths ---------------------------------------------------------------------------------
make -s -C "$top" install DESTDIR="$D" PREFIX=/usr >/dev/null 2>&1 || not_ok "make install DESTDIR"
# created at runtime: a FILES item whose text says so
runtime=$(for p in "$man8" "$conf5" "$ctl8"; do
	awk '/^\.SH FILES/ { f = 1; next } /^\.SH/ { f = 0 }
		f && /^\.TP/ { getline path; getline text; if (text ~ /created at runtime/) print path }' "$p"
	done | sed 's/^\.I //; s/\\fR//g; s/\\fI//g' | sort -u)
[ -n "$runtime" ] && diag "documented as created at runtime: $(echo $runtime)"
bad=
for p in "$man8" "$conf5" "$ctl8"; do
	for path in $(sed 's/\\f[BIRP]//g; s/\\-/-/g' "$p" | grep -o '\(^\|[[:space:](,"]\)/[a-z][A-Za-z0-9_./@-]*' |
		sed 's/^[[:space:](,"]//; s/[.,]$//' | sort -u); do
		case $path in
		/proc | /sys | /proc/* | /sys/* | /dev/*) continue ;;	# the kernel's
		/etc/machine-id | /var/log/audit/*) continue ;;	# systemd's, auditd's
		/usr/bin/passwd) continue ;;	# an example target: Debian's set-user-ID passwd
		/run/php/php8.2-fpm.sock) continue ;;	# an example socket: Debian's PHP-FPM pool
		/etc/ssl/certs/siem-ca.pem) continue ;;	# an example: the operator's own CA file
		esac
		# a runtime file, or the directory it is created in
		echo "$runtime" | grep -q "^${path%/}\(/\|\$\)" && continue
		# a directory named with its trailing slash, or a file
		[ -e "$D$path" ] || [ -e "$D/usr${path#/usr}" ] || bad="$bad ${p##*/}:$path"
	done
done
same "every absolute path in the man pages is installed or documented as created at runtime" "" "$bad"

# --- rendering -----------------------------------------------------------------------------
if command -v man >/dev/null; then
	for p in "$man8" "$conf5" "$ctl8"; do
		w=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$p" 2>&1 >/dev/null)
		same "${p##*/} renders without warnings" "" "$w"
	done
else
	skip "man pages render" "no man here"
fi
exit 0
