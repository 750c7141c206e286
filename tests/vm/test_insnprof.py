"""eval/harness/insnprof.py: the plugin's snapshots turned into instructions
per function (no VM; the plugin itself is exercised by run --insn-profile)."""

from __future__ import annotations

import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

sys.dont_write_bytecode = True
from eval.harness import insnprof  # noqa: E402

SYSTEM_MAP = """ffffffff81000000 T _stext
ffffffff81000100 T vfs_read
ffffffff81000200 t xas_load
ffffffff81000300 T show_stat
ffffffff81800000 T _etext
"""
KALLSYMS = """ffffffffa0000000 t ppf_queue\t[predictive_prefetch]
ffffffffa0000400 T ppf_event_open\t[predictive_prefetch]
"""


class InsnprofTest(unittest.TestCase):
    def setUp(self) -> None:
        self.tmp = tempfile.TemporaryDirectory()
        self.d = Path(self.tmp.name)
        (self.d / "System.map").write_text(SYSTEM_MAP)
        for c, snaps in (("hot", ("user 100\n", "user 1100\nffffffff81000120 50\n")),
                         ("epcm", ("user 100\nffffffff81000200 7\n",
                                   "user 1100\nffffffff81000120 50\nffffffff81000200 7\n"
                                   "ffffffff81000210 20\n"
                                   "ffffffffa0000010 300\nffffffffa0000450 30\n"
                                   "ffffffffb0000000 5\n"))):
            (self.d / c).mkdir()
            for i, text in enumerate(snaps):
                (self.d / c / f"insnprof.{i}").write_text(text)
        (self.d / "epcm" / "module-kallsyms.txt").write_text(KALLSYMS)

    def tearDown(self) -> None:
        self.tmp.cleanup()

    def test_by_function(self) -> None:
        c = insnprof.by_function(insnprof.snapshot(self.d / "epcm" / "insnprof.0"),
                                 insnprof.snapshot(self.d / "epcm" / "insnprof.1"),
                                 self.d, self.d / "epcm")
        self.assertEqual(dict(c), {"[user]": 1000, "vfs_read": 50, "xas_load": 20,
                                   "ppf:ppf_queue": 300, "ppf:ppf_event_open": 30,
                                   "[modules]": 5})

    def test_compare(self) -> None:
        out = insnprof.compare(self.d, "hot", "epcm", self.d)
        self.assertIn("hot 1,050, epcm 1,405, difference +355", out)
        self.assertIn("of which in ppf's module +330", out)
        self.assertIn("| ppf:ppf_queue | +300 | 0 | 300 |", out)

    def test_no_snapshots(self) -> None:
        (self.d / "none").mkdir()
        with self.assertRaisesRegex(SystemExit, "with --insn-profile"):
            insnprof.compare(self.d, "none", "epcm", self.d)

    def test_trigger_and_plugin(self) -> None:
        args = insnprof.qemu_args(self.d, self.d / "cache")
        self.assertEqual(args[0], "-plugin")
        self.assertTrue(args[1].endswith(",trigger=0xffffffff81000300,out={out}/insnprof"))
        # the plugin builds and exports what QEMU's loader looks for
        syms = subprocess.run(["nm", "-D", "--defined-only", str(self.d / "cache" /
                                                                "insnprof.so")],
                              capture_output=True, text=True, check=True).stdout
        self.assertIn("qemu_plugin_install", syms)
        self.assertIn("qemu_plugin_version", syms)


if __name__ == "__main__":
    unittest.main()
