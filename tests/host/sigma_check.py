#!/usr/bin/env python3
"""Check siem/sigma/*.yml: each is a well-formed Sigma rule (the fields and values the Sigma
specification requires) and selects exactly the audit records it claims, evaluated on real
audit.log lines (daemon/tests/fixtures/captured-*.log, recorded in the system guest) and on
siem/tests/records.log (the record shapes of docs/audit-records.md, v2 and v3, that no
capture has yet). Prints TAP.

Supported Sigma subset (all the rules use): detection with named selections of field: value or
field: [values] (AND over fields, OR over a list), and a condition that is one selection name.

Usage: sigma_check.py TOP
"""
import glob
import os
import re
import sys
import uuid

import yaml

top = sys.argv[1]
LEVELS = {"informational", "low", "medium", "high", "critical"}
STATUSES = {"stable", "test", "experimental", "deprecated", "unsupported"}
PAIR = re.compile(r'(\w+)=("[^"]*"|\S+)')
failed = 0


def tap(good, name, *diags):
    global failed
    print(("ok - " if good else "not ok - ") + name)
    if not good:
        failed += 1
        for d in diags:
            print("#   " + str(d))


def record(line):
    """type and key=value fields of one audit.log line (kernel part; quotes removed)."""
    m = re.match(r"type=(\S+) msg=audit\([^)]*\): ?(.*)$", line)
    if not m:
        return None
    fields = {"type": m.group(1)}
    body = m.group(2).split("\x1d")[0]      # enriched part after GS: not the kernel's
    for k, v in PAIR.findall(body):
        fields.setdefault(k, v.strip('"'))
    return fields


def matches(selection, rec):
    for field, want in selection.items():
        values = want if isinstance(want, list) else [want]
        if rec.get(field) not in [str(v) for v in values]:
            return False
    return True


lines = []
for path in sorted(glob.glob(os.path.join(top, "daemon/tests/fixtures/captured-*.log"))) + \
        [os.path.join(top, "siem/tests/records.log")]:
    with open(path, errors="replace") as f:
        lines += [l.rstrip("\n") for l in f if l.startswith("type=")]
records = [r for r in map(record, lines) if r]
tap(len(records) > 50, f"{len(records)} audit records to evaluate the rules on")

# What each rule must select: (record types, extra predicate) -> the expected records.
expect = {
    "brute_attack_detected.yml": lambda r: r["type"] in ("BRUTE_ATTACK", "UNKNOWN[1713]"),
    "brute_mitigation.yml": lambda r: r["type"] in ("BRUTE_KILL", "UNKNOWN[1714]",
                                                    "BRUTE_BAN", "UNKNOWN[1716]"),
    "brute_disabled.yml": lambda r: r["type"] in ("BRUTE_CONFIG", "UNKNOWN[1715]")
    and r.get("tunable") == "mode" and r.get("new") in ("0", "1"),
    "brute_ban_lifted.yml": lambda r: r["type"] in ("BRUTE_UNBAN", "UNKNOWN[1717]",
                                                  "BRUTE_PEER_UNBAN", "UNKNOWN[1719]")
    and r.get("reason") == "lifted",
    "brute_peer_banned.yml": lambda r: r["type"] in ("BRUTE_PEER_BAN", "UNKNOWN[1718]"),
}
rules = sorted(glob.glob(os.path.join(top, "siem/sigma/*.yml")))
tap(sorted(map(os.path.basename, rules)) == sorted(expect), "the rules are those this test knows",
    [os.path.basename(r) for r in rules])
ids = []
for path in rules:
    name = os.path.basename(path)
    try:
        with open(path) as f:
            rule = yaml.safe_load(f)
    except yaml.YAMLError as e:
        tap(False, f"{name}: YAML", e)
        continue
    problems = []
    for key in ("title", "id", "status", "description", "author", "date", "logsource",
                "detection", "level"):
        if key not in rule:
            problems.append(f"missing {key}")
    try:
        if uuid.UUID(str(rule.get("id"))).version != 4:
            problems.append("id is not a UUIDv4")
    except ValueError:
        problems.append("id is not a UUID")
    ids.append(rule.get("id"))
    if len(str(rule.get("title", ""))) > 110:
        problems.append("title longer than 110 characters")
    if rule.get("status") not in STATUSES:
        problems.append(f"status {rule.get('status')}")
    if rule.get("level") not in LEVELS:
        problems.append(f"level {rule.get('level')}")
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", str(rule.get("date"))):
        problems.append("date not YYYY-MM-DD")
    if rule.get("logsource") != {"product": "linux", "service": "auditd"}:
        problems.append(f"logsource {rule.get('logsource')}")
    for t in rule.get("tags", []):
        if not re.fullmatch(r"attack\.(t\d{4}(\.\d{3})?|[a-z-]+)", t):
            problems.append(f"tag {t}")
    det = rule.get("detection", {})
    cond = det.get("condition")
    if not isinstance(cond, str) or cond not in det or not isinstance(det[cond], dict):
        problems.append(f"condition {cond!r}: this test evaluates one selection only")
    tap(not problems, f"{name}: a well-formed Sigma rule", *problems)
    if problems:
        continue
    got = [l for l, r in zip(lines, map(record, lines)) if r and matches(det[cond], r)]
    want = [l for l, r in zip(lines, map(record, lines)) if r and expect[name](r)]
    tap(got == want and len(want) > 0,
        f"{name}: selects exactly its {len(want)} records of {len(records)}",
        *[f"selected, not expected: {l[:100]}" for l in got if l not in want][:5],
        *[f"expected, not selected: {l[:100]}" for l in want if l not in got][:5])
tap(len(set(ids)) == len(ids), "rule ids unique")
sys.exit(0)
