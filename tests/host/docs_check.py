#!/usr/bin/env python3
"""The README's and docs' figures say where they come from, and their links lead somewhere.

  docs_check.py [--top DIR] FILE.md...

For each Markdown file, prints TAP lines (tests/host/80-docs.sh runs it on README.md and
docs/*.md):
  - every figures marker, a line
        <!-- figures: commit=HASH[,HASH...] command="make [VAR=VALUE...] [-C DIR] TARGET" -->
    names commits that are in the history of DIR's HEAD (git merge-base --is-ancestor) and a
    command that is make with a target of the top Makefile, or of DIR/Makefile with -C DIR;
  - every table of figures (a Markdown table one of whose data cells starts with a number:
    a measured value) has such a marker as the nearest non-blank line above it;
  - every relative link and image ([text](path), ![alt](path)) points at a file or directory
    that exists, and a #fragment into a Markdown file at one of its headings.
Lines inside fenced code blocks and indented code blocks are not read.
"""
import os
import re
import shlex
import subprocess
import sys

MARKER = re.compile(r'^<!-- figures: commit=([0-9a-f,]+) command="([^"]+)" -->\s*$')
LINK = re.compile(r'!?\[[^\]]*\]\(([^)\s]+)\)')
# A measured value: a cell that starts with a number and its unit (a share, a time, a size, a
# factor) or with a ratio written to two decimals or more.
CELL_NUMBER = re.compile(r"^[*_~<>=≤≥ ]*(\d[\d,]*(\.\d+)? ?(%|×|µs|ms|s|min|h|KiB|MiB|GiB|MB|GB)(?![A-Za-z])"
                         r"|\d+\.\d\d+(?![\d.]))")


def lines_outside_code(text):
    """(line number, line) of the lines outside fenced and indented code blocks."""
    out, fenced, prev_blank = [], False, True
    indented = False
    for n, line in enumerate(text.splitlines(), 1):
        if line.startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            continue
        if line.startswith("    ") and (prev_blank or indented) and not line.lstrip().startswith(("-", "|")):
            indented = True
            prev_blank = False
            continue
        if line.strip():
            indented = False
        prev_blank = not line.strip()
        out.append((n, line))
    return out


def slug(heading):
    """GitHub's anchor of a heading."""
    s = heading.strip().lower()
    s = re.sub(r"[`*_]", "", s)
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def anchors(path):
    try:
        text = open(path, encoding="utf-8").read()
    except OSError:
        return set()
    return {slug(line.lstrip("#")) for _, line in lines_outside_code(text)
            if re.match(r"^#{1,6} ", line)}


def make_targets(makefile):
    try:
        text = open(makefile, encoding="utf-8").read()
    except OSError:
        return set()
    targets = set()
    for line in text.splitlines():
        m = re.match(r"^([A-Za-z0-9][A-Za-z0-9_.%/ -]*?)\s*:(?!=)", line)
        if m:
            targets.update(m.group(1).split())
    return targets


def command_problem(command, top):
    """Why COMMAND is not a make target of this tree, or None."""
    try:
        words = shlex.split(command)
    except ValueError as e:
        return f"unparsable: {e}"
    env = [w for w in words if re.match(r"^[A-Z_][A-Z0-9_]*=", w)]
    words = [w for w in words if w not in env]
    if not words or words[0] != "make":
        return "not a make command"
    words = words[1:]
    directory = top
    if len(words) >= 2 and words[0] == "-C":
        directory = os.path.join(top, words[1])
        words = words[2:]
    words = [w for w in words if not re.match(r"^[A-Z_][A-Z0-9_]*=", w)]
    if not words:
        return "no target"
    targets = make_targets(os.path.join(directory, "Makefile"))
    missing = [w for w in words if w not in targets]
    if missing:
        return f"no target {' '.join(missing)} in {os.path.relpath(directory, top)}/Makefile"
    return None


def commit_problem(commit, top):
    ok = subprocess.run(["git", "-C", top, "merge-base", "--is-ancestor", commit, "HEAD"],
                        capture_output=True).returncode == 0
    return None if ok else f"{commit} is not a commit in the history of HEAD"


def check_file(path, top):
    """[(ok, description, detail)] for one file."""
    results = []
    name = os.path.relpath(path, top) if os.path.abspath(path).startswith(os.path.abspath(top) + os.sep) else path
    text = open(path, encoding="utf-8").read()
    lines = lines_outside_code(text)
    # markers
    for n, line in lines:
        if not line.startswith("<!-- figures:"):
            continue
        m = MARKER.match(line)
        if not m:
            results.append((False, f"{name}:{n}: figures marker well-formed", line))
            continue
        problems = [p for p in (commit_problem(c, top) for c in m.group(1).split(",") if c) if p]
        cp = command_problem(m.group(2), top)
        if cp:
            problems.append(f'command "{m.group(2)}": {cp}')
        results.append((not problems, f"{name}:{n}: figures of {m.group(1)} by \"{m.group(2)}\"",
                        "; ".join(problems)))
    # tables of figures
    i = 0
    while i < len(lines):
        n, line = lines[i]
        if not line.startswith("|"):
            i += 1
            continue
        start = i
        while i < len(lines) and lines[i][1].startswith("|"):
            i += 1
        rows = [l for _, l in lines[start + 2:i]]   # after the header and its separator
        cells = [c.strip() for r in rows for c in r.strip().strip("|").split("|")]
        if any(CELL_NUMBER.match(c) for c in cells):
            above = next((l for _, l in reversed(lines[:start]) if l.strip()), "")
            marked = bool(MARKER.match(above))
            results.append((marked, f"{name}:{n}: the table of figures says where they come from",
                            "" if marked else "no <!-- figures: commit=... command=\"...\" --> "
                            "line right above it"))
    # links
    for n, line in lines:
        for target in LINK.findall(line):
            if re.match(r"^[a-z]+:", target) or target.startswith("#"):
                continue
            file_part, _, fragment = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(path), file_part))
            problem = None
            if not os.path.exists(dest):
                problem = f"{dest} does not exist"
            elif fragment and dest.endswith(".md") and fragment not in anchors(dest):
                problem = f"no heading #{fragment} in {file_part}"
            results.append((problem is None, f"{name}:{n}: link {target}", problem or ""))
    return results


def main(argv):
    top = os.getcwd()
    if len(argv) > 1 and argv[0] == "--top":
        top, argv = argv[1], argv[2:]
    bad = 0
    for path in argv:
        for ok, what, detail in check_file(path, top):
            if ok:
                print(f"ok - {what}")
            else:
                bad += 1
                print(f"not ok - {what}")
                if detail:
                    print(f"#   {detail}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
