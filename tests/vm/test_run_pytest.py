"""scripts/run-pytest.py, the closing line of make test's pytest suites.

Each case runs the real script on a small suite written into a temporary
directory, as make test runs it on the project's suites.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import unittest
from pathlib import Path
from typing import Dict, Tuple

RUN_PYTEST = Path(__file__).resolve().parents[2] / "scripts" / "run-pytest.py"


def run_suite(files: Dict[str, str]) -> Tuple[int, str]:
    """(exit status, last line of stdout) of run-pytest.py on a suite of files."""
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in files.items():
            (Path(tmp) / name).write_text(text)
        p = subprocess.run([sys.executable, str(RUN_PYTEST), tmp], capture_output=True,
                           text=True, check=False, cwd=tmp)
    return p.returncode, p.stdout.strip().splitlines()[-1]


PASSES = "def test_a() -> None:\n    assert True\n"
FAILS = "def test_b() -> None:\n    assert False\n"
SKIPS = ("import pytest\n\n\n@pytest.mark.skip(reason='not here')\n"
         "def test_c() -> None:\n    pass\n")


class RunPytestTest(unittest.TestCase):
    def test_pass_fail_skip_counted(self) -> None:
        self.assertEqual(run_suite({"test_p.py": PASSES, "test_f.py": FAILS,
                                    "test_s.py": SKIPS}),
                         (1, "1 passed, 1 failed, 1 skipped"))
        self.assertEqual(run_suite({"test_p.py": PASSES, "test_s.py": SKIPS}),
                         (0, "1 passed, 0 failed, 1 skipped"))

    def test_a_broken_conftest_fails(self) -> None:
        """pytest exits 4 before any test: the suite fails, with no stale count."""
        rc, line = run_suite({"conftest.py": "import no_such_module_here\n",
                              "test_p.py": PASSES})
        self.assertEqual((rc, line), (1, "0 passed, 1 failed, 0 skipped"))

    def test_nothing_collected_fails(self) -> None:
        self.assertEqual(run_suite({"helper.py": "X = 1\n"}),
                         (1, "0 passed, 1 failed, 0 skipped"))

    def test_everything_skipped_fails(self) -> None:
        self.assertEqual(run_suite({"test_s.py": SKIPS}), (1, "0 passed, 1 failed, 1 skipped"))

    def test_two_runs_do_not_share_results(self) -> None:
        """Each run reads only its own results: a failing run after a passing
        one, and a passing one after it, each report their own."""
        self.assertEqual(run_suite({"test_f.py": FAILS})[1], "0 passed, 1 failed, 0 skipped")
        self.assertEqual(run_suite({"test_p.py": PASSES})[1], "1 passed, 0 failed, 0 skipped")


if __name__ == "__main__":
    unittest.main()
