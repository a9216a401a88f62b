#!/usr/bin/env python3
"""Host unit tests of make check-kselftest's comparison (tests/kselftest/compare.py), on the
result ports recorded from a real pair of runs (testdata/: 12 of the 163 program runs of
each boot, lines as the guest wrote them) and on edits of them that stand for what a Brute
hook changing the kernel's behaviour would look like: a case that fails, a program killed,
cases that vanish, a skip that becomes a pass. The gate must fail on each of them."""
import io
import os
import re
import sys
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the work tree
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import compare  # noqa: E402


def recorded(name):
    with open(os.path.join(HERE, "testdata", f"{name}.results.log"), encoding="utf-8") as f:
        return f.read().splitlines()


def replace(lines, old, new, count=1):
    """Lines with the first COUNT lines equal to OLD replaced by NEW (None: removed)."""
    out, done = [], 0
    for line in lines:
        if line == old and done < count:
            done += 1
            if new is not None:
                out.append(new)
        else:
            out.append(line)
    assert done == count, f"{old!r} found {done} times"
    return out


def diffs(without_lines, with_lines):
    c = compare.compare(compare.parse(without_lines), compare.parse(with_lines))
    return c, {(who, prog, what): (a, b) for who, prog, what, a, b in c.differences}


# The timing flakes this recorded pair happens to contain (a loaded 2-core host under TCG):
# futex_requeue's "many" case (a waiter not yet waiting after a 10 ms sleep), a tls case that
# hit the harness's 30 s per-test bound, msg_zerocopy's IPv6 UDP receiver gone before its
# sender. The gate sees them, and the second pair of runs tells them from Brute's doing.
FLAKES = {
    ("root", "futex/run.sh", "futex_requeue many returned: 0 Success"): ("fail", "absent"),
    ("root", "futex/run.sh", "futex_requeue many returned: 0 Success [2]"): ("fail", "absent"),
    ("root", "futex/run.sh", "futex_requeue many succeeds"): ("absent", "pass"),
    ("root", "net/tls", "tls.12_aes_gcm.mutliproc_sendpage_readers"): ("fail", "pass"),
    ("root", "net/msg_zerocopy.sh", "(program)"): ("exit 1", "pass"),
    ("root", "net/msg_zerocopy.sh", " [4]"): ("absent", "pass"),
}


class Parse(unittest.TestCase):
    def setUp(self):
        self.run = compare.parse(recorded("brute"))

    def test_lsm_programs_and_summary(self):
        self.assertEqual(self.run.lsm, "capability,brute")
        self.assertEqual(len(self.run.verdicts), 12)
        self.assertTrue(self.run.summary)
        self.assertEqual(self.run.problems, [])

    def test_verdicts(self):
        v = self.run.verdicts
        self.assertEqual(v[("root", "exec/execveat")], "pass")
        self.assertEqual(v[("user", "exec/non-regular")], "exit 1")
        self.assertEqual(v[("root", "proc/proc-self-wchan")], "pass")   # no TAP of its own

    def test_cases(self):
        c = self.run.cases
        self.assertEqual(c[("root", "exec/non-regular", "file.S_IFLNK.exec_errno")], "fail")
        self.assertEqual(c[("root", "exec/non-regular", "file.S_IFDIR.exec_errno")], "pass")
        self.assertEqual(c[("root", "net/tls", "tls.12_aes_gcm.control_msg")], "skip")
        # The harness appended a stale reason to a passing case in one run only: a comment,
        # not part of its name.
        self.assertEqual(c[("user", "seccomp/seccomp_bpf",
                            "global.user_notification_fault_recv")], "pass")
        # futex/run.sh runs futex_requeue_pi 20 times: each "ok 1 ..." line is its own case.
        self.assertEqual(c[("root", "futex/run.sh",
                            "futex-requeue-pi broadcast=0 locked=0 owner=0 timeout=0ns")], "pass")

    def test_repeated_descriptions_are_numbered(self):
        keys = [k for (w, p, k) in self.run.cases if p == "net/msg_zerocopy.sh"]
        self.assertEqual(keys, ["", " [2]", " [3]", " [4]"])   # four bare "ok" lines

    def test_verdict_of_a_test_with_arguments(self):
        run = compare.parse([
            "ok 5 - 90-kselftest: root net/msg_zerocopy.sh 4 tcp -t 1",
            "not ok 6 - 90-kselftest: root net/msg_zerocopy.sh 6 udp -t 1: exit 1",
            "ok 7 - 90-kselftest: user net/tls -f global -v 12_aes_gcm # SKIP exit 4",
            "not ok 8 - 90-kselftest: user pidfd/pidfd_poll_test 2000: timeout 300",
            "2 passed, 2 failed"])
        self.assertEqual(dict(run.verdicts), {
            ("root", "net/msg_zerocopy.sh 4 tcp -t 1"): "pass",
            ("root", "net/msg_zerocopy.sh 6 udp -t 1"): "exit 1",
            ("user", "net/tls -f global -v 12_aes_gcm"): "skip",
            ("user", "pidfd/pidfd_poll_test 2000"): "timeout 300"})

    def test_directives(self):
        self.assertEqual(compare.case_status("ok 3 x # SKIP why"), ("x", "skip"))
        self.assertEqual(compare.case_status("not ok 3 x # XFAIL why"), ("x", "fail"))
        self.assertEqual(compare.case_status("ok 3 x # XFAIL why"), ("x", "xfail"))
        self.assertEqual(compare.case_status("not ok 1 # error futex-requeue-pi x"),
                         ("# error futex-requeue-pi x", "fail"))
        self.assertIsNone(compare.case_status("# ok, not a result"))

    def test_runner_problems(self):
        run = compare.parse(["not ok 9 - 90-kselftest: timed out after 600 s",
                             "0 passed, 1 failed"])
        self.assertEqual(run.problems, ["90-kselftest: timed out after 600 s"])
        run = compare.parse(["ok 1 - 90-kselftest: root exec/execveat"])
        self.assertTrue(any("no summary" in p for p in run.problems))


class Compare(unittest.TestCase):
    def setUp(self):
        self.without, self.with_ = recorded("nobrute"), recorded("brute")

    def test_recorded_pair_differs_only_by_its_flakes(self):
        c, d = diffs(self.without, self.with_)
        self.assertEqual(d, FLAKES)
        self.assertEqual(c.problems, [])

    def test_failing_in_both_is_listed_not_a_difference(self):
        c, _ = diffs(self.without, self.with_)
        both = {(w, p, what) for w, p, what, _ in c.both_failing}
        self.assertIn(("root", "exec/non-regular", "file.S_IFLNK.exec_errno"), both)
        self.assertIn(("root", "clone3/clone3_cap_checkpoint_restore", "(program)"), both)
        self.assertIn(("user", "net/af_unix/unix_connect",
                       "unix_connect.stream_pathname_netns.test"), both)

    def test_a_run_against_itself_agrees(self):
        c, d = diffs(self.with_, self.with_)
        self.assertEqual((d, c.problems), ({}, ["the run without Brute has it in its LSM "
                                               "list: capability,brute"]))

    def test_a_case_that_fails_with_brute(self):
        # As if a hook changed what exec of a directory returns.
        w = replace(self.with_, "# ks|root|exec/non-regular|ok 2 file.S_IFDIR.exec_errno",
                    "# ks|root|exec/non-regular|not ok 2 file.S_IFDIR.exec_errno")
        _, d = diffs(self.without, w)
        self.assertEqual(d[("root", "exec/non-regular", "file.S_IFDIR.exec_errno")],
                         ("pass", "fail"))

    def test_a_program_killed_with_brute(self):
        # As if Brute killed seccomp_bpf's hierarchy halfway: SIGKILL, the rest of its cases
        # never printed.
        w, seen = [], 0
        for line in self.with_:
            if line.startswith("# ks|user|seccomp/seccomp_bpf|"):
                seen += 1
                if seen > 50:
                    continue
            w.append(line)
        w = replace(w, "ok 5 - 90-kselftest: user seccomp/seccomp_bpf",
                    "not ok 5 - 90-kselftest: user seccomp/seccomp_bpf: signal 9")
        _, d = diffs(self.without, w)
        self.assertEqual(d[("user", "seccomp/seccomp_bpf", "(program)")], ("pass", "signal 9"))
        gone = [k for k, (a, b) in d.items()
                if k[1] == "seccomp/seccomp_bpf" and (a, b) == ("pass", "absent")]
        self.assertGreater(len(gone), 40)

    def test_a_program_missing_with_brute(self):
        w = [l for l in self.with_ if "|root|lsm/lsm_list_modules_test|" not in l
             and not l.endswith("root lsm/lsm_list_modules_test")]
        _, d = diffs(self.without, w)
        self.assertEqual(d[("root", "lsm/lsm_list_modules_test", "(program)")],
                         ("pass", "not run"))
        self.assertEqual(d[("root", "lsm/lsm_list_modules_test", "global.correct_lsm_list_modules")],
                         ("pass", "absent"))

    def test_a_skip_that_becomes_a_pass(self):
        w = replace(self.with_,
                    "# ks|root|net/tls|ok 58 tls.12_aes_gcm.control_msg # SKIP no TLS support",
                    "# ks|root|net/tls|ok 58 tls.12_aes_gcm.control_msg")
        _, d = diffs(self.without, w)
        self.assertEqual(d[("root", "net/tls", "tls.12_aes_gcm.control_msg")], ("skip", "pass"))

    def test_a_program_timing_out_with_brute(self):
        w = replace(self.with_, "ok 1 - 90-kselftest: root exec/execveat",
                    "not ok 1 - 90-kselftest: root exec/execveat: timeout 300")
        _, d = diffs(self.without, w)
        self.assertEqual(d[("root", "exec/execveat", "(program)")], ("pass", "timeout 300"))

    def test_lsm_lists_are_checked(self):
        w = replace(self.with_, "# ks-lsm|capability,brute", "# ks-lsm|capability")
        c, _ = diffs(self.without, w)
        self.assertIn("the run with Brute does not have it in its LSM list: capability",
                      c.problems)
        w = [l for l in self.with_ if not l.startswith("# ks-lsm|")]
        c, _ = diffs(self.without, w)
        self.assertIn("a run did not report its LSM list (# ks-lsm)", c.problems)

    def test_an_unfinished_run_is_a_problem(self):
        w = self.with_[:len(self.with_) // 2]
        c, _ = diffs(self.without, w)
        self.assertTrue(any(p.startswith("with Brute: no summary") for p in c.problems))

    def test_nothing_ran(self):
        c, _ = diffs(["# ks-lsm|capability", "0 passed, 0 failed"],
                     ["# ks-lsm|capability,brute", "0 passed, 0 failed"])
        self.assertEqual(c.problems, ["no selftest ran"])

    def test_report(self):
        c = compare.compare(compare.parse(self.without), compare.parse(self.with_))
        out = io.StringIO()
        self.assertFalse(compare.report(compare.parse(self.without),
                                        compare.parse(self.with_), c, out))
        text = out.getvalue()
        self.assertIn("LSM list without Brute: capability; with Brute: capability,brute", text)
        self.assertIn("*** 6 DIFFERENCES", text)
        self.assertIn("root net/tls: tls.12_aes_gcm.mutliproc_sendpage_readers: "
                      "without Brute fail, with Brute pass", text)
        self.assertRegex(text, re.compile(r"^root\s+with\s+8\s+3\s+195\s+172\s+5\s+18$", re.M))


class Timing(unittest.TestCase):
    """Cases tests/kselftest/list declares timing-dependent ("~TEST CASE-PREFIX why")."""

    def setUp(self):
        self.without, self.with_ = recorded("nobrute"), recorded("brute")
        # The recorded runs named msg_zerocopy.sh without its arguments.
        self.timing = compare.timing_cases([
            '~futex/run.sh  "futex_requeue "  a 10 ms sleep',
            '~net/msg_zerocopy.sh  ""  the receiver\'s lifetime is fixed',
            '~net/tls  "tls.12_aes_gcm.mutliproc_sendpage_writers"  not the one that differed'])

    def test_the_list_parses(self):
        timing = compare.load_timing()
        self.assertIn(("futex/run.sh", "futex_requeue ",
                       'a 10 ms sleep stands for "the waiters are waiting"'), timing)
        self.assertIn("net/msg_zerocopy.sh 6 udp -t 1", [t for t, _, _ in timing])
        with self.assertRaises(ValueError):
            compare.timing_cases(["~futex/run.sh futex_requeue"])   # no reason given

    def test_declared_differences_are_listed_not_failed(self):
        c = compare.compare(compare.parse(self.without), compare.parse(self.with_),
                            self.timing)
        self.assertEqual(c.differences, [("root", "net/tls",
                                          "tls.12_aes_gcm.mutliproc_sendpage_readers",
                                          "fail", "pass")])
        self.assertEqual(len(c.timing), 5)
        out = io.StringIO()
        self.assertFalse(compare.report(compare.parse(self.without),
                                        compare.parse(self.with_), c, out))
        self.assertIn("Timing-dependent cases that differed (5;", out.getvalue())

    def test_a_declaration_covers_its_test_only(self):
        w = replace(self.with_, "# ks|root|futex/run.sh|ok 1 futex-requeue-pi-mismatched-ops",
                    "# ks|root|futex/run.sh|not ok 1 futex-requeue-pi-mismatched-ops")
        c = compare.compare(compare.parse(self.without), compare.parse(w), self.timing)
        self.assertIn(("root", "futex/run.sh", "futex-requeue-pi-mismatched-ops",
                       "pass", "fail"), c.differences)


class Confirm(unittest.TestCase):
    def setUp(self):
        self.without, self.with_ = recorded("nobrute"), recorded("brute")
        self.first = compare.compare(compare.parse(self.without), compare.parse(self.with_))

    def test_programs_to_run_again(self):
        self.assertEqual(compare.rerun_programs(self.first),
                         ["futex/run.sh", "net/tls", "net/msg_zerocopy.sh"])
        c = compare.Comparison(differences=[("root", "net/msg_zerocopy.sh 6 udp -t 1",
                                             "(program)", "exit 1", "pass")])
        self.assertEqual(compare.rerun_programs(c), ["net/msg_zerocopy.sh"])

    def test_flakes_that_do_not_show_again_are_unstable(self):
        # The second pair agrees (here: the first without-Brute run against itself, with
        # the LSM line of a with-Brute run).
        w = replace(self.without, "# ks-lsm|capability", "# ks-lsm|capability,brute")
        again = compare.compare(compare.parse(self.without), compare.parse(w))
        confirmed, unstable = compare.confirm(self.first, again)
        self.assertEqual(confirmed, [])
        self.assertEqual(len(unstable), len(FLAKES))

    def test_a_difference_that_shows_again_is_confirmed(self):
        broken = replace(self.with_, "# ks|root|exec/non-regular|ok 2 file.S_IFDIR.exec_errno",
                         "# ks|root|exec/non-regular|not ok 2 file.S_IFDIR.exec_errno")
        first = compare.compare(compare.parse(self.without), compare.parse(broken))
        again = compare.compare(compare.parse(self.without), compare.parse(broken))
        confirmed, _ = compare.confirm(first, again)
        self.assertIn(("root", "exec/non-regular", "file.S_IFDIR.exec_errno", "pass", "fail"),
                      confirmed)

    def test_a_difference_that_changes_on_the_second_look_is_not_confirmed(self):
        once = compare.Comparison(differences=[("root", "p", "c", "pass", "fail")])
        other = compare.Comparison(differences=[("root", "p", "c", "pass", "absent")])
        self.assertEqual(compare.confirm(once, other),
                         ([], [("root", "p", "c", "pass", "fail"),
                               ("root", "p", "c", "pass", "absent")]))


if __name__ == "__main__":
    unittest.main()
