"""eval/harness/bound.py: the computed bound no prefetcher passes."""

from __future__ import annotations

import gzip
import sys
import tempfile
import unittest
from pathlib import Path

sys.dont_write_bytecode = True
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from eval.harness import bound  # noqa: E402
from eval.harness.profiles import PROFILES  # noqa: E402

MB = 1_000_000


class BoundTest(unittest.TestCase):
    def test_never_below_the_hot_run(self) -> None:
        # an infinitely fast device: the hot run is the bound
        b, n = bound.bound_s(2.0, {"a": 4096}, [(500_000_000, 0, 4096, "a")], float("inf"))
        self.assertEqual(b, 2.0)
        self.assertEqual(n, 4096)

    def test_transfer_before_the_last_access(self) -> None:
        # 10 MB needed by an access that ends 1 s before the end of a 3 s hot
        # run, at 5 MB/s: 2 s of transfer, then the 1 s the run still needs
        acc = [(2_000_000_000, 0, 10 * MB, "a")]
        b, n = bound.bound_s(3.0, {"a": 10 * MB}, acc, 5 * MB)
        self.assertAlmostEqual(b, 3.0 + (-(-10 * MB // 4096) * 4096 / (5 * MB) - 2.0),
                               places=6)
        self.assertGreater(b, 3.0)

    def test_pages_counted_once_and_whole_files_by_size(self) -> None:
        acc = [(1, 0, 8192, "a"), (2, 4096, 8192, "a"),   # pages 0-2 of a
               (3, -1, -1, "x"),                          # x read whole
               (4, 0, 65536, "s"),                        # a read past the end
               (5, 0, 4096, "new")]                       # written by the run first
        _, n = bound.bound_s(1.0, {"a": 1 << 20, "x": 10_000, "s": 100}, acc, 1e9)
        self.assertEqual(n, 3 * 4096 + 3 * 4096 + 4096)

    def test_first_use_order_is_the_end_order(self) -> None:
        # the same accesses listed in another order give the same bound
        acc = [(3_000_000_000, 0, 4 * MB, "b"), (1_000_000_000, 0, 4 * MB, "a")]
        sizes = {"a": 4 * MB, "b": 4 * MB}
        self.assertEqual(bound.bound_s(4.0, sizes, acc, 2 * MB),
                         bound.bound_s(4.0, sizes, list(reversed(acc)), 2 * MB))

    def test_media_rates(self) -> None:
        self.assertEqual(bound.media_rate(PROFILES["hdd-2001"]), 10_000_000)
        self.assertEqual(bound.media_rate(PROFILES["ssd"]), 477 * 1048576)

    def test_a_malformed_file_is_named(self) -> None:
        with tempfile.TemporaryDirectory() as d:
            p = Path(d) / "hot-1.accesses.gz"
            with gzip.open(p, "wt") as f:
                f.write("# sizes\n12 /t/x\n# accesses: end_ns offset len path\n"
                        "5 0 4096 /t/x\nfive 0 4096 /t/y\n")
            with self.assertRaises(ValueError) as cm:
                bound.read_accesses(p)
            self.assertIn(f"{p}:5", str(cm.exception))


if __name__ == "__main__":
    unittest.main()
