#!/usr/bin/env python3
"""make check-kselftest: the kernel's own selftests as a gate on Brute.

    tests/kselftest/check-kselftest.py

1. host unit tests of the comparison (tests/kselftest/test_compare.py, recorded outputs)
2. the test kernel ($KERNEL, else scripts/kernel.sh builds or reuses it)
3. the selftests, static, from that kernel's tree (scripts/kselftests.sh, cached)
4. the fast guest booted twice on the same kernel, with the selftests' cpio appended to its
   initramfs: without Brute (lsm=capability: built in, not initialized), then with it (the
   built-in CONFIG_LSM, "brute"); tests/kselftest/90-kselftest.sh runs every program of
   tests/kselftest/list as root and as uid 1000
5. the comparison (tests/kselftest/compare.py): any program or case whose result differs
   fails the gate, once confirmed: the programs that differed are run again in both boots
   (ks.only=), and a difference that does not show again the same way is listed as
   unstable (timing), not failed. What fails in both runs is listed. A run that panics,
   hangs, prints a kernel splat or does not report its LSM list fails the gate too.

Last line: "check-kselftest: N passed, N failed" (the unit tests, each run, the comparison).
Environment: KERNEL, BRUTE_CMDLINE (added to both boots), BRUTE_KSELFTEST_TIMEOUT (per
run, seconds, default 7200), BRUTE_MEMORY (default here 1G: the selftests take ~180 MB of
the initramfs), BRUTE_RUN_NAME (runs go to $BRUTE_CACHE/rig/runs/fast$BRUTE_RUN_NAME-
{nobrute,brute}), BRUTE_CACHE.
"""
import os
import subprocess
import sys
import time
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the work tree
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "rig"))
import compare  # noqa: E402
import guest  # noqa: E402

# The kernel command line is 2048 bytes at most: ks.only= names at most this many programs.
MAX_RERUN = 25
BOOTS = (("nobrute", "without Brute", "lsm=capability"), ("brute", "with Brute", ""))


def log(msg):
    print(f"check-kselftest: {msg}", flush=True)


def unit_tests():
    suite = unittest.defaultTestLoader.discover(HERE, pattern="test_*.py")
    result = unittest.TextTestRunner(stream=sys.stdout, verbosity=0).run(suite)
    return result.wasSuccessful()


def boot(kernel, cpio, name, label, lsm, only=None):
    extra = " ".join(x for x in (os.environ.get("BRUTE_CMDLINE", ""), lsm, "rig.timeout=0",
                                 "ks.only=" + ",".join(only) if only else "") if x)
    timeout = int(os.environ.get("BRUTE_KSELFTEST_TIMEOUT", "7200"))
    saved = {k: os.environ.get(k) for k in ("BRUTE_RUN_NAME", "BRUTE_INITRD_EXTRA",
                                             "BRUTE_MEMORY")}
    os.environ["BRUTE_RUN_NAME"] = (saved["BRUTE_RUN_NAME"] or "") + "-" + name
    os.environ["BRUTE_INITRD_EXTRA"] = cpio
    os.environ["BRUTE_MEMORY"] = saved["BRUTE_MEMORY"] or "1G"
    log(f"{label}: booting the fast guest ({lsm or 'built-in LSM list'})")
    try:
        out = guest.run("fast", kernel, "90-kselftest", extra, None, timeout)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    log(f"{label}: guest ran {out.seconds:.0f} s; {out.tests.line('programs')} "
        f"(a program failing in both runs is not a failure of the gate)")
    # The selftests' own failures are for the comparison to judge; what else went wrong
    # with the run (panic, splat, hang, no summary, a KUnit suite not ok) fails it.
    ok = not out.problems and not out.kunit.failed
    if not ok:
        out.failures = []
        guest.report(out, counts=False)
    results = out.console.parent / "results.log"
    return ok, compare.parse(guest.read_lines(results)), results


def main():
    start = time.monotonic()
    passed = failed = 0

    def tally(ok):
        nonlocal passed, failed
        passed, failed = passed + bool(ok), failed + (not ok)

    log("unit tests of the comparison (tests/kselftest/test_compare.py)")
    tally(unit_tests())
    try:
        kernel = guest.kernel_image()
        cpio = guest.script("kselftests.sh")
    except subprocess.CalledProcessError as e:
        log(f"*** building failed: {e}")
        tally(False)
        print(f"check-kselftest: {passed} passed, {failed} failed", flush=True)
        return 1
    log(f"kernel {kernel}; selftests {cpio}")
    runs = {}
    for name, label, lsm in BOOTS:
        ok, runs[name], path = boot(kernel, cpio, name, label, lsm)
        log(f"{label}: results in {path}")
        tally(ok)
    timing = compare.load_timing()
    c = compare.compare(runs["nobrute"], runs["brute"], timing)
    agree = compare.report(runs["nobrute"], runs["brute"], c)
    again = compare.rerun_programs(c)
    if not agree and not c.problems and len(again) <= MAX_RERUN:
        # Run what differed again in both boots: Brute's doing shows again, chance does not.
        log(f"{len(c.differences)} differences in {len(again)} programs: running them again "
            f"in both boots ({', '.join(again)})")
        reruns = {}
        # The other order this time: a host whose load changes during the runs does not
        # favour the same boot twice.
        for name, label, lsm in reversed(BOOTS):
            ok, reruns[name], path = boot(kernel, cpio, name + "-again", label, lsm, again)
            log(f"{label}, again: results in {path}")
            tally(ok)
        c2 = compare.compare(reruns["nobrute"], reruns["brute"], timing)
        compare.report(reruns["nobrute"], reruns["brute"], c2)
        confirmed, unstable = compare.confirm(c, c2)
        if unstable:
            print(f"\nUnstable ({len(unstable)}): differed in one pair of runs only "
                  "(timing, not Brute; not a failure of the gate):", flush=True)
            for who, prog, what, a, b in unstable:
                print(f"  {who:4} {prog}: {what}: without Brute {a}, with Brute {b}")
        if confirmed:
            print(f"\n*** {len(confirmed)} differences CONFIRMED by the second pair of runs:")
            for who, prog, what, a, b in confirmed:
                print(f"  {who:4} {prog}: {what}: without Brute {a}, with Brute {b}")
        agree = not confirmed and not c2.problems
    elif not agree and again:
        log(f"*** {len(again)} programs differ: too many to run again (at most {MAX_RERUN})")
    tally(agree)
    log("the runs agree" if agree else "*** the runs DIFFER (or one did not complete)")
    log(f"{time.monotonic() - start:.0f} s")
    print(f"check-kselftest: {passed} passed, {failed} failed", flush=True)
    return 0 if not failed else 1


if __name__ == "__main__":
    sys.exit(main())
