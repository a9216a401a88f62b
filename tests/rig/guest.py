#!/usr/bin/env python3
"""Boot one Brute test guest under QEMU (TCG) and judge the run.

    tests/rig/guest.py fast|system [--kernel BZIMAGE] [--tests NAME,...] [--cmdline ARGS]
                                   [--timeout SECS] [--inject fail|hang|timeout|panic]
                                   [--shell]

fast    busybox initramfs (scripts/initramfs.sh): KUnit at boot, then tests/fast/*.sh
system  Debian bookworm + systemd on NVMe (scripts/rootfs.sh) with a per-run data disk
        (scripts/datadisk.sh), tests/system/*.sh run by brute-tests.service

The guest writes TAP to its second serial port (results.log) and its console to the first
(console.log); both are kept in $BRUTE_CACHE/rig/runs/KIND/. The run fails, with the last
console lines, on: a failing test, a missing or inconsistent summary (hang -> killed at the
wall-clock bound), a kernel panic, or a kernel splat (WARNING:, BUG:, lockdep reports, Call
Trace:), and on a KUnit suite reported 'not ok' on the console.

Environment: KERNEL (bzImage to boot, else scripts/kernel.sh builds it), BRUTE_CMDLINE (extra
kernel arguments), BRUTE_TESTS (like --tests), BRUTE_RIG_INJECT (like --inject),
BRUTE_FAST_TIMEOUT / BRUTE_SYSTEM_TIMEOUT (wall-clock bounds), BRUTE_SMP (vCPUs, 2),
BRUTE_QEMU_ACCEL (QEMU's -accel, tcg: multi-threaded TCG; tcg,thread=single runs the vCPUs
in one host thread, which code patched at run time needs: docs/bpf-flavour.md), BRUTE_MEMORY
(guest memory), BRUTE_INITRD_EXTRA (fast: cpio archives, colon-separated,
appended to the initramfs, e.g. scripts/kselftests.sh's), BRUTE_CACHE.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

TOP = Path(__file__).resolve().parents[2]
CACHE = Path(os.environ.get("BRUTE_CACHE")
             or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "brute")
RIG = CACHE / "rig"

DEFAULT_TIMEOUT = {"fast": 720, "system": 2400}
MEMORY = {"fast": "512M", "system": "1G"}
INJECTIONS = ("fail", "hang", "timeout", "panic")
# Kernel messages that fail a run wherever they appear in a kernel line.
SPLATS = ("WARNING:", "BUG:", "possible recursive locking", "inconsistent lock state",
          "circular locking dependency", "sleeping function called from invalid context",
          "Call Trace:", "Oops:", "general protection fault")
KERNEL_LINE = re.compile(r"^\[\s*\d+\.\d+\] ?")
SUMMARY = re.compile(r"^(\d+) passed, (\d+) failed(?:, (\d+) skipped)?$")
TAP = re.compile(r"^(not ok|ok)\b\s*(\d*)\s*-?\s*(.*)$")
TAIL = 40


@dataclass
class Counts:
    passed: int = 0
    failed: int = 0
    skipped: int = 0

    def line(self, name):
        s = f"{name}: {self.passed} passed, {self.failed} failed"
        return s + (f", {self.skipped} skipped" if self.skipped else "")


@dataclass
class Outcome:
    kind: str
    tests: Counts = field(default_factory=Counts)
    kunit: Counts = field(default_factory=Counts)
    problems: list = field(default_factory=list)   # why the run failed, beyond test counts
    failures: list = field(default_factory=list)   # failing TAP lines with their diagnostics
    seconds: float = 0.0
    console: Path = None

    @property
    def ok(self):
        return not self.problems and not self.tests.failed and not self.kunit.failed


def log(msg):
    print(f"guest: {msg}", file=sys.stderr, flush=True)


def script(name, *args):
    """Run one of scripts/*.sh and return the path it prints last."""
    out = subprocess.run([str(TOP / "scripts" / name), *args], stdout=subprocess.PIPE,
                         text=True, check=True).stdout.split()
    return out[-1]


def kernel_image():
    return os.environ.get("KERNEL") or script("kernel.sh")


def cmdline(kind, tests, extra, inject, shell):
    args = ["console=ttyS0", "panic=-1"]
    if kind == "system":
        args += ["root=/dev/nvme0n1", "rw", "kunit.enable=0"]
        if not shell:
            args += ["systemd.mask=serial-getty@ttyS0.service",
                     "systemd.mask=serial-getty@ttyS1.service",
                     "systemd.wants=brute-tests.service"]

    if kind == "fast":
        # Audit on from boot, as on a host (README): when auditd falls behind and the kernel
        # drops its connection, records wait in the kernel for its return (or are counted
        # lost); with audit=0 at boot the kernel drops them silently (seen in the storm).
        args.append("audit=1")
    if shell and kind == "fast":
        args.append("rig.shell=1")
    # Per-script bound: the audit, daemon and demo scripts take 20-50 s on an idle host and
    # twice that next to a kernel build.
    if "rig.timeout=" not in extra:
        args.append("rig.timeout=150")
    if tests:
        args.append("rig.tests=" + tests)
    if inject == "panic":
        # No MAGIC_SYSRQ in the test kernel: make the kernel panic for want of an init.
        args.append("rdinit=/nonexistent-brute-inject" if kind == "fast"
                    else "init=/nonexistent-brute-inject")
    elif inject:
        args.append("rig.inject=" + inject)
    return " ".join(args + extra.split())


def qemu_command(kind, kernel, append, run_dir, shell, timeout):
    cmd = ["timeout", "--foreground", "-k", "5", str(timeout),
           "qemu-system-x86_64", "-accel", os.environ.get("BRUTE_QEMU_ACCEL") or "tcg",
           "-cpu", "max",
           "-smp", os.environ.get("BRUTE_SMP", "2"),
           "-m", os.environ.get("BRUTE_MEMORY", MEMORY[kind]), "-nodefaults", "-display", "none", "-no-reboot",
           "-kernel", str(kernel), "-append", append]
    if shell:
        cmd += ["-serial", "mon:stdio"]
    else:
        cmd += ["-monitor", "none", "-serial", f"file:{run_dir / 'console.log'}"]
    cmd += ["-serial", f"file:{run_dir / 'results.log'}"]
    if kind == "fast":
        initrd = script("initramfs.sh")
        extra = [p for p in os.environ.get("BRUTE_INITRD_EXTRA", "").split(":") if p]
        if extra:
            # The kernel unpacks concatenated (compressed) cpio archives one after another.
            parts, initrd = [initrd] + extra, run_dir / "initrd.cpio.gz"
            with open(initrd, "wb") as out:
                for part in parts:
                    with open(part, "rb") as f:
                        shutil.copyfileobj(f, out)
        cmd += ["-initrd", str(initrd)]
    else:
        rootfs = script("rootfs.sh")
        try:
            data = script("datadisk.sh", str(run_dir / "data.ext4"))
        except subprocess.CalledProcessError:
            if not shell:
                raise
            log("system: no data disk (scripts/datadisk.sh failed), booting without /data")
            data = None
        # The root is the only NVMe namespace, so it is always nvme0n1: NVMe scans
        # namespaces asynchronously, and a second one (the data disk, as it was) came up
        # as nvme0n1 in about one boot in four. The data disk is virtio-blk, mounted by
        # its label.
        cmd += ["-drive", f"file={rootfs},if=none,id=root,format=raw,snapshot=on",
                "-device", "nvme,id=nvme0,serial=root",
                "-device", "nvme-ns,drive=root,bus=nvme0,nsid=1"]
        if data:
            cmd += ["-drive", f"file={data},if=none,id=data,format=raw",
                    "-device", "virtio-blk-pci,drive=data"]
    return cmd


def read_lines(path):
    try:
        return path.read_bytes().decode("utf-8", "replace").replace("\r", "").splitlines()
    except FileNotFoundError:
        return []


def parse_kunit(lines):
    """KTAP printed at boot: suites at indent 0, their cases at indent 4.
    Returns (counts, problems)."""
    counts, problems = Counts(), []
    started, planned, reported = False, None, 0
    case_failed = False
    cases_in_suite = 0
    for line in lines:
        indent = len(line) - len(line.lstrip(" "))
        text = line.strip()
        if indent == 0 and text.startswith(("KTAP version", "TAP version")):
            started, planned, reported = True, None, 0
            continue
        if not started:
            continue
        if indent == 0 and re.match(r"^1\.\.\d+$", text):
            planned = int(text[3:])
            continue
        m = TAP.match(text)
        if not m:
            continue
        good, desc = m.group(1) == "ok", m.group(3)
        if indent == 4:
            cases_in_suite += 1
            if "# SKIP" in desc:
                counts.skipped += 1
            elif good:
                counts.passed += 1
            else:
                counts.failed += 1
                case_failed = True
                problems.append(f"KUnit case not ok: {text}")
        elif indent == 0:
            reported += 1
            if not good:
                problems.append(f"KUnit suite not ok: {text}")
                if not case_failed:
                    counts.failed += 1
            elif cases_in_suite == 0 and "# SKIP" not in desc:
                counts.passed += 1
            case_failed, cases_in_suite = False, 0
    if planned is not None and reported < planned:
        problems.append(f"KUnit planned {planned} suites, reported {reported}")
        counts.failed += planned - reported
    return counts, problems


def parse_results(lines):
    """TAP from the result port. Returns (counts, failing lines, problems)."""
    counts, failures, problems = Counts(), [], []
    summary = None
    current = None
    for line in lines:
        line = line.strip()
        m = TAP.match(line)
        if m:
            current = None
            if m.group(1) == "not ok":
                counts.failed += 1
                current = [line]
                failures.append(current)
            elif "# SKIP" in m.group(3):
                counts.skipped += 1
            else:
                counts.passed += 1
        elif line.startswith("#"):
            if current is not None:
                current.append("  " + line)
        elif SUMMARY.match(line):
            summary = SUMMARY.match(line)
    if summary is None:
        problems.append("no summary line on the result port (guest hung, crashed or was killed)")
    else:
        said = Counts(int(summary.group(1)), int(summary.group(2)), int(summary.group(3) or 0))
        if said != counts:
            problems.append(f"summary '{summary.group(0)}' does not match the "
                            f"{counts.passed + counts.failed + counts.skipped} TAP lines")
    return counts, failures, problems


def find_splats(lines):
    kernel_lines = [l for l in lines if KERNEL_LINE.match(l)] or lines
    return [l for l in kernel_lines if any(s in l for s in SPLATS)]


def run(kind, kernel=None, tests=None, extra="", inject=None, timeout=None, shell=False):
    kernel = kernel or kernel_image()
    timeout = timeout or int(os.environ.get(f"BRUTE_{kind.upper()}_TIMEOUT")
                             or DEFAULT_TIMEOUT[kind])
    # BRUTE_RUN_NAME keeps concurrent runs of one kind apart (e.g. make demo next to check).
    run_dir = RIG / "runs" / (kind + os.environ.get("BRUTE_RUN_NAME", ""))
    shutil.rmtree(run_dir, ignore_errors=True)
    run_dir.mkdir(parents=True)
    append = cmdline(kind, tests, extra, inject, shell)
    cmd = qemu_command(kind, kernel, append, run_dir, shell, 24 * 3600 if shell else timeout)
    out = Outcome(kind, console=run_dir / "console.log")
    log(f"{kind}: booting {kernel}")
    log(f"{kind}: cmdline: {append}")
    if shell:
        subprocess.run(cmd)
        return out
    start = time.monotonic()
    try:
        rc = subprocess.run(cmd, stdin=subprocess.DEVNULL, timeout=timeout + 30).returncode
    except subprocess.TimeoutExpired:
        rc = 124
    out.seconds = time.monotonic() - start
    if rc in (124, 137):
        out.problems.append(f"guest did not finish within {timeout} s and was killed")
    elif rc != 0:
        out.problems.append(f"qemu exited with status {rc}")

    console = read_lines(out.console)
    out.tests, out.failures, problems = parse_results(read_lines(run_dir / "results.log"))
    out.problems += problems
    if any("Kernel panic" in l for l in console):
        out.problems.append("kernel panic: " +
                            next(l for l in console if "Kernel panic" in l).strip())
    splats = find_splats(console)
    if splats:
        out.problems.append(f"kernel splat on the console ({len(splats)} lines), first: "
                            + splats[0].strip())
    if kind == "fast":
        out.kunit, problems = parse_kunit([KERNEL_LINE.sub("", l) for l in console])
        out.problems += problems
    return out


def report(out, counts=True):
    """Print the verdict of one run (the counts unless told not to); when it failed, the
    reasons, the failing tests and the end of the console go to stderr."""
    if counts:
        if out.kind == "fast":
            print(out.kunit.line("kunit"), flush=True)
        print(out.tests.line(f"{out.kind}-guest"), flush=True)
    log(f"{out.kind}: guest ran {out.seconds:.1f} s (boot to power-off)")
    if out.ok:
        return
    err = sys.stderr
    print(f"\n*** {out.kind} guest FAILED", file=err)
    for p in out.problems:
        print(f"*** {p}", file=err)
    for f in out.failures:
        print("\n".join(f), file=err)
    console = read_lines(out.console)
    print(f"--- last {TAIL} of {len(console)} console lines ({out.console}) ---", file=err)
    print("\n".join(console[-TAIL:]), file=err)
    print("--- end of console ---\n", file=err, flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("kind", choices=("fast", "system"))
    ap.add_argument("--kernel", default=os.environ.get("KERNEL"))
    ap.add_argument("--tests", default=os.environ.get("BRUTE_TESTS"),
                    help="comma-separated script names (without .sh) to run alone")
    ap.add_argument("--cmdline", default=os.environ.get("BRUTE_CMDLINE", ""),
                    help="extra kernel command line arguments")
    ap.add_argument("--timeout", type=int, help="wall-clock bound in seconds")
    ap.add_argument("--inject", choices=INJECTIONS, default=os.environ.get("BRUTE_RIG_INJECT")
                    or None, help="rig self-test: make the run fail on purpose")
    ap.add_argument("--shell", action="store_true",
                    help="interactive shell on this terminal instead of the tests")
    a = ap.parse_args()
    out = run(a.kind, a.kernel, a.tests, a.cmdline, a.inject, a.timeout, a.shell)
    if a.shell:
        return 0
    report(out)
    return 0 if out.ok else 1


if __name__ == "__main__":
    sys.exit(main())
