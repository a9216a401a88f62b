#!/usr/bin/env python3
"""Host unit tests of make bench's and make demo's plots (tests/bench/plot.py), on figures given
here: the parsers of availbench's series= and of the demo clients' per-second lists, and each
plot written as a PNG of a sane size."""
import os
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the work tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))
import plot  # noqa: E402

PNG = b"\x89PNG\r\n\x1a\n"


def png_size(path):
    """(width, height) of a PNG, from its IHDR chunk."""
    with open(path, "rb") as f:
        head = f.read(24)
    if head[:8] != PNG:
        raise AssertionError(f"{path}: not a PNG")
    return int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")


class Parse(unittest.TestCase):
    def test_series(self):
        s = plot.parse_series("20:20:48:0:0,19:17:5:1:1")
        self.assertEqual(len(s), 2)
        self.assertEqual(s[1], {"sent": 19, "answered": 17, "crashes": 5, "restarts": 1,
                                "bans": 1})

    def test_series_empty(self):
        self.assertEqual(plot.parse_series("-"), [])
        self.assertEqual(plot.parse_series(""), [])

    def test_series_malformed(self):
        with self.assertRaises(ValueError):
            plot.parse_series("20:20:48")

    def test_counts(self):
        self.assertEqual(plot.parse_counts("3,0,12"), [3, 0, 12])
        self.assertEqual(plot.parse_counts("-"), [])


class Draw(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def path(self, name):
        return os.path.join(self.dir.name, "sub", name)

    def test_availability(self):
        on = plot.parse_series(",".join(["20:20:5:0:1"] + ["20:20:0:0:0"] * 39))
        off = plot.parse_series(",".join(["20:19:48:0:0"] * 40))
        backstop = plot.parse_series(",".join(["20:18:32:1:0", "18:12:4:0:0"] * 20))
        p = plot.availability([("one address", on), ("32 addresses, 32 /24s", backstop),
                               ("one address, Brute off", off)], self.path("avail.png"),
                              "make bench at abcdef0")
        w, h = png_size(p)
        self.assertGreater(w, 400)
        self.assertGreater(h, 3 * 100)   # one panel per scenario

    def test_availability_no_events(self):
        # a scenario whose series is empty still draws (its panel is empty)
        p = plot.availability([("nothing", [])], self.path("empty.png"))
        self.assertGreater(os.path.getsize(p), 1000)

    def test_cost(self):
        rows = [("fork+exit", 1, {"brute/stack": 0.984}),
                ("tcp req/resp", 1, {"brute/stack": 1.010, "aa+brute/aa": 1.010}),
                ("tcp accept", 2, {"brute/stack": 1.019, "aa+brute/aa": 1.003})]
        w, h = png_size(plot.cost(rows, self.path("cost.png"), "make bench at abcdef0"))
        self.assertGreater(w, 400)
        self.assertGreater(h, 150)

    def test_demo_timeline(self):
        off = {"sent": [10] * 17, "answered": [8] * 17, "crashes": [80] * 16, "dropped": [],
               "offset": 0.2, "pwned_s": 16.5}
        on = {"sent": [10] * 10, "answered": [8] * 10, "crashes": [5], "dropped": [0, 0, 1, 0, 1],
              "offset": 0.1, "pwned_s": None}
        w, h = png_size(plot.demo_timeline(off, on, self.path("demo.png")))
        self.assertGreater(w, 400)
        self.assertGreater(h, 200)


if __name__ == "__main__":
    unittest.main()
