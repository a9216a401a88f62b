#!/usr/bin/env python3
"""make bench: the cost of Brute, measured side by side on a production config.

Boots the production kernel (scripts/kernel.sh --flavour prod: the test config without
lockdep and the other debug options, -O2, no KUnit, Landlock and Yama built in) under QEMU
with -icount shift=0,sleep=off (guest time advances per executed instruction, so host load
does not move the figures), on 1 and 2 vCPUs, with three LSM stacks, boots interleaved:
  brute       lsm=capability,landlock,yama,brute
  stack       lsm=capability,landlock,yama        (the same stack minus Brute)
  capability  lsm=capability                      (no LSM blobs: what the stack itself costs)
In each boot, forkbench times (one worker per vCPU) fork+exit, fork+exec+exit, the exec of a
set-user-ID program by a user (a boundary each time) and a crash (fork + SIGSEGV); with
Brute, killbench times the kill of a detected hierarchy of 1,000 processes (last crash to last
process reaped). Prints minimum, median and maximum over every run of every boot, and the
ratios brute/stack and stack/capability of the medians and of the minimums.

Environment: KERNEL (default: scripts/kernel.sh --flavour prod), BENCH_BOOTS (2),
BENCH_REPS (5), BENCH_FORKS (1000), BENCH_EXECS (250), BENCH_KILL (1000).
"""
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

TOP = Path(__file__).resolve().parents[2]
CACHE = Path(os.environ.get("BRUTE_CACHE") or
             Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "brute")
WORK = CACHE / "bench"
BOOTS = int(os.environ.get("BENCH_BOOTS", "2"))
REPS = int(os.environ.get("BENCH_REPS", "5"))
FORKS = int(os.environ.get("BENCH_FORKS", "1000"))
EXECS = int(os.environ.get("BENCH_EXECS", "250"))
KILL = int(os.environ.get("BENCH_KILL", "1000"))
VARIANTS = (("brute", "lsm=capability,landlock,yama,brute"),
            ("stack", "lsm=capability,landlock,yama"),
            ("capability", "lsm=capability"))
LOOPS = (("fork", "fork+exit"), ("exec", "fork+exec+exit"), ("suid", "setuid exec"),
         ("crash", "crash"))

INIT = """#!/bin/sh
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t securityfs none /sys/kernel/security
mount -t tmpfs none /tmp
echo 0 >/proc/sys/debug/exception-trace
out=/dev/ttyS1
lsm=$(cat /sys/kernel/security/lsm)
echo "lsm $lsm" >$out
w=$(nproc)
i=0
while [ $i -lt {reps} ]; do
	echo "fork $(/forkbench fork {forks} $w)" >$out
	echo "exec $(/forkbench exec {execs} $w /nop)" >$out
	echo "suid $(/forkbench suid {execs} $w /nop_suid)" >$out
	echo "crash $(/forkbench crash {execs} $w)" >$out
	echo "ukill $(/killbench -u {kill})" >$out
	case ",$lsm," in
	*,brute,*) echo "kill $(/killbench {kill})" >$out ;;
	esac
	i=$((i + 1))
done
echo end >$out
poweroff -f
"""


def log(msg):
    print(f"bench: {msg}", file=sys.stderr, flush=True)


def build_initramfs():
    root = WORK / "root"
    shutil.rmtree(root, ignore_errors=True)
    for d in ("bin", "proc", "sys", "dev", "tmp"):
        (root / d).mkdir(parents=True)
    shutil.copy("/bin/busybox", root / "bin/busybox")
    for applet in ("sh", "mount", "cat", "echo", "poweroff", "nproc"):
        (root / "bin" / applet).symlink_to("busybox")
    for prog in ("forkbench", "nop", "killbench"):
        subprocess.run(["gcc", "-static", "-O2", "-Wall", "-Werror", "-o", str(root / prog),
                        str(TOP / "tests/bench" / f"{prog}.c")], check=True)
    shutil.copy(root / "nop", root / "nop_suid")
    os.chown(root / "nop_suid", 0, 0)
    (root / "nop_suid").chmod(0o4755)
    init = root / "init"
    init.write_text(INIT.replace("{reps}", str(REPS)).replace("{forks}", str(FORKS))
                    .replace("{execs}", str(EXECS)).replace("{kill}", str(KILL)))
    init.chmod(0o755)
    out = WORK / "initramfs.cpio.gz"
    files = subprocess.run(["find", "."], cwd=root, capture_output=True, check=True).stdout
    cpio = subprocess.run(["cpio", "-o", "-H", "newc", "--quiet"], cwd=root, input=files,
                          capture_output=True, check=True).stdout
    out.write_bytes(subprocess.run(["gzip", "-1"], input=cpio, capture_output=True,
                                   check=True).stdout)
    return out


def boot(kernel, initrd, smp, extra):
    results = WORK / "results.log"
    results.unlink(missing_ok=True)
    cmd = ["timeout", "1200", "qemu-system-x86_64", "-accel", "tcg", "-cpu", "max",
           "-icount", "shift=0,sleep=off", "-m", "512", "-smp", str(smp),
           "-nographic", "-no-reboot", "-kernel", str(kernel), "-initrd", str(initrd),
           "-append", f"console=ttyS0 panic=-1 quiet kunit.enable=0 {extra}".strip(),
           "-serial", f"file:{WORK / 'console.log'}", "-serial", f"file:{results}",
           "-monitor", "none"]
    subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, check=False)
    text = results.read_text(errors="replace") if results.exists() else ""
    if "end" not in text.split():
        sys.exit(f"bench: guest did not finish (smp {smp} {extra}); see {WORK / 'console.log'}")
    lsm = re.search(r"^lsm (.*)$", text, re.M).group(1)
    data = {k: [] for k, _ in LOOPS + (("kill", ""), ("ukill", ""))}
    for kind, ns in re.findall(r"^(fork|exec|suid|crash|kill|ukill) (\d+)$", text, re.M):
        data[kind].append(int(ns))
    return lsm, data


def stats(values):
    v = sorted(values)
    return v[0], statistics.median(v), v[-1]


def main():
    kernel = os.environ.get("KERNEL") or subprocess.run(
        [str(TOP / "scripts/kernel.sh"), "--flavour", "prod"], capture_output=True, text=True,
        check=True).stdout.strip().splitlines()[-1]
    WORK.mkdir(parents=True, exist_ok=True)
    initrd = build_initramfs()
    runs = {}
    start = time.monotonic()
    for b in range(BOOTS):
        for smp in (1, 2):
            for name, extra in VARIANTS:
                lsm, data = boot(kernel, initrd, smp, extra)
                if lsm.split(",") != extra[4:].split(","):
                    sys.exit(f"bench: variant '{name}' ({extra}) booted with lsm={lsm}")
                for kind, values in data.items():
                    runs.setdefault((kind, smp, name), []).extend(values)
                log(f"boot {b + 1}/{BOOTS} smp {smp} {name}: " + ", ".join(
                    f"{k} {min(v)}" for k, v in data.items() if v) + " ns (minimums)")
    print(f"\nBrute overhead, {kernel}")
    print(f"guest ns per iteration (-icount shift=0,sleep=off), {REPS} runs x {BOOTS} boots "
          "per figure, one worker per vCPU; min / median / max\n")
    head = f"{'loop':<16}{'vCPUs':>5}"
    for name, _ in VARIANTS:
        head += f"{name + ' min/med/max':>30}"
    print(head + f"{'brute/stack med':>17}{'min':>7}{'stack/cap med':>15}{'min':>7}")
    for kind, label in LOOPS:
        for smp in (1, 2):
            row = f"{label:<16}{smp:>5}"
            s = {n: stats(runs[(kind, smp, n)]) for n, _ in VARIANTS}
            for name, _ in VARIANTS:
                lo, med, hi = s[name]
                row += f"{f'{lo}/{med:.0f}/{hi}':>30}"
            row += f"{s['brute'][1] / s['stack'][1]:>17.3f}{s['brute'][0] / s['stack'][0]:>7.3f}"
            row += f"{s['stack'][1] / s['capability'][1]:>15.3f}"
            row += f"{s['stack'][0] / s['capability'][0]:>7.3f}"
            print(row)
    print(f"\nthe end of a hierarchy of {KILL} processes, last crash (or kill(2)) to last process "
          "reaped, guest ms, min / median / max:")
    for smp in (1, 2):
        brute = stats(runs[("kill", smp, "brute")])
        user = {n: stats(runs[("ukill", smp, n)]) for n, _ in VARIANTS}
        print(f"  {smp} vCPU: detected and killed by Brute "
              + "/".join(f"{v / 1e6:.2f}" for v in brute)
              + "; SIGKILL of its process group from user space: "
              + ", ".join(f"{n} " + "/".join(f"{v / 1e6:.2f}" for v in user[n])
                          for n, _ in VARIANTS))
    print(f"\n({time.monotonic() - start:.0f} s)")


if __name__ == "__main__":
    main()
