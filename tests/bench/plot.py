#!/usr/bin/env python3
"""The pictures of make bench and make demo, drawn with matplotlib (Debian's python3-matplotlib,
scripts/deps.sh) from the figures the runs keep; no display needed (the Agg backend).

  availability(scenarios, path, note)   one panel per availability scenario on one time axis:
                                        the benign requests answered (and sent) per second, the
                                        attacker's crashes per second, the service's restarts
                                        and the attacker's sources found banned
  cost(rows, path, note)                the cost table as bars: each loop's ratio of medians
                                        (brute/stack, aa+brute/aa) around 1
  demo_timeline(off, on, path, note)    make demo's two runs, Brute off and on: the legitimate
                                        client's answers, the attacker's crashes and its dropped
                                        connection requests per second, the takeover

Each writes one PNG and returns its path; `note` is printed under the plot (which commit and
command made it). The figures come in as parsed here from the runs' own output:
parse_series() reads availbench's series= field (tests/fast/src/availbench.c),
parse_counts() the demo client's and benign client's per-second lists.
"""
import os
import sys

SERIES_FIELDS = ("sent", "answered", "crashes", "restarts", "bans")


def provenance(command, top):
    """'COMMAND at COMMIT, DATE': the note under a plot (COMMIT+dirty: the tree had changes)."""
    import subprocess
    import time

    def git(*args):
        r = subprocess.run(["git", "-C", str(top)] + list(args), capture_output=True, text=True)
        return r.stdout.strip() if r.returncode == 0 else ""
    commit = git("rev-parse", "--short=7", "HEAD") or "unknown commit"
    if commit != "unknown commit" and git("status", "--porcelain", "--untracked-files=no"):
        commit += "+dirty"
    return f"{command} at {commit}, {time.strftime('%Y-%m-%d', time.gmtime())}"


def parse_series(text):
    """availbench's series=S:A:C:R:B,... : a list of dicts (SERIES_FIELDS), one per second."""
    if not text or text == "-":
        return []
    out = []
    for bucket in text.split(","):
        values = [int(v) for v in bucket.split(":")]
        if len(values) != len(SERIES_FIELDS):
            raise ValueError(f"series bucket {bucket!r}: {len(SERIES_FIELDS)} values expected")
        out.append(dict(zip(SERIES_FIELDS, values)))
    return out


def parse_counts(text):
    """A per-second list N,N,... (the demo's clients): a list of ints; '-' or '' is empty."""
    if not text or text == "-":
        return []
    return [int(v) for v in text.split(",")]


DEBIAN_SITE = "/usr/lib/python3/dist-packages"


def _pyplot():
    try:
        import matplotlib
    except ImportError:
        # Debian's python3-matplotlib is there; a Python that is not Debian's (one from pyenv,
        # of the same minor version) does not look there by itself.
        if DEBIAN_SITE in sys.path:
            raise
        sys.path.append(DEBIAN_SITE)
        import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def _save(fig, path, note):
    if note:
        fig.text(0.01, 0.005, note, fontsize=7, color="0.35", ha="left", va="bottom")
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    fig.savefig(path, dpi=90)
    _pyplot().close(fig)
    return path


def _events(ax, seconds, counts, color, label):
    """Vertical marks at the seconds where counts > 0 (restarts, bans), labelled once."""
    first = True
    for t, n in zip(seconds, counts):
        if n:
            ax.axvline(t + 0.5, color=color, lw=1.2, ls="--", alpha=0.8,
                       label=label if first else None)
            first = False


def _panel(ax, title, who, sent, answered):
    """A panel's left axis: the well-behaved client's requests sent and answered per second; its
    right axis (returned) is for the attacker."""
    t = [i + 0.5 for i in range(len(answered))]   # mid-second, like the bars beside them
    ax.plot(t, sent, color="0.6", lw=1, ls=":", label=f"{who} sent /s")
    ax.plot(t, answered, color="tab:green", lw=1.8, label=f"{who} answered /s")
    ax.set_ylim(bottom=0)
    ax.set_ylabel(f"{who} /s", fontsize=8)
    ax.set_title(title, fontsize=9, loc="left")
    right = ax.twinx()
    right.set_ylabel("attacker /s", fontsize=8, color="tab:red")
    return right


def _legend(ax, right, ncol):
    handles, labels = ax.get_legend_handles_labels()
    h, lab = right.get_legend_handles_labels()
    ax.legend(handles + h, labels + lab, fontsize=6, loc="lower left", ncol=ncol, framealpha=0.8)
    right.set_ylim(bottom=0)


def availability(scenarios, path, note=""):
    """scenarios: [(label, series)] with series as parse_series() gives it."""
    plt = _pyplot()
    rows = max(len(scenarios), 1)
    fig, axes = plt.subplots(rows, 1, figsize=(9, 1.9 * rows + 0.8), sharex=True, squeeze=False)
    for ax, (label, series) in zip(axes[:, 0], scenarios):
        t = list(range(len(series)))
        crash = _panel(ax, label, "benign", [s["sent"] for s in series],
                       [s["answered"] for s in series])
        crash.bar(t, [s["crashes"] for s in series], width=0.8, color="tab:red", alpha=0.35,
                  align="edge", label="attacker's crashes /s")
        _events(ax, t, [s["restarts"] for s in series], "tab:blue", "service restarted")
        _events(ax, t, [s["bans"] for s in series], "black", "attacker source found banned")
        _legend(ax, crash, 5)
    axes[-1, 0].set_xlabel("seconds from the clients' start (guest clock)")
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    return _save(fig, path, note)


def cost(rows, path, note=""):
    """rows: [(loop label, vCPUs, {ratio name: ratio of medians})], e.g.
    ("tcp req/resp", 1, {"brute/stack": 1.010, "aa+brute/aa": 1.010})."""
    plt = _pyplot()
    names = []
    for _, _, ratios in rows:
        names += [n for n in ratios if n not in names]
    fig, ax = plt.subplots(figsize=(9, 0.25 * max(len(rows), 1) * max(len(names), 1) + 1.4))
    height = 0.8 / max(len(names), 1)
    colors = ("tab:orange", "tab:purple", "tab:gray")
    for j, name in enumerate(names):
        ys = [i + j * height for i in range(len(rows))]
        vals = [r[2].get(name) for r in rows]
        ax.barh([y for y, v in zip(ys, vals) if v is not None],
                [(v - 1) * 100 for v in vals if v is not None], height=height,
                color=colors[j % len(colors)], label=name)
        for y, v in zip(ys, vals):
            if v is not None:
                ax.text((v - 1) * 100, y, f" {v:.3f}", va="center", fontsize=7)
    ax.set_yticks([i + height * (len(names) - 1) / 2 for i in range(len(rows))])
    ax.set_yticklabels([f"{label}, {smp} vCPU" for label, smp, _ in rows], fontsize=8)
    ax.invert_yaxis()
    ax.axvline(0, color="black", lw=0.8)
    ax.set_xlabel("cost of Brute: ratio of the medians - 1, in % (guest ns per iteration)")
    ax.legend(fontsize=8, loc="best")
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    return _save(fig, path, note)


def demo_timeline(off, on, path, note=""):
    """off, on: the demo's runs, each a dict of per-second lists (parse_counts): 'answered',
    'sent' (the legitimate client), 'crashes', 'dropped' (the attacker), with 'offset' (the
    attacker's start in seconds after the legitimate client's) and 'pwned_s' (when control was
    reached, or None)."""
    plt = _pyplot()
    runs = [("Brute off (mode=0)", off), ("Brute on (mode=2)", on)]
    fig, axes = plt.subplots(2, 1, figsize=(9, 5.2), squeeze=False)
    for ax, (label, r) in zip(axes[:, 0], runs):
        att = _panel(ax, label, "legitimate", r.get("sent", []), r.get("answered", []))
        off_s = r.get("offset", 0.0)
        crashes, dropped = r.get("crashes", []), r.get("dropped", [])
        att.bar([i + off_s for i in range(len(crashes))], crashes, width=0.8, align="edge",
                color="tab:red", alpha=0.35, label="attacker's crashes /s")
        att.bar([i + off_s for i in range(len(dropped))], dropped, width=0.8, align="edge",
                color="black", alpha=0.5, label="its connection requests dropped /s")
        if r.get("pwned_s") is not None:
            ax.axvline(r["pwned_s"] + off_s, color="tab:red", lw=1.5,
                       label="attacker reaches pwned()")
        first_drop = next((i for i, n in enumerate(dropped) if n), None)
        if first_drop is not None:
            ax.axvline(first_drop + off_s, color="black", lw=1.2, ls="--",
                       label="first connection request dropped (the client waits 3 s)")
        _legend(ax, att, 3)
        ax.set_xlabel("seconds", fontsize=8)
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    return _save(fig, path, note)
