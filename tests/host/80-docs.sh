#!/bin/bash
# The README and docs/ tell where their figures come from, and their links lead somewhere
# (issue 44): every table of measured figures in README.md and docs/*.md has a marker
# <!-- figures: commit=HASH command="make TARGET" --> naming commits in git's history and a
# target of the Makefile, and every relative link or image points at a file of the tree
# (tests/host/docs_check.py). First the check itself, on pages made here that break each rule.
. "$(dirname "$0")/lib.bash"
set -u
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
head=$(git -C "$top" rev-parse --short=7 HEAD)

# --- the check catches what it must -------------------------------------------------------
table='| case | benign answered |
| --- | --- |
| one | 100 % (770/770) |'
verdict() { # NAME: the check's exit status on $D/NAME.md
	python3 "$top/tests/host/docs_check.py" --top "$top" "$D/$1.md" >"$D/$1.out" 2>&1
	echo $?
}
printf '<!-- figures: commit=%s command="make bench" -->\n%s\n\n[the man page](%s)\n' \
	"$head" "$table" "$top/daemon/man/brute-reportd.8" >"$D/good.md"
same "a marked table and a good link pass" 0 "$(verdict good)"
printf 'Measured somewhere.\n\n%s\n' "$table" >"$D/unmarked.md"
same "a table of figures without a marker fails" 1 "$(verdict unmarked)"
printf '<!-- figures: commit=0000000 command="make bench" -->\n%s\n' "$table" >"$D/nocommit.md"
same "a marker naming a commit not in git's history fails" 1 "$(verdict nocommit)"
printf '<!-- figures: commit=%s command="make benchmarks" -->\n%s\n' "$head" "$table" >"$D/notarget.md"
same "a marker naming a command that is no make target fails" 1 "$(verdict notarget)"
printf '<!-- figures: commit=%s command="make -C daemon spool-bench" -->\n%s\n' "$head" "$table" \
	>"$D/subdir.md"
same "a marker naming a target of a subdirectory's Makefile passes" 0 "$(verdict subdir)"
printf 'See [there](no/such/file.md) and ![a plot](img/none.png).\n' >"$D/badlink.md"
same "a link to a missing file fails" 1 "$(verdict badlink)"
printf '# Title\n\n## A heading\n\n[here](anchors.md#a-heading)\n' >"$D/anchors.md"
same "a link to a heading that exists passes" 0 "$(verdict anchors)"
printf '[here](anchors.md#no-heading)\n' >"$D/badanchor.md"
same "a link to a heading that does not exist fails" 1 "$(verdict badanchor)"
printf '    <!-- figures: commit=0000000 command="make nothing" -->\n\n| a | b |\n| --- | --- |\n| 1710 | `BRUTE_HIERARCHY` |\n' \
	>"$D/reference.md"
same "a marker in a code block and a reference table with numbers are not figures" 0 \
	"$(verdict reference)"

# --- the README and docs/ ----------------------------------------------------------------
cd "$top"
out=$(python3 tests/host/docs_check.py --top "$top" README.md docs/*.md)
rc=$?
markers=$(echo "$out" | grep -c '^ok - .*: figures of ')
links=$(echo "$out" | grep -c '^ok - .*: link ')
diag "README.md and docs/*.md: $markers figures markers, $links links checked"
[ "$markers" -gt 0 ] || not_ok "README.md and docs/ have figures markers"
echo "$out" | grep -v '^ok - '
same "README.md and docs/: every table of figures says its commit and command, every link leads to a file" \
	0 "$rc"
exit 0
