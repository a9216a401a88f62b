#!/usr/bin/env python3
"""make bench: real services under attack (issue 30), the full form of tests/system/5?-services-*.sh.

Boots the system guest (Debian bookworm with Debian's nginx, php8.2-fpm, apache2, openssh-server,
postfix and dovecot: scripts/rootfs.sh) on the bench kernel with rig.services=full: every case of
tests/services/services.sh runs four times longer than in make check (40 s per case, 60 s for a
botnet, 100 s for the ordinary bug, with backstop_faults at its default), and this prints one row
per case from the guest's "# SVC NAME ..." figures: each benign client's answers, the attacker's
crashes (in all, the most per address), its addresses found banned, the crashes per execution of
the service's main process (randomization), the restarts, the units' states, the kernel's records
(crashes, by source or input, peer and backstop attacks, kills, peers banned) and how many of the
incidents reached ausearch -k brute, the journal with the unit, and the SIEM.  The guest's
assertions (response v4's outcomes) are counted, not required: this is a benchmark.

Real time (no -icount): these are outcomes and shares, not durations.  The console and results are
in $BRUTE_CACHE/rig/runs/system-services-bench/.

Environment: BENCH_KERNEL (default: scripts/kernel.sh --flavour prod, as tests/bench/bench.py),
BENCH_SERVICES (comma-separated case names to run; default all), BENCH_SERVICES_TIMEOUT (the
guest's bound, 5400 s), BRUTE_CMDLINE, BRUTE_CACHE.
"""
import os
import subprocess
import sys
import time
from pathlib import Path

TOP = Path(__file__).resolve().parents[2]
sys.dont_write_bytecode = True  # no __pycache__ in the work tree
sys.path.insert(0, str(TOP / "tests/rig"))
import guest  # noqa: E402

SCRIPTS = "50-services-web,51-services-mail"


def parse(lines):
    """The '# SVC NAME k=v ...' diagnostics: {name: {k: v}} in the order seen."""
    cases = {}
    for line in lines:
        line = line.strip()
        if not line.startswith("# SVC "):
            continue
        words = line[6:].split()
        fields = dict(w.split("=", 1) for w in words[1:] if "=" in w)
        cases[words[0]] = fields
    return cases


def benign_of(fields):
    """The benign clients' answers: 'name pct% (a/s)' for each."""
    out = []
    for k, v in fields.items():
        if "%(" in v and k not in ("crashes",):
            out.append(f"{k} {v.replace('%(', '% (')}")
    return ", ".join(out) or "-"


def lost_of(fields):
    """Where the benign clients' other requests went: 'name down:D+banned:B+other:O gap G ms'."""
    out = []
    for k, v in fields.items():
        c = k[:-len("_lost")]
        if k.endswith("_lost") and "%(" in fields.get(c, ""):
            out.append(f"{c} {v}, longest gap {fields.get(c + '_gap_ms', '-')} ms")
    return "; ".join(out)


def main():
    kernel = os.environ.get("BENCH_KERNEL") or subprocess.run(
        [str(TOP / "scripts/kernel.sh"), "--flavour", "prod"], capture_output=True, text=True,
        check=True).stdout.strip().splitlines()[-1]
    os.environ["BRUTE_RUN_NAME"] = "-services-bench"
    extra = " ".join(filter(None, ["rig.services=full rig.timeout=0",
                                   "rig.services.only=" + os.environ["BENCH_SERVICES"]
                                   if os.environ.get("BENCH_SERVICES") else "",
                                   os.environ.get("BRUTE_CMDLINE", "")]))
    start = time.monotonic()
    out = guest.run("system", kernel, SCRIPTS, extra, None,
                    int(os.environ.get("BENCH_SERVICES_TIMEOUT", "5400")))
    results = guest.read_lines(out.console.parent / "results.log")
    cases = parse(results)
    print(f"\nReal services under attack (issue 30), {kernel}, system guest, real time; "
          "tests/services/services.sh with rig.services=full\n")
    head = (f"{'case':<16}{'benign answered':<44}{'crashes':>8}{'/addr':>6}{'banned':>8}"
            f"{'per rand.':>10}{'restarts':>9}  {'units':<30}{'k: crashes':>11}  "
            f"{'sources':<22}{'peer/backstop/kills':>20}  {'peers banned':<28}"
            f"{'reported (rec/aus/jrn+unit/siem)':>34}")
    print(head)

    def restarts_of(f):
        # new main pids, and "+Nx": the same main process executed again (a reload)
        r = f.get('watch_restarts', '-')
        x = f.get('watch_reexecs', '0')
        return r if x in ('0', '') else f"{r}+{x}x"

    for name, f in cases.items():
        rep = (f"{f.get('k_attacks', f.get('journal_attacks', '-'))}"
               f"/{f.get('ausearch_attacks', '-')}/{f.get('journal_attacks', '-')}"
               f"+{f.get('journal_attacks_unit', '-')}/{f.get('siem_attacks', '-')}")
        print(f"{name:<16}{benign_of(f):<44}{f.get('crashes', '-'):>8}"
              f"{f.get('crashes_per_addr_max', '-'):>6}"
              f"{f.get('addrs_banned', '-') + '/' + f.get('addrs', '-'):>8}"
              f"{f.get('watch_cpr_max', '-'):>10}{restarts_of(f):>9}  "
              f"{f.get('units', '-') + (' LIMIT' if f.get('start_limit_hits', '0') != '0' else ''):<30}"
              f"{f.get('k_crashes', '-'):>11}  {f.get('k_sources', '-') or '-':<22}"
              f"{f.get('k_attack_peer', '-') + '/' + f.get('k_attack_backstop', '-') + '/' + f.get('k_kills', '-'):>20}"
              f"  {f.get('k_banned', '-') or '-':<28}{rep:>34}")
        if lost_of(f):
            print(f"{'':<16}lost: {lost_of(f)}")
    print("\n(benign answered: over the whole case, per client: 'benign' sends its next "
          "request 50 ms after the last ended (closed loop: refused at once while the service is "
          "down, it sends more requests then), 'users' one every 200 ms whatever became of the "
          "others (open loop, as independent users' arrive: its share is the time the service "
          "answered); crashes: what the attacker saw, /addr the most "
          "per address; banned: its addresses found banned; per rand.: the most crashes of one "
          "execution of the service's main process; restarts: new main processes; units: their "
          "state after the case, LIMIT if systemd's start limit was hit; k: the kernel's BRUTE_CRASH "
          "records (once a hierarchy's attack is detected its crashes are not recorded one by one), "
          "their source= (v3) or input= (v4); peer/backstop/kills: BRUTE_ATTACK records and "
          "processes killed; reported: attack records in audit.log / found by ausearch -k brute / "
          "journal entries + those naming the crashing unit / SIEM alerts; lost: the benign "
          "requests not answered, the service down (refused, reset, a 5xx of the proxy), refused "
          "as banned, or other (crashed with the attacker's, timed out), and the longest time "
          "without an answer)")
    print(f"\nguest assertions (response v4's outcomes): {out.tests.passed} passed, "
          f"{out.tests.failed} failed")
    for fail in out.failures:
        print("  " + fail[0])
    if out.problems:
        print("guest problems: " + "; ".join(out.problems))
    print(f"\n({time.monotonic() - start:.0f} s)")
    return 0 if cases else 1


if __name__ == "__main__":
    sys.exit(main())
