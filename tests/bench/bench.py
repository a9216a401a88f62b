#!/usr/bin/env python3
"""make bench: the cost of Brute and the availability of a service under attack, measured on
a production config.

Boots the production kernel (scripts/kernel.sh --flavour prod: the test config without
lockdep and the other debug options, -O2, no KUnit, Landlock, Yama and AppArmor built in)
under QEMU with -icount shift=0,sleep=off (guest time advances per executed instruction, so
host load does not move the figures).

Overhead: on 1 and 2 vCPUs, with five LSM stacks, boots interleaved:
  brute       lsm=capability,landlock,yama,brute
  stack       lsm=capability,landlock,yama        (the same stack minus Brute)
  capability  lsm=capability                      (no LSM blobs: what the stack itself costs)
  aa+brute    lsm=capability,landlock,yama,apparmor,brute
  aa          lsm=capability,landlock,yama,apparmor   (Debian's stack: AppArmor, unconfined)
Without AppArmor, Brute is the stack's only LSM with a socket blob or a hook on the socket
read, write and receive paths, so its figures there include what any such LSM costs (the
blob's allocation, the hooks' calls); with AppArmor, as Debian boots, those are the stack's.
In each boot, forkbench times (one worker per vCPU) fork+exit, fork+exec+exit, the exec of a
set-user-ID program by a user (a boundary each time) and a crash (fork + SIGSEGV); netbench
times a TCP request/response loop on one connection and an accept loop (connect, accept,
close), the client in another network namespace (a veth pair: a remote peer); with Brute,
killbench times the kill of a detected hierarchy of 1,000 processes (last crash to last
process reaped). Prints minimum, median and maximum over every run of every boot, the spread
of the boots' medians, and the ratios brute/stack and stack/capability of the medians and of
the minimums.

Availability: one boot (brute, 2 vCPUs), tests/fast/src/availbench.c per scenario: a forking
TCP service (the selftests' service.c) run by a user under a supervisor that restarts it 100
ms after it exits, a benign client (a request every 50 ms) and an attacker (a crashing request
every 20 ms) in another network namespace: one attacker address; 32 addresses in one /24; 32
addresses in 32 /24s; a root service on a Unix socket attacked by a local user; and the first
scenario with Brute off (mode 0) for reference. Then response v4's shapes (issue 29; the block
"Response v4" below): a trusted load balancer, a PHP-FPM-shaped root master behind a local proxy
(seen through, or mixing clients), an MPTCP client, a loopback client of another user, UDP
framing, a service with file capabilities.

Environment: BENCH_KERNEL (default: scripts/kernel.sh --flavour prod; KERNEL, the test
kernel of make check, is not used), BENCH_BOOTS (3), BENCH_REPS (3), BENCH_FORKS (1000),
BENCH_EXECS (250), BENCH_KILL (1000), BENCH_RR (2000), BENCH_ACCEPTS (500), BENCH_AVAIL_S
(40 s per scenario; 0: no availability boot), BENCH_AVAIL_BOOTS (2), BENCH_AVAIL_LSM (the
availability boots' lsm=, default the brute stack's; lsm=capability,brute boots make check's
test kernel, which has no Landlock or Yama: its figures are then that kernel's),
BENCH_BOOT_TIMEOUT (1800 s: the bound on one boot; the test kernel, with lockdep, needs hours
for the availability boot), BENCH_VARIANTS (the stacks above to boot, by name, default all),
BENCH_SMP (the vCPU counts, default 1,2).

Plots (tests/bench/plot.py, python3-matplotlib): the availability scenarios of the first
availability boot, each on one time axis from availbench's per-second series (benign answers,
the attacker's crashes, restarts, bans), in bench-availability.png and bench-availability-v4.png,
and the cost table's ratios in bench-cost.png; into BENCH_PLOTS (default docs/img of this tree,
which the README and docs/benchmarks.md embed; the smoke form: its own work directory).

--smoke [KERNEL]: one boot of KERNEL (make check: the test kernel) with Brute in its own LSM
list, every loop with a few iterations and every availability scenario for 3 s; checks that
every figure is there, never what it is; last line "bench-smoke: N passed, N failed".
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
SMOKE = "--smoke" in sys.argv[1:]
WORK = CACHE / ("bench-smoke" if SMOKE else "bench")
PLOTS = Path(os.environ.get("BENCH_PLOTS") or (WORK / "plots" if SMOKE else TOP / "docs/img"))
sys.dont_write_bytecode = True  # no __pycache__ in the work tree
sys.path.insert(0, str(TOP / "tests/bench"))
import plot  # noqa: E402


def env(name, default, smoke):
    return int(os.environ.get(name, smoke if SMOKE else default))


BOOTS = env("BENCH_BOOTS", "3", "1")
REPS = env("BENCH_REPS", "3", "1")
FORKS = env("BENCH_FORKS", "1000", "50")
EXECS = env("BENCH_EXECS", "250", "20")
KILL = env("BENCH_KILL", "1000", "100")
RR = env("BENCH_RR", "2000", "100")
ACCEPTS = env("BENCH_ACCEPTS", "500", "50")
AVAIL_S = env("BENCH_AVAIL_S", "40", "3")
AVAIL_BOOTS = env("BENCH_AVAIL_BOOTS", "2", "1")
ALL_VARIANTS = (("brute", "lsm=capability,landlock,yama,brute"),
                ("stack", "lsm=capability,landlock,yama"),
                ("capability", "lsm=capability"),
                ("aa+brute", "lsm=capability,landlock,yama,apparmor,brute"),
                ("aa", "lsm=capability,landlock,yama,apparmor"))
# The ratios printed, where both variants ran: Brute against the stack without it, on either
# stack, and what the stack itself costs.
RATIOS = (("brute", "stack"), ("aa+brute", "aa"), ("stack", "capability"))
_wanted = os.environ.get("BENCH_VARIANTS", "")
VARIANTS = tuple(v for v in ALL_VARIANTS if not _wanted or v[0] in _wanted.split(","))
if _wanted and {v[0] for v in VARIANTS} != set(_wanted.split(",")):
    sys.exit(f"bench: BENCH_VARIANTS={_wanted}: the variants are "
             + ", ".join(n for n, _ in ALL_VARIANTS))
SMPS = tuple(int(n) for n in os.environ.get("BENCH_SMP", "1,2").split(","))
LOOPS = (("fork", "fork+exit"), ("exec", "fork+exec+exit"), ("suid", "setuid exec"),
         ("crash", "crash"), ("rr", "tcp req/resp"), ("accept", "tcp accept"))
KINDS = tuple(k for k, _ in LOOPS) + ("kill", "ukill")
# name, label, availbench arguments; the TCP service runs as user 4200 in av_srv, the clients
# in av_cli (10.198.0.2 the benign client's own /24); Unix: root's service, users 4243 (attacker)
# and 4244 (benign).
ONE = "10.100.1.2"
P24 = ",".join(f"10.101.0.{i}" for i in range(10, 42))
SPREAD = ",".join(f"10.102.{i}.2" for i in range(1, 33))
TCP = "-N /run/netns/av_srv -C /run/netns/av_cli -U 4200 -b 10.198.0.2"
SCENARIOS = (
    ("one", "one address", f"{TCP} -a 10.199.0.1:8001 -A {ONE} -- /service tcp 10.199.0.1:8001"),
    ("p24", "32 addresses, one /24",
     f"{TCP} -a 10.199.0.1:8002 -A {P24} -- /service tcp 10.199.0.1:8002"),
    ("spread", "32 addresses, 32 /24s",
     f"{TCP} -a 10.199.0.1:8003 -A {SPREAD} -- /service tcp 10.199.0.1:8003"),
    ("unix", "Unix socket, local user",
     "-k unix -a /run/avail.sock -X 4243 -B 4244 -- /service unix /run/avail.sock"),
    ("off", "one address, Brute off",
     f"{TCP} -a 10.199.0.1:8005 -A {ONE} -- /service tcp 10.199.0.1:8005"),
)

# ---- Response v4 (issue 29): the party that caused the crash pays, on the shapes real hosts have.
# Each scenario runs after the ones above, in the same boots, with the peer table flushed first;
# after it the guest appends what the kernel holds: the peers with a ban in force (bans=, ADDR:PORT
# or uid:N@PATH), the crashes counted in the load balancer's trusted entry (trusted_crashes=) and
# the (user, target) entries of the service's user 4200 (table_4200=). The clients' proxy
# (availbench -P) answers "crashed" or "down" for the service, so crashes are still counted
# right. FPM: a root master (service.c -u: workers run as the pool's user) on a Unix socket, a
# proxy of uid 33 (www-data) in av_srv in front of it; the attacker of the mixing proxy's
# scenarios sends a valid request from a second address (10.103.0.2) before each crash, so that
# the connection has carried two peers when the crash comes (-w).
AVAIL_LSM = os.environ.get("BENCH_AVAIL_LSM", "")
BOOT_TIMEOUT = int(os.environ.get("BENCH_BOOT_TIMEOUT", "1800"))
FPM = "-k unix -C /run/netns/av_cli -p /run/netns/av_srv -b 10.198.0.2"
V4_SCENARIOS = (
    ("lb", "trusted load balancer",
     f"{TCP} -a 10.199.0.1:8006 -A {ONE} -P 10.199.0.2:9006 -p /run/netns/av_cli -L 10.199.0.17 "
     "-- /service tcp 10.199.0.1:8006"),
    ("fpm", "FPM 4260, proxy 33, own conn",
     f"{FPM} -A {ONE} -Y 33 -a /run/fpm-1.sock -P 10.199.0.1:8011 "
     "-- /service -u 4260 unix /run/fpm-1.sock"),
    ("fpm33", "FPM 33, proxy 33, own conn",
     f"{FPM} -A {ONE} -Y 33 -a /run/fpm-2.sock -P 10.199.0.1:8012 "
     "-- /service -u 33 unix /run/fpm-2.sock"),
    ("fpmmix", "FPM 4260, proxy 33, mixing",
     f"{FPM} -A {ONE} -w 10.103.0.2 -m -Y 33 -a /run/fpm-3.sock -P 10.199.0.1:8013 "
     "-- /service -k -u 4260 unix /run/fpm-3.sock"),
    ("fpm33mix", "FPM 33, proxy 33, mixing",
     f"{FPM} -A {ONE} -w 10.103.0.2 -m -Y 33 -a /run/fpm-4.sock -P 10.199.0.1:8014 "
     "-- /service -k -u 33 unix /run/fpm-4.sock"),
    ("mptcp", "MPTCP client",
     f"{TCP} -M -a 10.199.0.1:8008 -A {ONE} -- /service -M tcp 10.199.0.1:8008"),
    ("loop", "loopback, another user",
     "-N /run/netns/av_srv -C /run/netns/av_srv -X 4243 -B 4244 -a 127.0.0.1:8009 "
     "-- /service tcp 127.0.0.1:8009"),
    ("udp", "UDP framing",
     f"{TCP} -F 8999 -a 10.199.0.1:8010 -A {ONE} -- /service -F udp:8999 tcp 10.199.0.1:8010"),
    ("fcaps", "file capabilities",
     f"{TCP} -c /tmp/av_fcaps -a 10.199.0.1:80 -A {ONE} -- /service tcp 10.199.0.1:80"),
    # What a crash is (issue 40): a handler that exits, a runtime that panics and exits, a
    # SIGBUS the service's own file gives (charged like a SIGSEGV).
    ("hexit", "crash handler exits",
     f"{TCP} -a 10.199.0.1:8015 -A {ONE} -- /service -H exit tcp 10.199.0.1:8015"),
    ("panic", "handler panics, exit 2",
     f"{TCP} -a 10.199.0.1:8016 -A {ONE} -- /service -H panic tcp 10.199.0.1:8016"),
    ("busown", "SIGBUS, own file",
     f"{TCP} -q bus-own -a 10.199.0.1:8017 -A {ONE} -- /service tcp 10.199.0.1:8017"),
)
V4_SETUP = r"""	# response v4 (issue 29)
	{ echo "address add 10.103.0.2/32 dev av_1"; echo "address add 10.199.0.17/32 dev av_1"; } |
		ip -n av_cli -batch - || echo "error: address setup (v4)" >$out
	echo "add 10.199.0.17" >/sys/kernel/security/brute/trusted || echo "error: trusted list" >$out
	b=/sys/kernel/security/brute
	v4facts() {
		bans=$(sed -n -e 's/^peer=\([^ ]*\) .* lport=\([0-9]*\) .*ban_left_s=[1-9].*/\1:\2/p' \
			-e 's/^peer=\([^ ]*\) .* lpath=\([^ ]*\) .*ban_left_s=[1-9].*/\1@\2/p' $b/peers | tr '\n' ,)
		echo "bans=${bans:--} trusted_crashes=$(sed -n 's/^trusted=10\.199\.0\.17\/32 .*crashes=//p' $b/trusted)" \
			"table_4200=$(grep -c '^attacker_uid=4200 ' $b/targets)"
	}"""


def v4_lines():
    """The v4 scenarios' lines of the guest's init (after the scenarios above)."""
    lines = [V4_SETUP]
    for key, _, args in V4_SCENARIOS:
        lines.append(f"\techo flush >$b/lift\n"
                     f"\techo \"avail {key} $(/availbench -d {AVAIL_S} {args}) $(v4facts)\" >$out")
    return lines


def v4_initramfs(root):
    """What the v4 lines need beyond the guest above: grep and sed."""
    for applet in ("grep", "sed"):
        if not (root / "bin" / applet).exists():
            (root / "bin" / applet).symlink_to("busybox")


def print_v4(results):
    if not any(any(k in avail for k, _, _ in V4_SCENARIOS) for avail in results):
        return
    print("\nResponse v4 (issue 29), the same boots and clients: through a load balancer the operator "
          "trusts (10.199.0.17, in the clients' namespace); a PHP-FPM-shaped root master (workers of "
          "the pool's user: 4260, or 33 as the proxy) behind a proxy of uid 33 on its Unix socket, "
          "relaying each client over a connection of its own (own conn) or every client over one "
          "(mixing; the attacker sends a valid request from a second address before each crash); "
          "an attacker over MPTCP; a local user (4243) on 127.0.0.1 while another (4244) is served; "
          "UDP framing (the benign client's requests make the service read a datagram, the "
          "attacker sends them); a copy of the service with cap_net_bind_service=+ep run by user "
          "4200 on port 80\n")
    print(f"{'scenario':<32}{'benign answered':>20}{'crashes':>9}{'per addr':>9}{'refused':>8}"
          f"{'per rand.':>10}{'restarts':>9}{'proxy refused':>14}{'alive':>6}{'trusted':>8}"
          f"{'4200 in table':>14}  bans in force after it")
    for b, avail in enumerate(results):
        for key, name, _ in V4_SCENARIOS:
            label = f"{name} #{b + 1}" if len(results) > 1 else name
            a = avail.get(key)
            if not a:
                print(f"{label:<32} (no result)")
                continue
            benign = f"{a['benign_pct']}% ({a['benign_answered']}/{a['benign_sent']})"
            print(f"{label:<32}{benign:>20}{a['crashes']:>9}{a['crashes_per_addr_max']:>9}"
                  f"{a['addrs_banned'] + '/' + a['addrs']:>8}{'max ' + a['cpr_max']:>10}"
                  f"{a['restarts']:>9}{a.get('proxy_refused', '?'):>14}{a.get('alive', '?'):>6}"
                  f"{(a.get('trusted_crashes') or '-') if key == 'lb' else '-':>8}{a.get('table_4200', '?'):>14}  "
                  f"{a.get('bans', '?')}")
        for key, name, _ in V4_SCENARIOS:
            label = f"{name} #{b + 1}" if len(results) > 1 else name
            a = avail.get(key, {})
            if a.get("cpr", "-") != "-" and int(a.get("restarts", 0)):
                print(f"  crashes per randomization, {label}: {a['cpr']}")
    print("\n(refused: the attacker's sources found refused; alive: the service answered a benign "
          "request after the attack; trusted: crashes the load balancer's trusted entry counted; "
          "4200 in table: (user, target) entries of the service's user; UDP framing's benign "
          "requests are the ones the attacker's datagrams crash: its benign share is not "
          "availability)")


def v4_smoke(availres):
    problems = []
    for key, _, _ in V4_SCENARIOS:
        a = availres[0].get(key) if availres else None
        if not a or any(f not in a for f in ("cpr_max", "benign_pct", "alive", "bans")):
            problems.append(f"no availability figures for scenario {key}")
    return problems
# ---- end of response v4's block

INIT = """#!/bin/sh
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t securityfs none /sys/kernel/security
mount -t tmpfs none /tmp
mount -t tmpfs none /run
echo 0 >/proc/sys/debug/exception-trace
out=/dev/ttyS1
lsm=$(cat /sys/kernel/security/lsm)
echo "lsm $lsm" >$out
# Two network namespaces joined by a veth pair. iproute2's ip by path: busybox's sh prefers
# its own applet, which has no netns support.
ip() { /sbin/ip "$@"; }
net() { # net NAME SUBNET: NAME_srv has SUBNET.1, NAME_cli SUBNET.2, routes 10/8 back
	ip netns add $1_srv && ip netns add $1_cli &&
	ip link add $1_0 netns $1_srv type veth peer name $1_1 netns $1_cli &&
	ip -n $1_srv addr add $2.1/24 dev $1_0 && ip -n $1_cli addr add $2.2/24 dev $1_1 &&
	ip -n $1_srv link set $1_0 up && ip -n $1_cli link set $1_1 up &&
	ip -n $1_srv link set lo up && ip -n $1_cli link set lo up &&
	ip -n $1_srv route add 10.0.0.0/8 dev $1_0
}
if [ {loops} = 1 ]; then
	net nb 10.197.0 || echo "error: network setup" >$out
	w=$(nproc)
	i=0
	while [ $i -lt {reps} ]; do
		echo "fork $(/forkbench fork {forks} $w)" >$out
		echo "exec $(/forkbench exec {execs} $w /nop)" >$out
		echo "suid $(/forkbench suid {execs} $w /nop_suid)" >$out
		echo "crash $(/forkbench crash {execs} $w)" >$out
		echo "rr $(/netbench rr {rr} /run/netns/nb_srv /run/netns/nb_cli 10.197.0.1:7001)" >$out
		echo "accept $(/netbench accept {accepts} /run/netns/nb_srv /run/netns/nb_cli 10.197.0.1:$((7002 + i)))" >$out
		echo "ukill $(/killbench -u {kill})" >$out
		case ",$lsm," in
		*,brute,*) echo "kill $(/killbench {kill})" >$out ;;
		esac
		i=$((i + 1))
	done
fi
if [ {avail} = 1 ]; then
	net av 10.199.0 || echo "error: network setup" >$out
	{
		echo "address add 10.198.0.2/32 dev av_1"
		echo "address add {one}/32 dev av_1"
		for a in $(echo {p24},{spread} | tr , ' '); do echo "address add $a/32 dev av_1"; done
	} | ip -n av_cli -batch - || echo "error: address setup" >$out
	echo "avail_min_faults $(cat /proc/sys/kernel/brute/min_faults) $(cat /proc/sys/kernel/brute/backstop_faults) $(cat /proc/sys/kernel/brute/escalate_faults)" >$out
{scenarios}
fi
echo end >$out
poweroff -f
"""


def log(msg):
    print(f"bench: {msg}", file=sys.stderr, flush=True)


def build_initramfs():
    root = WORK / "root"
    shutil.rmtree(root, ignore_errors=True)
    for d in ("bin", "sbin", "proc", "sys", "dev", "tmp", "run"):
        (root / d).mkdir(parents=True)
    (root / "var").mkdir()
    (root / "var/run").symlink_to("../run")
    shutil.copy("/bin/busybox", root / "bin/busybox")
    for applet in ("sh", "mount", "cat", "echo", "poweroff", "nproc", "tr", "sleep"):
        (root / "bin" / applet).symlink_to("busybox")
    # iproute2's ip with every library ldd lists, the loader included.
    shutil.copy("/sbin/ip", root / "sbin/ip")
    ldd = subprocess.run(["ldd", "/sbin/ip"], capture_output=True, text=True, check=True).stdout
    for lib in re.findall(r"(/\S+)", ldd):
        dest = root / lib.lstrip("/")
        if not dest.exists():
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(lib, dest)
    sources = {"forkbench": TOP / "tests/bench/forkbench.c", "nop": TOP / "tests/bench/nop.c",
               "killbench": TOP / "tests/bench/killbench.c",
               "netbench": TOP / "tests/bench/netbench.c",
               "availbench": TOP / "tests/fast/src/availbench.c",
               "service": TOP / "kernel/tools/testing/selftests/brute/service.c"}
    for prog, src in sources.items():
        subprocess.run(["gcc", "-static", "-O2", "-Wall", "-Werror", "-o", str(root / prog),
                        str(src)], check=True)
    shutil.copy(root / "nop", root / "nop_suid")
    os.chown(root / "nop_suid", 0, 0)
    (root / "nop_suid").chmod(0o4755)
    return root


def write_initramfs(root, name, loops, avail):
    scenarios = []
    for key, _, args in SCENARIOS:
        line = f"\techo \"avail {key} $(/availbench -d {AVAIL_S} {args})\" >$out"
        if key == "off":
            line = ("\techo 0 >/proc/sys/kernel/brute/mode\n" + line +
                    "\n\techo 2 >/proc/sys/kernel/brute/mode")
        scenarios.append(line)
    scenarios += v4_lines()
    text = INIT
    for k, v in (("{loops}", int(loops)), ("{avail}", int(avail)), ("{reps}", REPS),
                 ("{forks}", FORKS), ("{execs}", EXECS), ("{kill}", KILL), ("{rr}", RR),
                 ("{accepts}", ACCEPTS), ("{one}", ONE), ("{p24}", P24), ("{spread}", SPREAD),
                 ("{scenarios}", "\n".join(scenarios))):
        text = text.replace(k, str(v))
    init = root / "init"
    init.write_text(text)
    init.chmod(0o755)
    out = WORK / f"{name}.cpio.gz"
    files = subprocess.run(["find", "."], cwd=root, capture_output=True, check=True).stdout
    cpio = subprocess.run(["cpio", "-o", "-H", "newc", "--quiet"], cwd=root, input=files,
                          capture_output=True, check=True).stdout
    out.write_bytes(subprocess.run(["gzip", "-1"], input=cpio, capture_output=True,
                                   check=True).stdout)
    return out


def boot(kernel, initrd, smp, extra):
    results = WORK / "results.log"
    results.unlink(missing_ok=True)
    cmd = ["timeout", str(BOOT_TIMEOUT), "qemu-system-x86_64", "-accel", "tcg", "-cpu", "max",
           "-icount", "shift=0,sleep=off", "-m", "512", "-smp", str(smp),
           "-nographic", "-no-reboot", "-kernel", str(kernel), "-initrd", str(initrd),
           "-append", f"console=ttyS0 panic=-1 quiet kunit.enable=0 {extra}".strip(),
           "-serial", f"file:{WORK / 'console.log'}", "-serial", f"file:{results}",
           "-monitor", "none"]
    subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, check=False)
    text = results.read_text(errors="replace") if results.exists() else ""
    shutil.copy(WORK / "console.log", WORK / "console.last.log")
    if "end" not in text.split() or re.search(r"^error: ", text, re.M):
        sys.exit(f"bench: guest did not finish (smp {smp} {extra}); see "
                 f"{WORK / 'console.log'} and {results}")
    lsm = re.search(r"^lsm (.*)$", text, re.M).group(1)
    wanted = extra.split("lsm=")[1].split()[0]
    if lsm.split(",") != wanted.split(","):
        sys.exit(f"bench: asked for lsm={wanted}, the kernel booted with lsm={lsm}: {kernel} "
                 "lacks part of that stack (make bench needs the production flavour, "
                 "scripts/kernel.sh --flavour prod; make check's test kernel has no "
                 "Landlock or Yama)")
    data = {k: [] for k in KINDS}
    for kind, ns in re.findall(r"^(\w+) (\d+)$", text, re.M):
        if kind in data:
            data[kind].append(int(ns))
    avail = {}
    for key, fields in re.findall(r"^avail (\w+) (.*)$", text, re.M):
        avail[key] = dict(f.split("=", 1) for f in fields.split())
    m = re.search(r"^avail_min_faults (\d+) (\d+) (\d+)$", text, re.M)
    bounds = tuple(map(int, m.groups())) if m else None
    return lsm, data, avail, bounds


def stats(values):
    v = sorted(values)
    return v[0], statistics.median(v), v[-1]


def spread(per_boot):
    """The spread of the boots' medians: max / min - 1, in percent."""
    meds = [statistics.median(v) for v in per_boot if v]
    return (max(meds) / min(meds) - 1) * 100 if len(meds) > 1 else 0.0


def print_overhead(kernel, runs, variants):
    names = [n for n, _ in variants]
    print(f"\nBrute overhead, {kernel}")
    print(f"guest ns per iteration (-icount shift=0,sleep=off), {REPS} runs x {BOOTS} boots "
          "per figure, one worker per vCPU (tcp: one client, one server); min / median / max, "
          "and the spread of the boots' medians\n")
    ratios = [(a, b) for a, b in RATIOS if a in names and b in names]
    head = f"{'loop':<15}{'vCPUs':>5}"
    for name in names:
        head += f"{name + ' min/med/max':>29}{'±boots':>8}"
    for a, b in ratios:
        head += f"{a[:8] + '/' + b[:5] + ' med':>19}{'min':>7}"
    print(head)
    for kind, label in LOOPS:
        for smp in sorted({k[1] for k in runs}):
            if not runs.get((kind, smp, names[0])):
                continue
            row = f"{label:<15}{smp:>5}"
            s = {n: stats(sum(runs[(kind, smp, n)], [])) for n in names}
            for name in names:
                lo, med, hi = s[name]
                row += f"{f'{lo}/{med:.0f}/{hi}':>29}{spread(runs[(kind, smp, name)]):>7.1f}%"
            for a, b in ratios:
                row += f"{s[a][1] / s[b][1]:>19.3f}{s[a][0] / s[b][0]:>7.3f}"
            print(row)
    print(f"\nthe end of a hierarchy of {KILL} processes, last crash (or kill(2)) to last process "
          "reaped, guest ms, min / median / max:")
    def ms(values):
        return "/".join(f"{v / 1e6:.2f}" for v in stats(sum(values, [])))
    for smp in sorted({k[1] for k in runs}):
        killed = [n for n in names if sum(runs.get(("kill", smp, n), []), [])]
        user = [n for n in names if sum(runs.get(("ukill", smp, n), []), [])]
        print(f"  {smp} vCPU: detected and killed by Brute "
              + ", ".join(f"{n} {ms(runs[('kill', smp, n)])}" for n in killed)
              + "; SIGKILL of its process group from user space: "
              + ", ".join(f"{n} {ms(runs[('ukill', smp, n)])}" for n in user))


def print_avail(results, bounds, lsm):
    mf, bf, ef = bounds or (0, 0, 0)
    print(f"\nAvailability under attack, lsm={lsm}, 2 vCPUs, {AVAIL_S} s per scenario "
          f"(guest time), {len(results)} boot(s); min_faults {mf}, escalate_faults {ef}, "
          f"backstop_faults {bf}")
    print("a forking TCP service run by a user (Unix: by root) under a supervisor restarting it "
          "100 ms after it exits; benign client: a request every 50 ms, one connection each, from "
          "another /24 (Unix: another user); attacker: a crashing request every 20 ms, rotating "
          "over its addresses, skipping those found banned (a ban: a connection request not "
          "answered within 500 ms, or EPERM)\n")
    print(f"{'scenario':<26}{'benign answered':>20}{'in the attack':>15}{'crashes':>9}"
          f"{'per addr':>9}{'banned':>8}{'per randomization':>19}{'restarts':>9}"
          f"{'1st crash→ban':>15}{'→all banned':>13}{'→last crash':>13}")
    for b, avail in enumerate(results):
        for key, name, _ in SCENARIOS:
            label = f"{name} #{b + 1}" if len(results) > 1 else name
            a = avail.get(key)
            if not a:
                print(f"{label:<26} (no result)")
                continue
            def ms(v):
                return "-" if int(v) < 0 else f"{int(v)} ms"
            benign = f"{a['benign_pct']}% ({a['benign_answered']}/{a['benign_sent']})"
            print(f"{label:<26}{benign:>20}{a['window_pct'] + '%':>15}{a['crashes']:>9}"
                  f"{a['crashes_per_addr_max']:>9}{a['addrs_banned'] + '/' + a['addrs']:>8}"
                  f"{'max ' + a['cpr_max']:>19}{a['restarts']:>9}{ms(a['first_ban_ms']):>15}"
                  f"{ms(a['all_banned_ms']):>13}{ms(a['stopped_ms']):>13}")
        for key, name, _ in SCENARIOS:
            label = f"{name} #{b + 1}" if len(results) > 1 else name
            a = avail.get(key, {})
            if a.get("cpr", "-") != "-":
                print(f"  crashes per randomization, {label}: {a['cpr']}")
    print("\n(benign answered: over the whole run; in the attack: the benign requests sent between "
          "the attacker's first and last crash; per addr: the most crashes one attacker address "
          "got; per randomization: crashes between two executions of the service; times are the "
          "attacker's view: from its first crash to the start of its first refused request, to "
          "the request that found its last address banned, to its last crash)")


def cost_rows(runs, variants):
    """The cost table's ratios of the medians, for plot.cost()."""
    names = [n for n, _ in variants]
    rows = []
    for kind, label in LOOPS:
        for smp in sorted({k[1] for k in runs}):
            if not runs.get((kind, smp, names[0])):
                continue
            med = {n: statistics.median(sum(runs[(kind, smp, n)], [])) for n in names}
            rows.append((label, smp, {f"{a}/{b}": med[a] / med[b] for a, b in RATIOS
                                      if a in names and b in names and a != "stack"}))
    return rows


def write_plots(runs, variants, availres, command):
    """The PNGs of this run (plot.py): the paths written."""
    note = plot.provenance(command, TOP)
    written = []
    rows = cost_rows(runs, variants)
    if rows and any(r[2] for r in rows):
        written.append(plot.cost(rows, str(PLOTS / "bench-cost.png"),
                                 f"{note}: brute/stack and aa+brute/aa, {REPS} runs x "
                                 f"{BOOTS} boots per figure"))
    if availres:
        for name, group in (("bench-availability.png", SCENARIOS),
                            ("bench-availability-v4.png", V4_SCENARIOS)):
            panels = [(label, plot.parse_series(availres[0][key].get("series")))
                      for key, label, _ in group if key in availres[0]]
            if panels:
                written.append(plot.availability(
                    panels, str(PLOTS / name),
                    f"{note}: {AVAIL_S} s per scenario, 2 vCPUs, the first availability boot"))
    for path in written:
        print(f"plot: {path}")
    return written


def smoke_checks(runs, availres, bounds, plots):
    """The smoke checks that every figure is there, and every plot; it asserts no value."""
    problems = []
    for name in ("bench-availability.png", "bench-availability-v4.png"):
        if str(PLOTS / name) not in plots:
            problems.append(f"no plot {PLOTS / name}")
    for kind in KINDS:
        if not runs.get((kind, 1, "brute")):
            problems.append(f"no {kind} figure")
    for key, _, _ in SCENARIOS:
        a = availres[0].get(key) if availres else None
        if not a or "cpr_max" not in a or "benign_pct" not in a or "series" not in a:
            problems.append(f"no availability figures for scenario {key}")
    problems += v4_smoke(availres)
    if not bounds:
        problems.append("no tunables read")
    console = (WORK / "console.log").read_text(errors="replace")
    sys.path.insert(0, str(TOP / "tests/rig"))
    import guest  # noqa: E402  (the rig's list of splats)
    splats = [ln for ln in console.splitlines() if any(s in ln for s in guest.SPLATS)]
    for splat in splats[:5]:
        problems.append(f"kernel splat on the console ({WORK / 'console.log'}): {splat.strip()}")
    for p in problems:
        print(f"not ok - {p}")
    print(f"bench-smoke: {0 if problems else 1} passed, {1 if problems else 0} failed")
    return 1 if problems else 0


def main():
    args = [a for a in sys.argv[1:] if a != "--smoke"]
    if SMOKE:
        if not args:
            sys.exit("usage: bench.py --smoke KERNEL")
        kernel = args[0]
    else:
        kernel = os.environ.get("BENCH_KERNEL") or subprocess.run(
            [str(TOP / "scripts/kernel.sh"), "--flavour", "prod"], capture_output=True,
            text=True, check=True).stdout.strip().splitlines()[-1]
    WORK.mkdir(parents=True, exist_ok=True)
    root = build_initramfs()
    v4_initramfs(root)
    start = time.monotonic()
    runs, availres, bounds, avail_lsm = {}, [], None, ""
    if SMOKE:
        # One boot: the kernel's own LSM list with Brute (the test kernel has no Landlock/Yama).
        variants = (("brute", "lsm=capability,brute"),)
        initrd = write_initramfs(root, "smoke", True, True)
        lsm, data, avail, bounds = boot(kernel, initrd, 1, variants[0][1] + " loglevel=7")
        for kind, values in data.items():
            runs.setdefault((kind, 1, "brute"), []).append(values)
        availres.append(avail)
        print_overhead(kernel, runs, variants)
        print_avail(availres, bounds, lsm)
        print_v4(availres)
        plots = write_plots(runs, variants, availres, "bench.py --smoke")
        print(f"\n({time.monotonic() - start:.0f} s)")
        return smoke_checks(runs, availres, bounds, plots)
    loops = write_initramfs(root, "loops", True, False)
    for b in range(BOOTS):
        for smp in SMPS:
            for name, extra in VARIANTS:
                lsm, data, _, _ = boot(kernel, loops, smp, extra)
                for kind, values in data.items():
                    runs.setdefault((kind, smp, name), []).append(values)
                log(f"boot {b + 1}/{BOOTS} smp {smp} {name}: " + ", ".join(
                    f"{k} {min(v)}" for k, v in data.items() if v) + " ns (minimums)")
    if AVAIL_S > 0:
        initrd = write_initramfs(root, "avail", False, True)
        for b in range(AVAIL_BOOTS):
            avail_lsm, _, avail, bounds = boot(kernel, initrd, 2, AVAIL_LSM or VARIANTS[0][1])
            availres.append(avail)
            log(f"availability boot {b + 1}/{AVAIL_BOOTS}: " + ", ".join(
                f"{k} {a.get('benign_pct')}%" for k, a in avail.items()))
    print_overhead(kernel, runs, VARIANTS)
    if availres:
        print_avail(availres, bounds, avail_lsm)
        print_v4(availres)
    write_plots(runs, VARIANTS, availres, "make bench")
    print(f"\n({time.monotonic() - start:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
