#!/usr/bin/env python3
"""Compare the kernel's selftests run without and with Brute (make check-kselftest).

    tests/kselftest/compare.py WITHOUT_RESULTS.log WITH_RESULTS.log

Reads the result port of two fast-guest runs of tests/kselftest/90-kselftest.sh (results.log
in $BRUTE_CACHE/rig/runs/...) and compares them program by program and case by case, for
root and for the user:

  program   its verdict: pass (exit 0), skip (exit 4), exit N, signal N, timeout N
  case      each TAP result line the program printed ("ok 3 name", "not ok 4 name # SKIP
            why"): pass, fail, skip, xfail; keyed by its description (the number dropped; the
            n-th repeat of one description is "name [n]"), so that a case missing in one run
            is a difference too

Any difference fails, except in the cases tests/kselftest/list declares timing-dependent
("~TEST CASE-PREFIX why": listed, not failed) (check-kselftest.py first runs the programs that differed again in
both boots: a difference must show again, the same way, to fail the gate). A program or case
that fails in both runs is listed, not a failure. Exit status 0 when the runs agree, 1
otherwise.
"""
import os
import re
import shlex
import sys
from collections import OrderedDict
from dataclasses import dataclass, field

SCRIPT = "90-kselftest"
LIST = os.path.join(os.path.dirname(os.path.abspath(__file__)), "list")
# run-tests.sh's numbered line for one program of the guest script.
# TEST is the program and its arguments (spaces allowed).
VERDICT = re.compile(r"^(not ok|ok)\s+\d+\s+-\s+" + SCRIPT + r": (root|user) (.+?)"
                     r"(?:: (exit -?\d+|signal \d+|timeout \d+))?(?:\s+# SKIP (.*))?$")
# Anything else the runner said about the script (timed out, exit status, no result).
RUNNER = re.compile(r"^not ok\s+\d+\s+-\s+(" + SCRIPT + r": .*|rig setup: .*)$")
CASE = re.compile(r"^\s*(not ok|ok)\b\s*(\d*)\s*-?\s*(.*?)\s*$")
DIRECTIVE = re.compile(r"\s+#\s*(SKIP|XFAIL|TODO|XPASS)\b\s*(.*)$", re.I)
# Any other "# ..." after a description is a comment: not part of the name (the harness
# sometimes appends a stale reason to a passing case: "ok 95 name #  CLONE_NEWPID ...").
COMMENT = re.compile(r"\s+#.*$")
PASSING = ("pass", "skip", "xfail")


@dataclass
class Run:
    lsm: str = None
    verdicts: dict = field(default_factory=OrderedDict)   # (who, prog) -> verdict
    cases: dict = field(default_factory=OrderedDict)      # (who, prog, key) -> status
    logs: dict = field(default_factory=dict)              # (who, prog) -> [lines]
    times: dict = field(default_factory=dict)             # (who, prog) -> seconds
    problems: list = field(default_factory=list)          # what the runner reported
    summary: bool = False


def case_status(tap_line):
    """(description, status) of one TAP result line, or None."""
    m = CASE.match(tap_line)
    if not m:
        return None
    good, desc = m.group(1) == "ok", m.group(3)
    d = DIRECTIVE.search(desc)
    if d:
        desc = desc[:d.start()].rstrip()
        kind = d.group(1).upper()
        if kind == "SKIP":
            return desc, "skip"
        if kind == "XFAIL":
            return desc, "xfail" if good else "fail"
        if kind == "TODO":
            return desc, "pass" if good else "todo"
        if kind == "XPASS":
            return desc, "xpass"
    if COMMENT.search(desc) and COMMENT.sub("", desc):
        desc = COMMENT.sub("", desc)
    return desc, "pass" if good else "fail"


def parse(lines):
    """The result port of one run (lines of results.log)."""
    run = Run()
    seen = {}
    for raw in lines:
        line = raw.rstrip("\n").rstrip("\r")
        if line.startswith("# ks-lsm|"):
            run.lsm = line.split("|", 1)[1]
        elif line.startswith("# ks|"):
            parts = line.split("|", 3)
            if len(parts) < 4:
                continue
            _, who, prog, tap = parts
            got = case_status(tap)
            if got is None:
                continue
            desc, status = got
            n = seen[(who, prog, desc)] = seen.get((who, prog, desc), 0) + 1
            key = desc if n == 1 else f"{desc} [{n}]"
            run.cases[(who, prog, key)] = status
        elif line.startswith("# ks-log|"):
            parts = line.split("|", 3)
            if len(parts) == 4:
                run.logs.setdefault((parts[1], parts[2]), []).append(parts[3])
        elif line.startswith("# ks-time|"):
            parts = line.split("|")
            if len(parts) == 4 and parts[3].isdigit():
                run.times[(parts[1], parts[2])] = int(parts[3])
        else:
            m = VERDICT.match(line)
            if m:
                good, who, prog, why, skip = m.groups()
                run.verdicts[(who, prog)] = ("skip" if skip else "pass") if good == "ok" \
                    else (why or "fail")
                continue
            m = RUNNER.match(line)
            if m:
                run.problems.append(m.group(1))
            elif re.match(r"^\d+ passed, \d+ failed", line):
                run.summary = True
    if not run.summary:
        run.problems.append("no summary line on the result port (the guest did not finish)")
    return run


def verdict_passes(v):
    return v in ("pass", "skip")


@dataclass
class Comparison:
    differences: list = field(default_factory=list)   # (who, prog, what, without, with)
    both_failing: list = field(default_factory=list)  # (who, prog, what, status)
    problems: list = field(default_factory=list)
    timing: list = field(default_factory=list)        # differences in declared timing cases


def timing_cases(list_lines):
    """The "~TEST CASE-PREFIX why" lines of tests/kselftest/list: [(test, prefix, why)]. A
    case of TEST whose name starts with the prefix ("(program)": the program's verdict;
    "": every case and the verdict) passes or fails by how threads or processes happened
    to be scheduled; its differences are listed, not failed."""
    out = []
    for line in list_lines:
        line = line.strip()
        if line.startswith("~"):
            lex = shlex.shlex(line[1:], posix=True)
            lex.whitespace_split = True
            test, prefix = lex.get_token(), lex.get_token()
            why = lex.instream.read().strip()
            if test is None or prefix is None or not why:
                raise ValueError(f"tests/kselftest/list: ~TEST CASE-PREFIX WHY: {line!r}")
            out.append((test, prefix, why))
    return out


def load_timing(path=LIST):
    with open(path, encoding="utf-8") as f:
        return timing_cases(f.read().splitlines())


def is_timing(timing, test, what):
    return any(t == test and what.startswith(prefix) for t, prefix, _ in timing)


def compare(without, with_, timing=()):
    c = Comparison()

    def differ(d):
        (c.timing if is_timing(timing, d[1], d[2]) else c.differences).append(d)

    for name, run in (("without Brute", without), ("with Brute", with_)):
        c.problems += [f"{name}: {p}" for p in run.problems]
    if without.lsm is None or with_.lsm is None:
        c.problems.append("a run did not report its LSM list (# ks-lsm)")
    else:
        if "brute" in without.lsm.split(","):
            c.problems.append(f"the run without Brute has it in its LSM list: {without.lsm}")
        if "brute" not in with_.lsm.split(","):
            c.problems.append(f"the run with Brute does not have it in its LSM list: {with_.lsm}")
    programs = list(OrderedDict.fromkeys(list(without.verdicts) + list(with_.verdicts)))
    if not programs:
        c.problems.append("no selftest ran")
    for who, prog in programs:
        a = without.verdicts.get((who, prog), "not run")
        b = with_.verdicts.get((who, prog), "not run")
        if a != b:
            differ((who, prog, "(program)", a, b))
        elif not verdict_passes(a):
            c.both_failing.append((who, prog, "(program)", a))
        keys = [k for k in OrderedDict.fromkeys(list(without.cases) + list(with_.cases))
                if k[:2] == (who, prog)]
        for k in keys:
            a = without.cases.get(k, "absent")
            b = with_.cases.get(k, "absent")
            if a != b:
                differ((who, prog, k[2], a, b))
            elif a not in PASSING:
                c.both_failing.append((who, prog, k[2], a))
    return c


def rerun_programs(c):
    """The programs to run again, in both boots, to tell a difference from chance (without
    their arguments: the guest's ks.only= selects every entry of a program)."""
    return list(OrderedDict.fromkeys(test.split()[0] for _, test, _, _, _ in c.differences))


def confirm(first, again):
    """A difference is Brute's when the same program and case differ the same way when both
    boots run it again; one seen only once is timing (a test that depends on how the
    scheduler interleaves its threads under TCG on a loaded host). Returns (confirmed,
    unstable): confirmed fail the gate, unstable are listed."""
    seen_again = set(again.differences)
    confirmed = [d for d in first.differences if d in seen_again]
    unstable = [d for d in first.differences if d not in seen_again]
    unstable += [d for d in again.differences if d not in set(first.differences)]
    return confirmed, unstable


def counts(run, who):
    out = {"programs": 0, "pass": 0, "fail": 0, "skip": 0}
    out["programs"] = sum(1 for (w, _) in run.verdicts if w == who)
    for (w, _, _), status in run.cases.items():
        if w != who:
            continue
        key = status if status in ("pass", "skip") else "skip" if status == "xfail" else "fail"
        out[key] += 1
    out["programs failing"] = sum(1 for (w, _), v in run.verdicts.items()
                                  if w == who and not verdict_passes(v))
    return out


def report(without, with_, c, out=sys.stdout):
    """Print the comparison; returns True when the runs agree (and both ran)."""
    p = lambda s="": print(s, file=out)   # noqa: E731
    p(f"LSM list without Brute: {without.lsm}; with Brute: {with_.lsm}")
    p(f"{'':6} {'':8} {'programs':>8} {'not passing':>11} {'cases':>6} {'pass':>5} "
      f"{'fail':>5} {'skip':>5}")
    for who in ("root", "user"):
        for name, run in (("without", without), ("with", with_)):
            n = counts(run, who)
            total = n["pass"] + n["fail"] + n["skip"]
            p(f"{who:6} {name:8} {n['programs']:>8} {n['programs failing']:>11} {total:>6} "
              f"{n['pass']:>5} {n['fail']:>5} {n['skip']:>5}")
    if c.both_failing:
        p(f"\nFailing with and without Brute ({len(c.both_failing)}; not Brute's doing, "
          "not a failure of the gate):")
        for who, prog, what, status in c.both_failing:
            p(f"  {who:4} {prog}: {what}: {status}")
    if c.timing:
        p(f"\nTiming-dependent cases that differed ({len(c.timing)}; declared with ~ in "
          "tests/kselftest/list, not a failure of the gate):")
        for who, prog, what, a, b in c.timing:
            p(f"  {who:4} {prog}: {what}: without Brute {a}, with Brute {b}")
    if c.differences:
        p(f"\n*** {len(c.differences)} DIFFERENCES between the runs without and with Brute:")
        for who, prog, what, a, b in c.differences:
            p(f"  {who:4} {prog}: {what}: without Brute {a}, with Brute {b}")
        shown = set()
        for who, prog, _, _, _ in c.differences:
            if (who, prog) in shown:
                continue
            shown.add((who, prog))
            for name, run in (("without", without), ("with", with_)):
                log = run.logs.get((who, prog))
                if log:
                    p(f"--- {who} {prog}, {name} Brute: end of its output ---")
                    for line in log:
                        p(f"    {line}")
    for prob in c.problems:
        p(f"*** {prob}")
    return not c.differences and not c.problems


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    runs = []
    for path in argv[1:]:
        with open(path, encoding="utf-8", errors="replace") as f:
            runs.append(parse(f.read().splitlines()))
    c = compare(*runs, timing=load_timing())
    return 0 if report(*runs, c) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
