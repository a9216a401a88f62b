#!/usr/bin/env python3
"""Host unit tests of the rig's console and result parsers (tests/rig/guest.py), on
synthetic consoles: KTAP from KUnit, a lockdep splat, the result-port TAP."""
import os
import sys
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the work tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import guest  # noqa: E402

KTAP = """\
[    0.900000] KTAP version 1
[    0.900001] 1..2
[    0.900002]     KTAP version 1
[    0.900003]     # Subtest: brute
[    0.900004]     # module: brute
[    0.900005]     1..3
[    0.900006]     ok 1 brute_test_fork
[    0.900007]     not ok 2 brute_test_exec
[    0.900008]     ok 3 brute_test_net # SKIP no netns
[    0.900009] # brute: pass:1 fail:1 skip:1 total:3
[    0.900010] not ok 1 brute
[    0.900011]     KTAP version 1
[    0.900012]     # Subtest: brute_stats
[    0.900013]     1..1
[    0.900014]     ok 1 brute_stats_reset
[    0.900015] ok 2 brute_stats
"""

LOCKDEP = """\
[    5.100000] ======================================================
[    5.100001] WARNING: possible circular locking dependency detected
[    5.100002] 6.12.0 #1 Not tainted
[    5.100003] Call Trace:
"""


def lines(text):
    return [guest.KERNEL_LINE.sub("", l) for l in text.splitlines()]


class KUnit(unittest.TestCase):
    def test_counts_cases_and_flags_failed_suite(self):
        counts, problems = guest.parse_kunit(lines(KTAP))
        self.assertEqual(counts, guest.Counts(passed=2, failed=1, skipped=1))
        self.assertTrue(any("suite not ok: not ok 1 brute" in p for p in problems))

    def test_no_suites_is_zero_tests(self):
        counts, problems = guest.parse_kunit(lines("[    0.1] Linux version 6.12\n"))
        self.assertEqual((counts, problems), (guest.Counts(), []))

    def test_missing_suite_result_fails(self):
        cut = "\n".join(KTAP.splitlines()[:9])      # crash in the middle of suite 1
        counts, problems = guest.parse_kunit(lines(cut))
        self.assertEqual(counts.failed, 1 + 2)        # failed case + 2 unreported suites
        self.assertTrue(any("planned 2 suites, reported 0" in p for p in problems))


class Splats(unittest.TestCase):
    def test_lockdep_splat_found(self):
        found = guest.find_splats(LOCKDEP.splitlines())
        self.assertEqual(len(found), 2)

    def test_test_output_is_not_a_splat(self):
        console = ["[    1.0] Run /init as init process", "[00-x] # BUG: in a test's output"]
        self.assertEqual(guest.find_splats(console), [])


class Results(unittest.TestCase):
    def test_summary_matches(self):
        counts, failures, problems = guest.parse_results(
            ["ok 1 - a: x", "not ok 2 - a: y", "# why", "ok 3 - b: z # SKIP no",
             "1 passed, 1 failed, 1 skipped"])
        self.assertEqual(counts, guest.Counts(1, 1, 1))
        self.assertEqual(failures, [["not ok 2 - a: y", "  # why"]])
        self.assertEqual(problems, [])

    def test_missing_summary(self):
        _, _, problems = guest.parse_results(["ok 1 - a: x"])
        self.assertTrue(problems and "no summary" in problems[0])

    def test_inconsistent_summary(self):
        _, _, problems = guest.parse_results(["ok 1 - a: x", "2 passed, 0 failed"])
        self.assertTrue(problems and "does not match" in problems[0])


if __name__ == "__main__":
    unittest.main()
