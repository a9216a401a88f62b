#!/usr/bin/env python3
"""`make check`: run every test layer and end with one line 'check: N passed, N failed'.

Layers, in order; a layer that cannot run counts as one failure and the others still run:
  rig          host unit tests of the rig's own parsers and of make bench's and make demo's
               plots (tests/rig/test_*.py: test_guest.py, test_plot.py)
  daemon       make -C daemon check (if daemon/Makefile exists): its 'N passed, N failed' line
  tools        make -C tools/brutectl check: brutectl's host tests, same summary line
  host         tests/host/*.sh on this machine (install, dist, hardening, the Debian package,
               the kernel package's configuration): TAP like the guests' scripts
  audit-tools  userspace/audit/tests/run.sh: the patched audit packages (scripts/audit-pkgs.sh,
               cached), the stock and patched ausearch/aureport on recorded Brute records,
               make -C daemon check-normal against the patched libauparse
  kernel       the test kernel: $KERNEL, else scripts/kernel.sh builds it
  kunit        KTAP printed on the fast guest's console at boot
  fast-guest   tests/fast/*.sh in the busybox initramfs guest
  kunit-absent, fast-absent
               the fast guest booted without Brute in the LSM list (lsm=capability): its
               KUnit cases skip, no oops, tests/fast/00-rig and 05-brute-absent
  bench-smoke  tests/bench/bench.py --smoke on the test kernel: one boot of make bench's guest
               (every loop a few times, every availability scenario for 3 s), that every
               figure is printed; never a value (make bench measures, make check does not time)
  system-guest tests/system/*.sh in the Debian + systemd guest

Environment: see tests/rig/guest.py (KERNEL, BRUTE_CMDLINE, BRUTE_TESTS, BRUTE_RIG_INJECT, ...);
BRUTE_LAYERS=rig,daemon,tools,host,audit,fast,bench,system selects layers (default: all);
BRUTE_HOST_TESTS=NAME[,NAME] runs only these tests/host scripts (names without .sh).
"""
import os
import re
import signal
import subprocess
import sys
import threading
import time
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the work tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import guest  # noqa: E402

SUMMARY = re.compile(r"^(?:[\w-]+: )?(\d+) passed, (\d+) failed(?:, (\d+) skipped)?\s*$")
CHECK_FW = re.compile(r"\d+%: Checks: (\d+), Failures: (\d+), Errors: (\d+)")

total = guest.Counts()
lines = []


def layer(name, counts):
    total.passed += counts.passed
    total.failed += counts.failed
    total.skipped += counts.skipped
    line = counts.line(name)
    lines.append(line)
    print(line, flush=True)


def run_rig_unit():
    suite = unittest.defaultTestLoader.discover(os.path.dirname(os.path.abspath(__file__)),
                                                pattern="test_*.py")
    result = unittest.TextTestRunner(stream=sys.stdout, verbosity=0).run(suite)
    bad = len(result.failures) + len(result.errors)
    layer("rig", guest.Counts(result.testsRun - bad - len(result.skipped), bad,
                              len(result.skipped)))


def run_make_check(name, subdir):
    """make -C SUBDIR check, streamed; its last summary line gives the layer's counts."""
    if not (guest.TOP / subdir / "Makefile").exists():
        print(f"{name}: no {subdir}/Makefile yet, skipped", flush=True)
        return
    proc = subprocess.Popen(["make", "-C", str(guest.TOP / subdir), "check"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            errors="replace")
    found, check_fw = None, None
    for line in proc.stdout:
        sys.stdout.write(line)
        m = SUMMARY.match(line.strip())
        if m:
            found = guest.Counts(int(m.group(1)), int(m.group(2)), int(m.group(3) or 0))
        m = CHECK_FW.search(line)
        if m:
            check_fw = check_fw or guest.Counts()
            n, failures, errors = map(int, m.groups())
            check_fw.passed += n - failures - errors
            check_fw.failed += failures + errors
    rc = proc.wait()
    counts = found or check_fw
    if counts is None:
        print(f"{name}: *** no 'N passed, N failed' line from make -C {subdir} check (exit {rc})")
        counts = guest.Counts(0, 1)
    elif rc != 0 and counts.failed == 0:
        print(f"{name}: *** make -C {subdir} check exited {rc}")
        counts.failed = 1
    layer(name, counts)


HOST_TIMEOUT = 900   # seconds per tests/host script (the Debian package build is the longest)


def run_host():
    """tests/host/*.sh in name order, each in its own process group with a time bound; TAP on
    stdout. A script that exits non-zero, times out or asserts nothing is one more failure."""
    only = [n for n in (os.environ.get("BRUTE_HOST_TESTS") or "").split(",") if n]
    counts = guest.Counts()
    for path in sorted((guest.TOP / "tests" / "host").glob("*.sh")):
        if only and path.stem not in only:
            continue
        print(f"=== host {path.stem}", flush=True)
        start = time.monotonic()
        proc = subprocess.Popen(["bash", str(path)], cwd=str(guest.TOP), stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                errors="replace", start_new_session=True)
        asserted = 0
        timed_out = False
        try:
            out, _ = proc.communicate(timeout=HOST_TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, _ = proc.communicate()
            timed_out = True
        for line in out.splitlines():
            print(f"{path.stem}: {line}")
            m = guest.TAP.match(line.strip())
            if not m:
                continue
            asserted += 1
            if m.group(1) == "not ok":
                counts.failed += 1
            elif "# SKIP" in m.group(3):
                counts.skipped += 1
            else:
                counts.passed += 1
        why = ("timed out after %d s" % HOST_TIMEOUT if timed_out else
               f"exited {proc.returncode}" if proc.returncode else
               "asserted nothing" if not asserted else None)
        if why:
            print(f"not ok - {path.stem}: {why}")
            counts.failed += 1
        print(f"=== host {path.stem}: {time.monotonic() - start:.0f} s", flush=True)
    layer("host", counts)


def run_audit_tools():
    """userspace/audit/tests/run.sh, streamed; its last summary line gives the counts."""
    proc = subprocess.Popen(["sh", str(guest.TOP / "userspace" / "audit" / "tests" / "run.sh")],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            errors="replace")
    found = None
    for line in proc.stdout:
        sys.stdout.write(line)
        m = SUMMARY.match(line.strip())
        if m and line.startswith("audit-tools: "):
            found = guest.Counts(int(m.group(1)), int(m.group(2)), int(m.group(3) or 0))
    rc = proc.wait()
    if found is None:
        print(f"audit-tools: *** no summary line from userspace/audit/tests/run.sh (exit {rc})")
        found = guest.Counts(0, 1)
    elif rc != 0 and found.failed == 0:
        found.failed = 1
    layer("audit-tools", found)


def run_absent(kernel):
    """The fast guest booted with lsm=capability: Brute built in, not initialized."""
    os.environ["BRUTE_RUN_NAME"] = os.environ.get("BRUTE_RUN_NAME", "") + "-absent"
    try:
        out = guest.run("fast", kernel, "00-rig,05-brute-absent",
                        (os.environ.get("BRUTE_CMDLINE", "") + " lsm=capability").strip())
    except subprocess.CalledProcessError as e:
        print(f"fast-absent: *** building the guest failed: {e}", flush=True)
        layer("fast-absent", guest.Counts(0, 1))
        return
    finally:
        os.environ["BRUTE_RUN_NAME"] = os.environ["BRUTE_RUN_NAME"][:-len("-absent")]
    guest.report(out, counts=False)
    kunit = out.kunit
    if not kunit.skipped and not kunit.failed:
        print("kunit-absent: *** no KUnit case skipped: were Brute's cases run?", flush=True)
        kunit.failed = 1
    layer("kunit-absent", kunit)
    counts = out.tests
    if out.problems and not counts.failed and not kunit.failed:
        counts.failed = 1
    layer("fast-absent", counts)


BENCH_SMOKE_TIMEOUT = 900   # seconds; one boot of the lockdep kernel under -icount


def run_bench_smoke(kernel):
    """tests/bench/bench.py --smoke KERNEL, streamed: its 'bench-smoke: N passed, N failed'
    line gives the counts; a non-zero exit, a timeout or no such line is a failure."""
    proc = subprocess.Popen([sys.executable, str(guest.TOP / "tests" / "bench" / "bench.py"),
                             "--smoke", str(kernel)], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, errors="replace",
                            start_new_session=True)
    found = None
    timer = threading.Timer(BENCH_SMOKE_TIMEOUT, lambda: os.killpg(proc.pid, signal.SIGKILL))
    timer.start()
    try:
        for line in proc.stdout:
            sys.stdout.write(line)
            m = SUMMARY.match(line.strip())
            if m and line.startswith("bench-smoke: "):
                found = guest.Counts(int(m.group(1)), int(m.group(2)), int(m.group(3) or 0))
        rc = proc.wait()
    finally:
        timer.cancel()
    if found is None:
        print(f"bench-smoke: *** no summary line from tests/bench/bench.py --smoke (exit {rc})")
        found = guest.Counts(0, 1)
    elif rc != 0 and found.failed == 0:
        found.failed = 1
    layer("bench-smoke", found)


class Prepare(threading.Thread):
    """The guests' inputs built while the host layers run: the test kernel (scripts/kernel.sh,
    both cores), then the system guest's image (scripts/rootfs.sh, mostly the network). Niced:
    the host layers' tests come first. Their output goes to a log, printed when joined; the
    guests then find both cached (the scripts lock what they build)."""

    def __init__(self, want_kernel, want_rootfs):
        super().__init__(daemon=True)
        self.want_kernel, self.want_rootfs = want_kernel, want_rootfs
        self.kernel, self.error = None, None
        guest.RIG.mkdir(parents=True, exist_ok=True)
        self.log = guest.RIG / "prepare.log"
        self.started = time.monotonic()

    def _script(self, name, out):
        proc = subprocess.run(["nice", "-n", "10", str(guest.TOP / "scripts" / name)],
                              stdout=subprocess.PIPE, stderr=out, text=True, errors="replace")
        if proc.returncode:
            raise subprocess.CalledProcessError(proc.returncode, name)
        return proc.stdout.split()[-1]

    def run(self):
        with open(self.log, "w") as out:
            try:
                if self.want_kernel:
                    self.kernel = os.environ.get("KERNEL") or self._script("kernel.sh", out)
                if self.want_rootfs:
                    self._script("rootfs.sh", out)
            except (subprocess.CalledProcessError, OSError, IndexError) as e:
                self.error = e

    def result(self):
        """Wait for it; print what it printed; the kernel's path (None if not built)."""
        self.join()
        print(f"=== guest inputs, built beside the host layers "
              f"({time.monotonic() - self.started:.0f} s):", flush=True)
        sys.stdout.write(self.log.read_text(errors="replace"))
        if self.error:
            print(f"prepare: *** {self.error} (the guests build again and say why)", flush=True)
        return self.kernel


def main():
    selected = (os.environ.get("BRUTE_LAYERS") or
                "rig,daemon,tools,host,audit,fast,bench,system").split(",")
    start = time.monotonic()
    prepare = None
    if any(k in selected for k in ("fast", "system", "bench")) and not os.environ.get("KERNEL"):
        prepare = Prepare(True, "system" in selected)
        prepare.start()
    if "rig" in selected:
        run_rig_unit()
    if "daemon" in selected:
        run_make_check("daemon", "daemon")
    if "tools" in selected:
        run_make_check("tools", "tools/brutectl")
    if "host" in selected:
        run_host()
    if "audit" in selected:
        run_audit_tools()

    kernel = None
    if "fast" in selected or "system" in selected or "bench" in selected:
        try:
            kernel = (prepare and prepare.result()) or guest.kernel_image()
        except subprocess.CalledProcessError:
            print("kernel: *** scripts/kernel.sh failed, no guest can run", flush=True)
            layer("kernel", guest.Counts(0, 1))

    for kind in ("fast", "system"):
        if kind not in selected or kernel is None:
            continue
        try:
            out = guest.run(kind, kernel, os.environ.get("BRUTE_TESTS"),
                            os.environ.get("BRUTE_CMDLINE", ""),
                            os.environ.get("BRUTE_RIG_INJECT") or None)
        except subprocess.CalledProcessError as e:
            print(f"{kind}-guest: *** building the guest failed: {e}", flush=True)
            layer(f"{kind}-guest", guest.Counts(0, 1))
            continue
        guest.report(out, counts=False)
        if kind == "fast":
            layer("kunit", out.kunit)
        counts = out.tests
        if out.problems and not counts.failed and not out.kunit.failed:
            counts.failed = 1   # a panic, splat or hang fails the layer even if tests passed
        layer(f"{kind}-guest", counts)
        if kind == "fast" and not os.environ.get("BRUTE_TESTS"):
            run_absent(kernel)

    if "bench" in selected and kernel is not None and not os.environ.get("BRUTE_TESTS"):
        run_bench_smoke(kernel)

    print(f"--- {time.monotonic() - start:.0f} s", flush=True)
    for line in lines:
        print("  " + line)
    if total.passed + total.failed == 0:
        print("check: *** no test ran", flush=True)
        total.failed = 1
    print(total.line("check"), flush=True)
    return 1 if total.failed else 0


if __name__ == "__main__":
    sys.exit(main())
