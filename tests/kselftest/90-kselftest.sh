#!/bin/sh
# The kernel's own selftests in the fast guest (make check-kselftest; scripts/kselftests.sh puts
# this script in /tests and the programs in /kselftest, in an extra cpio). Runs every program
# of /kselftest/list, in order, as root in /kselftest and then (WHO "all") as uid 1000 in
# /ks-user (hard links to the same files, directories owned by the user), each in its own
# session with a time bound, and reports on stdout, for the host (tests/kselftest/compare.py):
#
#   # ks-lsm|LIST                      /sys/kernel/security/lsm (is Brute in the LSM list?)
#   # ks|WHO|TEST|LINE                 every TAP result line the program printed
#   # ks-log|WHO|TEST|LINE             the end of its output when it did not pass
#   # ks-time|WHO|TEST|SECONDS
#   ok - WHO TEST | ok - WHO TEST # SKIP exit 4 | not ok - WHO TEST: exit N|signal N|timeout N
#
# where TEST is the program (COLLECTION/NAME) followed by its arguments, if any.
#
# A program's whole output goes to the console when it ends ("ks> "). "not ok" lines are the kernel's
# results, not this script's: the gate is the comparison of two boots on the host, and a test
# that fails in both is reported there, not here. The script itself exits 0.
ks=/kselftest
user=/ks-user
uid=1000
list=$ks/list
export PATH=/usr/local/bin:/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin

console() { cat >/dev/console 2>/dev/null || cat >/dev/null; }

printf '# ks-lsm|%s\n' "$(cat /sys/kernel/security/lsm 2>/dev/null)"
if [ ! -f "$list" ]; then
	echo "not ok - no $list (scripts/kselftests.sh's cpio is not in this initramfs)"
	exit 0
fi

# What a distribution's user space provides and a few exec cases need (execveat of a script by
# file descriptor names it /dev/fd/N).
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
ulimit -c 0
# pidfd_test's recycled-pid case forks until the PID numbers wrap around (32768 by default),
# which under TCG takes longer than the whole rest of the run: wrap at 4096.
echo 4096 >/proc/sys/kernel/pid_max

# ks.only=PROGRAM[,PROGRAM] on the kernel command line: only these entries of the list (the
# host's second look at programs whose results differed).
only=
for arg in $(cat /proc/cmdline); do
	case $arg in ks.only=*) only=" $(echo "${arg#*=}" | tr ',' ' ') " ;; esac
done

# The user's tree: same files (hard links, one file system), writable directories. Made
# before any test runs, so it never sees what the root run creates.
rm -rf "$user"
cp -al "$ks" "$user"
find "$user" -type d -exec chown "$uid:$uid" {} +

out=/run/ks-out
run_one() { # run_one WHO DIR PROGRAM TIMEOUT [ARGS...]
	who=$1 dir=$2 prog=$3 tmo=$4
	shift 4
	coll=${prog%/*} name=${prog##*/}
	# The test's name in the reports: the program and its arguments.
	id=$prog
	[ $# -eq 0 ] || id="$prog $*"
	echo "ks: [$(cut -d' ' -f1 /proc/uptime)] === $who $id" | console
	start=$(date +%s)
	# Own session (setsid does not fork here: a background job of a shell without job
	# control is not a group leader), so that whatever the program leaves behind can be
	# killed by its process group; timeout execs the program in its own process.
	if [ "$who" = root ]; then
		(cd "$dir/$coll" && exec timeout -s KILL "$tmo" setsid "./$name" "$@") \
			</dev/null >"$out" 2>&1 &
	else
		(cd "$dir/$coll" && HOME=/home/brute USER=brute LOGNAME=brute \
			exec timeout -s KILL "$tmo" setsid runas "$uid" "./$name" "$@") \
			</dev/null >"$out" 2>&1 &
	fi
	pid=$!
	wait $pid
	rc=$?
	elapsed=$(($(date +%s) - start))
	kill -9 -"$pid" 2>/dev/null
	[ "$who" = root ] || runas "$uid" kill -9 -1 2>/dev/null
	# Prefixed: the rig reads KTAP on the console as KUnit's (guest.parse_kunit).
	sed 's/^/ks> /' "$out" | console
	grep -E '^[[:space:]]*(not ok|ok)([[:space:]]|$)' "$out" | sed "s#^#\# ks|$who|$id|#"
	if [ $rc -eq 0 ]; then
		echo "ok - $who $id"
	elif [ $rc -eq 4 ]; then
		echo "ok - $who $id # SKIP exit 4"
	else
		if [ $rc -gt 128 ] && [ $elapsed -ge "$tmo" ]; then
			why="timeout $tmo"
		elif [ $rc -gt 128 ] && [ $rc -le 192 ]; then
			why="signal $((rc - 128))"
		else
			why="exit $rc"
		fi
		tail -n 30 "$out" | sed "s#^#\# ks-log|$who|$id|#"
		echo "not ok - $who $id: $why"
	fi
	echo "# ks-time|$who|$id|$elapsed"
}

# (run_one's variables are global: the loop's have other names.)
grep -Ev '^[[:space:]]*(#|-|~|$)' "$list" | while read -r l_prog l_who l_tmo l_args; do
	case $only in '' | *" $l_prog "*) ;; *) continue ;; esac
	# shellcheck disable=SC2086 # ARGS are words
	run_one root "$ks" "$l_prog" "$l_tmo" $l_args
	[ "$l_who" = root ] || run_one user "$user" "$l_prog" "$l_tmo" $l_args
done
rm -f "$out"
exit 0
