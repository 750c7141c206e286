"""eval/harness/bound.py: the computed bound no prefetcher passes."""

from __future__ import annotations

import gzip
import sys
import tempfile
import unittest
from pathlib import Path
from typing import Dict, List, Optional

sys.dont_write_bytecode = True
from eval.harness import bound  # noqa: E402
from eval.harness.profiles import PROFILES  # noqa: E402

MB = 1_000_000


def accesses_file(d: str, text: str) -> Path:
    """An accesses.gz in d holding text, as run-experiment.sh writes one."""
    p = Path(d) / "hot-1.accesses.gz"
    with gzip.open(p, "wt") as f:
        f.write(text)
    return p


def acc(sizes: Dict[str, int], rows: List[bound.Access],
        faults: Optional[Dict[str, List[int]]] = None) -> bound.Accesses:
    return bound.Accesses(sizes, rows, faults or {})


class BoundTest(unittest.TestCase):
    def test_never_below_the_hot_run(self) -> None:
        # an infinitely fast device: the hot run is the bound
        b, n = bound.bound_s(2.0, acc({"a": 4096}, [(500_000_000, "read", 0, 4096, "a")]),
                             float("inf"))
        self.assertEqual(b, 2.0)
        self.assertEqual(n, 4096)

    def test_transfer_before_the_last_access(self) -> None:
        # 10 MB needed by an access that ends 1 s before the end of a 3 s hot
        # run, at 5 MB/s: 2 s of transfer, then the 1 s the run still needs
        b, n = bound.bound_s(3.0, acc({"a": 10 * MB}, [(2_000_000_000, "read", 0, 10 * MB, "a")]),
                             5 * MB)
        self.assertAlmostEqual(b, 3.0 + (-(-10 * MB // 4096) * 4096 / (5 * MB) - 2.0),
                               places=6)
        self.assertGreater(b, 3.0)

    def test_pages_counted_once_and_whole_files_by_size(self) -> None:
        a = acc({"a": 1 << 20, "x": 10_000, "s": 100},
                [(1, "read", 0, 8192, "a"), (2, "read", 4096, 8192, "a"),  # pages 0-2 of a
                 (3, "exec", -1, -1, "x"),                # x read whole
                 (4, "read", 0, 65536, "s"),              # a read past the end
                 (5, "read", 0, 4096, "new")])            # written by the run first
        _, n = bound.bound_s(1.0, a, 1e9)
        self.assertEqual(n, 3 * 4096 + 3 * 4096 + 4096)

    def test_a_mapping_uses_its_faulted_pages(self) -> None:
        # a 1 MiB library mapped whole, of which the program faulted 3 pages
        # (one outside the mapped range); a read of it still counts its range
        a = acc({"/t/lib": 1 << 20},
                [(1, "mmap", 0, 1 << 19, "/t/lib"), (2, "read", 0, 4096, "/t/lib")],
                faults={"/t/lib": [5, 7, 200]})
        _, n = bound.bound_s(1.0, a, 1e9)
        self.assertEqual(n, 3 * 4096)  # pages 5 and 7 mapped, page 0 read

    def test_first_use_order_is_the_end_order(self) -> None:
        # the same accesses listed in another order give the same bound
        rows = [(3_000_000_000, "read", 0, 4 * MB, "b"), (1_000_000_000, "read", 0, 4 * MB, "a")]
        sizes = {"a": 4 * MB, "b": 4 * MB}
        self.assertEqual(bound.bound_s(4.0, acc(sizes, rows), 2 * MB),
                         bound.bound_s(4.0, acc(sizes, list(reversed(rows))), 2 * MB))

    def test_media_rates(self) -> None:
        self.assertEqual(bound.media_rate(PROFILES["hdd-2001"]), 10_000_000)
        self.assertEqual(bound.media_rate(PROFILES["ssd"]), 477 * 1048576)

    def test_a_malformed_file_is_named(self) -> None:
        with tempfile.TemporaryDirectory() as d:
            p = accesses_file(d, "# root: /t\n# sizes\n12 /t/x\n"
                                 "# accesses: end_ns op offset len path\n"
                                 "5 read 0 4096 /t/x\nfive read 0 4096 /t/y\n")
            with self.assertRaises(ValueError) as cm:
                bound.read_accesses(p)
            self.assertIn(f"{p}:6", str(cm.exception))

    def test_a_file_of_the_bench_before_the_faults(self) -> None:
        with tempfile.TemporaryDirectory() as d:
            a = bound.read_accesses(accesses_file(
                d, "# sizes\n9000 /mnt/w/t/x\n# accesses: end_ns offset len path\n"
                   "5 0 0 /mnt/w/t/x\n"))
        self.assertEqual(a.acc, [(5, "", 0, 0, "/mnt/w/t/x")])
        self.assertEqual(bound.bound_s(0.0, a, 1e9)[1], 3 * 4096)

    def test_a_file_as_the_guest_writes_it(self) -> None:
        with tempfile.TemporaryDirectory() as d:
            a = bound.read_accesses(accesses_file(
                d, "# root: /mnt/w/t\n# sizes\n9000 /mnt/w/t/_abs/usr/lib/l.so\n"
                   "# accesses: end_ns op offset len path\n"
                   "5 mmap 0 9000 /mnt/w/t/_abs/usr/lib/l.so\n"
                   "# faults: ppf-replay --faults\nppf-faults 1\n# a comment\n"
                   "file /usr/lib/l.so\n2 0\nfile plot.py\n0\n"))
        self.assertEqual(a.faults, {"/mnt/w/t/_abs/usr/lib/l.so": [2, 0],
                                    "/mnt/w/t/plot.py": [0]})
        self.assertEqual(a.acc, [(5, "mmap", 0, 9000, "/mnt/w/t/_abs/usr/lib/l.so")])
        self.assertEqual(bound.bound_s(0.0, a, 1e9)[1], 2 * 4096)


if __name__ == "__main__":
    unittest.main()
