#!/usr/bin/env python3
"""make demo: a fork brute-force attack on a network service, with Brute off and on.

Boots the system guest (tests/rig/guest.py; the kernel and the Debian image are built when
missing) with only tests/system/40-demo.sh and `rig.demo=full` on the kernel command line:
the guest runs the full demo (tests/demo/demo.sh) and reports its transcripts and the
operator's view as "# demo| " diagnostics on the result port.  This prints them, then the
off/on table, and last the path of the timeline it plots from the two runs' per-second counts
(tests/bench/plot.py: the legitimate client's answers, the attacker's crashes and dropped
connection requests, Brute off and on): demo-timeline.png beside the run's console.  Exit status 0 when the attack succeeded with Brute off and did not complete
with Brute on (and every assertion of 40-demo.sh passed).

Environment: as guest.py (KERNEL, BRUTE_CMDLINE, BRUTE_CACHE, BRUTE_RUN_NAME, ...);
BRUTE_DEMO_TIMEOUT bounds the guest (default 900 s).
"""
import os
import sys
import time
from pathlib import Path

TOP = Path(__file__).resolve().parents[2]
sys.dont_write_bytecode = True  # no __pycache__ in the work tree
sys.path.insert(0, str(TOP / "tests" / "rig"))
sys.path.insert(0, str(TOP / "tests" / "bench"))
import guest  # noqa: E402
import plot  # noqa: E402

PREFIX = "# demo| "
RULE = "=" * 78


def fields(line):
    return dict(w.split("=", 1) for w in line.split() if "=" in w)


def table(off, on):
    def col(r, key, fmt=str):
        return fmt(r[key]) if key in r else "?"

    def bytes_(r):
        s = f"{r.get('bytes', '?')} of 7"
        if r.get("outcome") != "pwned":
            s += f" (at most {r.get('max_bytes', '?')} at once)"
        return s

    def outcome(r):
        if r.get("outcome") == "pwned":
            return "PWNED: control reached" + (" (marker file written)"
                                               if r.get("marker") == "yes" else "")
        if r.get("outcome") == "stopped":
            return ("stopped: attacker banned, attack never completed"
                    if r.get("banned") == "yes" else "stopped: attack never completed")
        return "?"

    def peers(r):
        n = r.get("peer_bans", "?")
        return f"{n} ({r['banned_peer']})" if r.get("banned_peer", "none") != "none" else n

    def benign(r):
        try:
            sent, answered = int(r["benign_sent"]), int(r["benign_answered"])
        except (KeyError, ValueError):
            return "?"
        pct = 100.0 * answered / sent if sent else 0.0
        return f"{answered} of {sent} ({pct:.1f} %)"

    rows = [
        ("attempts (one connection each)", col(off, "attempts"), col(on, "attempts")),
        ("crashes (closed without reply)", col(off, "crashes"), col(on, "crashes")),
        ("canary bytes recovered", bytes_(off), bytes_(on)),
        ("service restarts by systemd", col(off, "service_restarts"),
         col(on, "service_restarts")),
        ("attacks detected (1713)", col(off, "attacks_detected"),
         col(on, "attacks_detected")),
        ("peers banned (1718)", peers(off), peers(on)),
        ("its requests dropped after the ban", col(off, "dropped"), col(on, "dropped")),
        ("processes killed (1714)", col(off, "processes_killed"),
         col(on, "processes_killed")),
        ("benign requests answered meanwhile", benign(off), benign(on)),
        ("outcome", outcome(off), outcome(on)),
        ("time", col(off, "seconds", lambda s: f"{s} s"),
         col(on, "seconds", lambda s: f"{s} s")),
    ]
    w0 = max(len(r[0]) for r in rows)
    w1 = max(len(r[1]) for r in rows + [("", "Brute off (mode=0)")])
    out = [f"{'':<{w0}}  {'Brute off (mode=0)':<{w1}}  Brute on (mode=2)",
           f"{'-' * w0}  {'-' * w1}  {'-' * 33}"]
    out += [f"{a:<{w0}}  {b:<{w1}}  {c}" for a, b, c in rows]
    return "\n".join(out)


def timeline(off, on, path):
    """The two runs' per-second counts (DEMO-RESULT's *_s fields) as one plot; its path, or
    why there is none."""
    def run(r):
        try:
            offset = float(r["t0"]) - float(r["benign_t0"])
        except (KeyError, ValueError):
            return None
        return {"sent": plot.parse_counts(r.get("benign_sent_s")),
                "answered": plot.parse_counts(r.get("benign_answered_s")),
                "crashes": plot.parse_counts(r.get("crashes_s")),
                "dropped": plot.parse_counts(r.get("dropped_s")),
                "offset": offset,
                "pwned_s": float(r["seconds"]) if r.get("outcome") == "pwned" else None}
    runs = run(off), run(on)
    if None in runs:
        return "no timeline: a run reported no per-second counts"
    try:
        return plot.demo_timeline(runs[0], runs[1], str(path), plot.provenance("make demo", TOP))
    except (ImportError, ValueError, OSError) as e:
        return f"no timeline: {e}"


def main():
    start = time.monotonic()
    extra = " ".join(filter(None, ["rig.demo=full rig.timeout=0",
                                   os.environ.get("BRUTE_CMDLINE", "")]))
    timeout = int(os.environ.get("BRUTE_DEMO_TIMEOUT", "900"))
    print("demo: booting the system guest with tests/system/40-demo.sh (rig.demo=full); "
          "under QEMU TCG this takes ~4-5 minutes", flush=True)
    out = guest.run("system", kernel=os.environ.get("KERNEL"), tests="40-demo",
                    extra=extra, timeout=timeout)
    results = guest.read_lines(out.console.parent / "results.log")

    transcript = [l[len(PREFIX):] for l in results if l.startswith(PREFIX)]
    runs = {}
    for line in transcript:
        if line.startswith("DEMO-RESULT "):
            r = fields(line)
            runs[r.get("mode")] = r
    print()
    for line in transcript:
        if line.startswith("DEMO-RESULT "):
            continue
        if line.startswith("=== "):
            print(f"\n{line[4:]}\n{'-' * min(len(line) - 4, 78)}")
        else:
            print(line)
    off, on = runs.get("0", {}), runs.get("2", {})
    print(f"\n{RULE}\nBrute demo: fork brute force on a forking TCP service "
          f"(canary byte by byte, then the return address)\n{RULE}")
    print(table(off, on))
    print(f"\nbounds of each run: {on.get('bound_attempts', '?')} attempts or "
          f"{on.get('bound_seconds', '?')} s (Brute on), {off.get('bound_attempts', '?')} or "
          f"{off.get('bound_seconds', '?')} s (off), whichever comes first; demo wall time {time.monotonic() - start:.0f} s "
          f"(guest boot to power-off {out.seconds:.0f} s)")

    picture = timeline(off, on, out.console.parent / "demo-timeline.png")
    guest.report(out)

    def benign_ok(r):
        try:
            return int(r["benign_answered"]) * 100 >= int(r["benign_sent"]) * 99
        except (KeyError, ValueError):
            return False

    good = (out.ok and off.get("outcome") == "pwned" and off.get("marker") == "yes"
            and on.get("outcome") == "stopped" and on.get("marker") == "no"
            and benign_ok(on))
    print(f"demo: {'as expected' if good else 'FAILED'}: attack "
          f"{'succeeded' if off.get('outcome') == 'pwned' else 'did NOT succeed'} with Brute "
          f"off, {'did not complete' if on.get('outcome') == 'stopped' else 'was NOT stopped'} "
          f"with Brute on, the legitimate client {'kept' if benign_ok(on) else 'did NOT keep'} "
          f">= 99 % of its answers", flush=True)
    print(f"demo: timeline (the legitimate client's answers, the attacker's crashes and its "
          f"dropped requests per second, Brute off and on): {picture}", flush=True)
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main())
