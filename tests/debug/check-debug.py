#!/usr/bin/env python3
"""make check-debug: the fast guest on the sanitizer kernels, with the long stress storm.

    tests/debug/check-debug.py [kasan] [kcsan]     (default: both)

For each flavour (scripts/kernel.sh --flavour: KASAN + kmemleak + UBSAN + lockdep, and KCSAN +
lockdep; both with failslab/fail_page_alloc and the hung-task detector), boot the fast guest
with slab_nomerge (Brute's caches stay apart for failslab) and run the selftests, the storm
(rig.storm=SECONDS,BIG,WAIT: BRUTE_STORM, default 180,2000,600: forking 3000 processes
under KASAN and TCG outlasted a 270 s bound), fault injection and, last, a kmemleak
scan. Then read every report on the console: KASAN, KCSAN, UBSAN, kmemleak, lockdep, WARN,
BUG, hung tasks, RCU stalls, soft lockups. A report whose stack goes through Brute fails the
run; any other is shown and counted (it is not ours to fix here), never hidden.

Last line: "check-debug: N passed, N failed"; exit status 0 only when every flavour passed.
Environment: BRUTE_STORM, BRUTE_DEBUG_TIMEOUT (per flavour, seconds, default 3600), BRUTE_CACHE.
"""
import os
import re
import subprocess
import sys
from pathlib import Path

TOP = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(TOP / "tests" / "rig"))
import guest  # noqa: E402

FLAVOURS = ("kasan", "kcsan")
# Name order: the audit trail tests (20) before the storm (25), whose records auditd may
# still be receiving long after it on a sanitizer kernel.
TESTS = ("10-brute-selftests,11-brute-model,12-brute-relay,13-brute-response,15-brute-v4,"
         "20-brute-audit,"
         "25-brute-storm,26-brute-faults,99-kmemleak")
# The first line of each kind of report on the console.
REPORT = re.compile(
    r"(BUG: KASAN|BUG: KCSAN|UBSAN:|WARNING:|BUG:|INFO: task .* blocked for more than"
    r"|rcu: INFO:|self-detected stall|soft lockup|possible recursive locking"
    r"|inconsistent lock state|circular locking dependency|possible circular locking"
    r"|sleeping function called from invalid context|general protection fault|Oops:"
    r"|Kernel panic|kmemleak: .* new suspected memory leaks)")
END = re.compile(r"^=+$|---\[ end trace|^\[ *\d+\.\d+\] =+$")
TIMESTAMP = re.compile(r"^\[\s*\d+\.\d+\] ?")


def log(msg):
    print(f"check-debug: {msg}", flush=True)


def brute_symbols(flavour):
    """Function names defined in Brute's objects (ours, in a stack trace)."""
    tree = subprocess.run([str(TOP / "scripts/kernel.sh"), "--flavour", flavour, "--tree"],
                          stdout=subprocess.PIPE, text=True, check=True).stdout.split()[-1]
    names = set()
    for obj in Path(tree, "security", "brute").glob("*.o"):
        out = subprocess.run(["nm", str(obj)], stdout=subprocess.PIPE, text=True).stdout
        names.update(l.split()[-1] for l in out.splitlines()
                     if len(l.split()) == 3 and l.split()[1] in "tT")
    names.discard("")
    return names


def reports(lines):
    """Split the console into reports: the header line and what follows, up to the end
    marker, the next header or 80 lines."""
    out, cur = [], None
    for line in lines:
        text = TIMESTAMP.sub("", line)
        if REPORT.search(text) and not text.startswith(("rig:", "[")):
            if cur:
                out.append(cur)
            cur = [text]
            continue
        if cur is not None:
            cur.append(text)
            if END.match(text) or len(cur) >= 80:
                out.append(cur)
                cur = None
    if cur:
        out.append(cur)
    return out


def ours(report, symbols):
    for line in report:
        for word in re.findall(r"[A-Za-z_][A-Za-z0-9_.]*(?=\+0x)", line):
            if word in symbols or word.startswith("brute_"):
                return True
        if "security/brute/" in line:
            return True
    return False


def run_flavour(flavour):
    log(f"{flavour}: building or reusing the kernel (scripts/kernel.sh --flavour {flavour})")
    kernel = subprocess.run([str(TOP / "scripts/kernel.sh"), "--flavour", flavour],
                            stdout=subprocess.PIPE, text=True, check=True).stdout.split()[-1]
    storm = os.environ.get("BRUTE_STORM", "180,2000,600")
    extra = f"slab_nomerge rig.timeout=1500 rig.storm={storm} hung_task_panic=0"
    os.environ["BRUTE_MEMORY"] = os.environ.get("BRUTE_MEMORY", "2G")
    os.environ["BRUTE_RUN_NAME"] = "-" + flavour
    timeout = int(os.environ.get("BRUTE_DEBUG_TIMEOUT", "3600"))
    out = guest.run("fast", kernel, TESTS, extra, None, timeout)
    # The rig fails a run on any splat; here reports are judged below, one by one.
    out.problems = [p for p in out.problems if not p.startswith("kernel splat")]
    console = guest.read_lines(out.console)
    symbols = brute_symbols(flavour)
    found = reports(console)
    mine = [r for r in found if ours(r, symbols)]
    others = [r for r in found if not ours(r, symbols)]
    for r in found:
        tag = "BRUTE" if r in mine else "not Brute"
        print(f"--- {flavour}: report ({tag}) ---\n" + "\n".join(r[:60]), flush=True)
    log(f"{flavour}: {len(found)} kernel reports on the console: {len(mine)} through Brute, "
        f"{len(others)} elsewhere (shown above, counted, not failing the run)")
    if mine:
        out.problems.append(f"{len(mine)} kernel reports through Brute")
    guest.report(out)
    return out.ok, len(found), len(mine)


def main():
    flavours = sys.argv[1:] or list(FLAVOURS)
    bad = [f for f in flavours if f not in FLAVOURS]
    if bad:
        print(f"check-debug: unknown flavour {bad[0]} (kasan, kcsan)", file=sys.stderr)
        return 2
    passed = failed = 0
    for f in flavours:
        try:
            ok, total, mine = run_flavour(f)
        except subprocess.CalledProcessError as e:
            log(f"{f}: *** {e}")
            ok = False
        passed, failed = passed + ok, failed + (not ok)
        log(f"{f}: {'passed' if ok else 'FAILED'}")
    print(f"check-debug: {passed} passed, {failed} failed", flush=True)
    return 0 if not failed else 1


if __name__ == "__main__":
    sys.exit(main())
