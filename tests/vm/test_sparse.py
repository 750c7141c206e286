"""The sparse image that carries a workload's ext4 image in the initramfs:
eval/harness/sparse.py writes it, eval/guest/nbcopy.c (built and run here on
the host, onto a plain file) must rebuild the exact image from it."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

sys.dont_write_bytecode = True
TOP = Path(__file__).resolve().parents[2]
from eval.harness import sparse  # noqa: E402

MIB = 1 << 20


def image() -> bytes:
    """3 MiB + 8 KiB: data at both ends, across a 1 MiB boundary, one byte alone."""
    rng = random.Random(9)
    img = bytearray(3 * MIB + 8192)
    for off in (0, 5 * 4096, MIB - 4096, MIB, 2 * MIB + 100 * 4096, len(img) - 4096):
        img[off:off + 4096] = rng.randbytes(4096)
    img[7 * 4096 + 17] = 1
    return bytes(img)


class SparseTest(unittest.TestCase):
    def setUp(self) -> None:
        self.tmp = Path(tempfile.mkdtemp(prefix="ppf-sparse-"))
        self.img = self.tmp / "w.img"
        self.img.write_bytes(image())
        self.nbcopy = self.tmp / "nbcopy"
        subprocess.run(["gcc", "-static", "-O2", "-Wall", "-Wextra", "-Werror", "-o",
                        str(self.nbcopy), str(TOP / "eval" / "guest" / "nbcopy.c")],
                       check=True)

    def copy(self, src: Path) -> "subprocess.CompletedProcess[str]":
        dst = self.tmp / "dev"
        dst.write_bytes(b"")
        with open(dst, "r+b") as f:
            f.truncate(self.img.stat().st_size)  # a fresh null_blk device: zeros
        return subprocess.run([str(self.nbcopy), str(src), str(dst)], text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def test_extents_hold_only_data(self) -> None:
        size, data = sparse.write_sparse(self.img, self.tmp / "w.sparse")
        self.assertEqual(size, len(image()))
        # blocks 0, 5, 7, 255, 256, 612 and the last: 7 blocks of 4 KiB
        self.assertEqual(data, 7 * 4096)
        self.assertEqual(sparse.read_sparse(self.tmp / "w.sparse"), image())

    def test_nbcopy_rebuilds_the_image(self) -> None:
        sp = sparse.sparse_image(self.img)
        res = self.copy(sp)
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertIn("sparse image, 3 MiB, 0 MiB written", res.stdout)
        self.assertEqual((self.tmp / "dev").read_bytes(), image())

    def test_nbcopy_raw_image_still_works(self) -> None:
        res = self.copy(self.img)
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertEqual((self.tmp / "dev").read_bytes(), image())

    def test_truncated_sparse_image_is_an_error(self) -> None:
        sp = sparse.sparse_image(self.img)
        cut = self.tmp / "cut.sparse"
        cut.write_bytes(sp.read_bytes()[:5000])
        res = self.copy(cut)
        self.assertEqual(res.returncode, 1)
        self.assertIn("cut.sparse: sparse image truncated", res.stderr)

    def test_sparse_image_is_remade_when_the_image_changes(self) -> None:
        sp = sparse.sparse_image(self.img)
        before = sp.read_bytes()
        self.img.write_bytes(bytes(len(image())))
        os.utime(self.img, (sp.stat().st_mtime + 10, sp.stat().st_mtime + 10))
        self.assertNotEqual(sparse.sparse_image(self.img).read_bytes(), before)
        self.assertEqual(sparse.read_sparse(sp), bytes(len(image())))


if __name__ == "__main__":
    unittest.main()
