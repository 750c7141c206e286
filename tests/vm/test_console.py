"""eval/vm/run.py's follow(): the console file QEMU writes, read as it grows,
to its last byte after QEMU has ended."""

from __future__ import annotations

import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

sys.dont_write_bytecode = True
from eval.vm import run  # noqa: E402


class FollowTest(unittest.TestCase):
    def test_lines_as_written_and_the_tail_after_exit(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            console = Path(tmp) / "console"
            console.write_bytes(b"")
            # a writer that ends with a partial line, slowly enough to be followed
            script = ("import sys, time\n"
                      "f = open(sys.argv[1], 'ab', buffering=0)\n"
                      "for i in range(5):\n"
                      "    f.write(b'line %d\\r\\n' % i); time.sleep(0.05)\n"
                      "f.write(b'<<<PPF-EXIT'); f.write(b' rc=0>>>')\n")
            proc = subprocess.Popen([sys.executable, "-c", script, str(console)])
            lines = list(run.follow(console, proc))
        self.assertEqual(lines, [b"line %d\r\n" % i for i in range(5)] + [b"<<<PPF-EXIT rc=0>>>"])
        self.assertIsNotNone(proc.poll())


if __name__ == "__main__":
    unittest.main()
