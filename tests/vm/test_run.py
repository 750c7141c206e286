#!/usr/bin/env python3
"""Unit tests of the VM layer's host-side logic (no VM): eval/vm/run.py's
console scanning and classification, its cpio overlay, its command lines.

    python3 -m pytest tests/vm     (or python3 -m tests.vm.test_run)"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

sys.dont_write_bytecode = True
from eval.vm import config, parse, run  # noqa: E402

NONCE = "abc123"


def scan(lines: list[str]) -> parse.Result:
    res = parse.Result()
    for line in lines:
        parse.scan_line(line, NONCE, res, 0.0)
    return res


class ScanTest(unittest.TestCase):
    def test_markers(self) -> None:
        res = scan([f"<<<PPF-START nonce={NONCE} uptime=1.00>>>",
                    f"<<<PPF-EXIT nonce={NONCE} rc=3 uptime=1.50>>>"])
        self.assertEqual(res.guest_rc, 3)
        self.assertEqual(res.guest_start_uptime_s, 1.0)
        self.assertEqual(res.guest_end_uptime_s, 1.5)

    def test_other_nonce_ignored(self) -> None:
        res = scan(["<<<PPF-EXIT nonce=zzz rc=0 uptime=1.50>>>"])
        self.assertIsNone(res.guest_rc)

    def test_splats(self) -> None:
        for text in [
            "Kernel panic - not syncing: sysrq triggered crash",
            "BUG: KASAN: slab-use-after-free in ppf_fn+0x1/0x2",
            "BUG: sleeping function called from invalid context at mm/x.c:1",
            "WARNING: possible circular locking dependency detected",
            "WARNING: CPU: 0 PID: 1 at mm/filemap.c:10 f+0x0/0x1",
            "Oops: general protection fault, probably for non-canonical address",
            "kernel BUG at lib/list_debug.c:32!",
            "kmemleak: 2 new suspected memory leaks (see /sys/kernel/debug/kmemleak)",
            "INFO: task sh:48 blocked for more than 120 seconds.",
        ]:
            with self.subTest(text=text):
                self.assertTrue(scan([f"[    1.234567] {text}"]).splats)

    def test_user_output_is_not_a_splat(self) -> None:
        self.assertFalse(scan(["BUG: this is the test printing", "WARNING: x"]).splats)

    def test_classify(self) -> None:
        res = parse.Result(guest_rc=0)
        parse.classify(res, False, 0)
        self.assertEqual((res.status, res.exit_code), ("ok", 0))
        res = parse.Result(guest_rc=250)
        parse.classify(res, False, 0)
        self.assertEqual((res.status, res.exit_code), ("failed", 99))
        res = parse.Result(guest_rc=0, splats=["bug: x"])
        parse.classify(res, False, 0)
        self.assertEqual(res.exit_code, parse.EXIT_SPLAT)
        res = parse.Result()
        parse.classify(res, True, None)
        self.assertEqual(res.exit_code, parse.EXIT_TIMEOUT)
        res = parse.Result()
        parse.classify(res, False, 0)
        self.assertEqual(res.exit_code, parse.EXIT_NO_MARKER)


@unittest.skipUnless(shutil.which("cpio"), "cpio not installed")
class OverlayTest(unittest.TestCase):
    def test_overlay_is_valid_newc(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            d = Path(tmp)
            (d / "tree/sub").mkdir(parents=True)
            (d / "tree/sub/f.txt").write_text("hello\n")
            (d / "mod.ko").write_bytes(b"\x7fELF" + bytes(100))
            archive = run.build_overlay("echo hi\n", [str(d / "mod.ko"),
                                                      f"{d / 'tree'}:/opt/tree"])
            out = d / "x"
            out.mkdir()
            subprocess.run(["cpio", "-id", "--quiet"], input=archive, cwd=out, check=True)
            self.assertEqual((out / "ppf/cmd.sh").read_text(), "echo hi\n")
            self.assertEqual((out / "ppf/mod.ko").read_bytes()[:4], b"\x7fELF")
            self.assertEqual((out / "opt/tree/sub/f.txt").read_text(), "hello\n")

    def test_compose_pads_to_512(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            base = Path(tmp) / "base"
            base.write_bytes(b"x" * 1001)
            img = run.compose_initrd(base, b"070701", Path(tmp))
            data = img.read_bytes()
            self.assertEqual(data[512 * 2:512 * 2 + 6], b"070701")


class CommandLineTest(unittest.TestCase):
    def test_cli_request(self) -> None:
        args = run.parse_args(["--kernel", "k", "--initrd", "i", "--cmd", "true",
                               "--null-blk", "--append", "x=1", "--disk", "d.img:ro",
                               "--add", "a", "-q", "--icount-shift", "0"])
        req = run.request(args)
        self.assertEqual(req.command, "true")
        self.assertEqual(req.append, config.NULL_BLK_TIMED + ("x=1",))
        self.assertEqual((req.disks, req.adds, req.echo, req.icount_shift),
                         (("d.img:ro",), ("a",), False, 0))

    def test_qemu_command(self) -> None:
        req = config.BootRequest(kernel=Path("bz"), initrd=Path("i"), memory="512M",
                                 disks=("d.img:ro",), append=config.null_blk_params())
        cmdline = run.kernel_cmdline(req)
        self.assertEqual(cmdline, "console=ttyS0 panic=-1 rdinit=/init "
                         f"ppf.nonce={config.DEFAULT_NONCE} tsc=reliable "
                         "null_blk.memory_backed=1 null_blk.gb=1")
        cmd = run.qemu_command(req, Path("bz"), Path("i"), cmdline)
        self.assertIn("shift=2,align=off,sleep=off", cmd)
        self.assertIn("file=d.img,if=virtio,format=raw,cache=unsafe,id=disk0,readonly=on",
                      cmd)

    def test_debug_variant_quirks(self) -> None:
        req = config.BootRequest(kernel=Path("bz"), initrd=Path("i"), append=("a=1",))
        dbg = config.VARIANTS["debug"].boot(req)
        self.assertEqual((dbg.icount_shift, dbg.seabios, dbg.append),
                         (0, True, ("a=1", "pci=noacpi")))
        self.assertEqual(config.VARIANTS["base"].boot(req), req)
        cmd = run.qemu_command(dbg, Path("bz"), Path("i"), "")
        self.assertNotIn("-bios", cmd)
        self.assertIn("shift=0,align=off,sleep=off", cmd)

    def test_missing_qemu_is_a_harness_error(self) -> None:
        req = config.BootRequest(kernel=Path("bz"), initrd=Path("i"), qemu="no-such-qemu")
        res = run.boot(req)
        self.assertEqual((res.status, res.exit_code), ("error", parse.EXIT_HARNESS))


if __name__ == "__main__":
    unittest.main()
