#!/usr/bin/env python3
"""make bench: the cost of Brute on fork and exec, measured side by side.

Boots the fast test kernel under QEMU with -icount shift=0,sleep=off (guest time
advances per executed instruction, so host load does not move the figures) with
Brute enabled and with `lsm=capability` (Brute not initialized, same kernel), on
1 and 2 vCPUs, boots interleaved. In each boot, forkbench times a fork+exit loop
and a fork+exec+exit loop (one worker per vCPU, all in one hierarchy) several
times; the figure per variant is the minimum over every repetition of every
boot. Prints ns per iteration and the ratio brute / no brute.

Environment: KERNEL (default: scripts/kernel.sh), BENCH_BOOTS (2), BENCH_REPS (6),
BENCH_FORKS (1000), BENCH_EXECS (250).
"""
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

TOP = Path(__file__).resolve().parents[2]
CACHE = Path(os.environ.get("BRUTE_CACHE") or
             Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "brute")
WORK = CACHE / "bench"
BOOTS = int(os.environ.get("BENCH_BOOTS", "2"))
REPS = int(os.environ.get("BENCH_REPS", "6"))
FORKS = int(os.environ.get("BENCH_FORKS", "1000"))
EXECS = int(os.environ.get("BENCH_EXECS", "250"))
VARIANTS = (("brute", ""), ("no brute", "lsm=capability"))

INIT = """#!/bin/sh
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t securityfs none /sys/kernel/security
out=/dev/ttyS1
echo "lsm $(cat /sys/kernel/security/lsm)" >$out
w=$(nproc)
i=0
while [ $i -lt {reps} ]; do
	echo "fork $(/forkbench fork {forks} $w)" >$out
	echo "exec $(/forkbench exec {execs} $w /nop)" >$out
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
    for d in ("bin", "proc", "sys", "dev"):
        (root / d).mkdir(parents=True)
    shutil.copy("/bin/busybox", root / "bin/busybox")
    for applet in ("sh", "mount", "cat", "echo", "poweroff", "nproc"):
        (root / "bin" / applet).symlink_to("busybox")
    for prog in ("forkbench", "nop"):
        subprocess.run(["gcc", "-static", "-O2", "-Wall", "-Werror", "-o", str(root / prog),
                        str(TOP / "tests/bench" / f"{prog}.c")], check=True)
    init = root / "init"
    init.write_text(INIT.replace("{reps}", str(REPS)).replace("{forks}", str(FORKS))
                    .replace("{execs}", str(EXECS)))
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
    cmd = ["timeout", "600", "qemu-system-x86_64", "-accel", "tcg", "-cpu", "max",
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
    data = {"fork": [], "exec": []}
    for kind, ns in re.findall(r"^(fork|exec) (\d+)$", text, re.M):
        data[kind].append(int(ns))
    return lsm, data


def main():
    kernel = os.environ.get("KERNEL") or subprocess.run(
        [str(TOP / "scripts/kernel.sh")], capture_output=True, text=True, check=True
    ).stdout.strip().splitlines()[-1]
    WORK.mkdir(parents=True, exist_ok=True)
    initrd = build_initramfs()
    best = {}
    start = time.monotonic()
    for b in range(BOOTS):
        for smp in (1, 2):
            for name, extra in VARIANTS:
                lsm, data = boot(kernel, initrd, smp, extra)
                if ("brute" in lsm.split(",")) != (name == "brute"):
                    sys.exit(f"bench: variant '{name}' booted with lsm={lsm}")
                for kind, values in data.items():
                    key = (kind, smp, name)
                    best[key] = min(values + ([best[key]] if key in best else []))
                log(f"boot {b + 1}/{BOOTS} smp {smp} {name}: fork {min(data['fork'])} ns, "
                    f"exec {min(data['exec'])} ns")
    print(f"\nBrute overhead, {kernel}")
    print(f"guest time per iteration (-icount shift=0), minimum of {REPS} runs x {BOOTS} boots"
          f", one worker per vCPU\n")
    print(f"{'loop':<18}{'vCPUs':>6}{'brute ns':>12}{'no brute ns':>14}{'ratio':>9}")
    for kind, label in (("fork", "fork+exit"), ("exec", "fork+exec+exit")):
        for smp in (1, 2):
            on, off = best[(kind, smp, "brute")], best[(kind, smp, "no brute")]
            print(f"{label:<18}{smp:>6}{on:>12}{off:>14}{on / off:>9.3f}")
    print(f"\n({time.monotonic() - start:.0f} s)")


if __name__ == "__main__":
    main()
