"""Unit tests (no VM) of realcheck: the real image's pieces (the host's files
placed with their symlinks, ldd's list, the recipe's pins and digest) and the
reading of the guest's samples."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

sys.dont_write_bytecode = True
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from eval.harness import __main__ as cli  # noqa: E402
from eval.harness import realcheck  # noqa: E402
from eval.harness.workloads import TOP  # noqa: E402

# Two samples as realcheck.sh writes them (from a boot on hdd-2001): the
# stat lines are /sys/block/simdisk0/stat before and after.
SAMPLE = """clk0=10011116568
cpu0=279
stat0=      13       34      370       71      474    57207   461448     1617        0
clk1=88018816488
cpu1=3303
stat1=   11487      692   162242    43741      801    57644   520408     9187        0
rc=0
"""


class TestRealImage(unittest.TestCase):
    def setUp(self) -> None:
        self.tmp = Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, self.tmp)

    def test_place_keeps_symlinks_on_the_way(self) -> None:
        host = self.tmp / "host"
        (host / "usr" / "lib").mkdir(parents=True)
        (host / "usr" / "lib" / "libx.so.1.2").write_bytes(b"ELF?")
        os.symlink("libx.so.1.2", host / "usr" / "lib" / "libx.so.1")
        os.symlink("usr/lib", host / "lib")
        root = self.tmp / "root"
        realcheck.place(f"{host}/lib/libx.so.1", root)
        inside = root / host.relative_to("/")
        self.assertEqual(os.readlink(inside / "lib"), "usr/lib")
        self.assertEqual(os.readlink(inside / "usr" / "lib" / "libx.so.1"), "libx.so.1.2")
        self.assertEqual((inside / "lib" / "libx.so.1").read_bytes(), b"ELF?")

    def test_place_refuses_a_directory_where_the_host_has_a_link(self) -> None:
        host = self.tmp / "host"
        (host / "usr" / "lib").mkdir(parents=True)
        (host / "usr" / "lib" / "f").write_text("x")
        os.symlink("usr/lib", host / "lib")
        root = self.tmp / "root"
        (root / host.relative_to("/") / "lib").mkdir(parents=True)
        with self.assertRaises(SystemExit):
            realcheck.place(f"{host}/lib/f", root)

    def test_needed_by_lists_libc_and_the_loader(self) -> None:
        libs = realcheck.needed_by("/bin/ls")
        self.assertTrue(any("libc.so" in p for p in libs), libs)
        self.assertTrue(any("ld-linux" in p for p in libs), libs)
        text = self.tmp / "script"
        text.write_text("#!/bin/sh\n")
        self.assertEqual(realcheck.needed_by(str(text)), [])

    def test_digest_is_record_sh_s(self) -> None:
        """The digest of record.sh's shell pipeline, on a small tree."""
        for rel, data in (("D/a.txt", b"a\n"), ("D/sub/b.rst", b"bb\n"), ("D/Z", b"")):
            (self.tmp / rel).parent.mkdir(parents=True, exist_ok=True)
            (self.tmp / rel).write_bytes(data)
        os.symlink("a.txt", self.tmp / "D" / "link")
        sh = subprocess.run(
            "find D -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum",
            shell=True, cwd=self.tmp, text=True, stdout=subprocess.PIPE, check=True)
        self.assertEqual(realcheck.tree_digest(self.tmp, "D"),
                         (3, 5, sh.stdout.split()[0]))

    def test_glimpse_pins(self) -> None:
        pins = realcheck.record_pins(TOP / "eval" / "workloads" / "glimpse" / "record.sh")
        self.assertEqual(pins["TREE_FILES"], "10126")
        self.assertEqual(pins["TARBALL"], "/usr/src/linux-source-6.12.tar.xz")
        self.assertEqual(len(pins["TREE_SHA256"]), 64)

    def test_no_recipe_is_a_clear_error(self) -> None:
        w = realcheck.workload("andrew")
        with self.assertRaisesRegex(SystemExit, "no recipe for andrew's real tree"):
            realcheck.real_image(w)


class TestSamples(unittest.TestCase):
    def test_run_sample(self) -> None:
        with tempfile.NamedTemporaryFile("w", suffix=".txt") as f:
            f.write(SAMPLE)
            f.flush()
            r = realcheck.run_sample(Path(f.name))
        self.assertAlmostEqual(r["elapsed_s"], 78.00769992)
        self.assertAlmostEqual(r["cpu_s"], 30.24)
        self.assertEqual(r["device_reads"], 11474)
        self.assertAlmostEqual(r["device_read_mb"], (162242 - 370) * 512 / 1e6)
        self.assertAlmostEqual(r["device_read_s"], 43.67)
        self.assertAlmostEqual(r["device_write_mb"], (520408 - 461448) * 512 / 1e6)

    def test_pct(self) -> None:
        self.assertEqual(realcheck.pct(68.0, 80.0), "-15.0 %")
        self.assertEqual(realcheck.pct(1.0, 0.0), "-")

    def test_cli(self) -> None:
        a = cli.parser().parse_args(["realcheck", "glimpse", "--spin-rate", "658"])
        self.assertEqual((a.workload, a.profile, a.spin_rate), ("glimpse", "hdd-2001", "658"))
        with self.assertRaisesRegex(SystemExit, "unknown profile"):
            realcheck.main("glimpse", "floppy")


if __name__ == "__main__":
    unittest.main()
