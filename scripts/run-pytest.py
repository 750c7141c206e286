#!/usr/bin/env python3
"""Run one pytest suite and close with "N passed, N failed, N skipped".

usage: scripts/run-pytest.py [PYTEST-ARGS...] PATH...

The verdict is pytest's own exit status first, its counts second: an error
that stops pytest before or while it collects (an ImportError in a
conftest.py: exit 4; nothing collected: exit 5; an internal error: exit 3)
is a failure even though no test failed.  The counts come from a JUnit XML
written into a directory private to this run, so two runs on one machine,
from one checkout or two, never read each other's results, and a run that
wrote no XML cannot report a stale one.  Skipped tests are listed with
their reasons (-rs) and counted in the closing line.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import List, NamedTuple, Sequence

# pytest's exit statuses (pytest.ExitCode): 0 every test passed, 1 some failed.
PYTEST_OK, PYTEST_TESTS_FAILED = 0, 1


class Counts(NamedTuple):
    passed: int
    failed: int
    skipped: int


def read_junit(path: Path) -> Counts:
    """The counts of a JUnit XML as pytest writes it (failures and errors fail)."""
    root = ET.parse(path).getroot()
    suites = [root] if root.tag == "testsuite" else list(root)
    tests = sum(int(s.get("tests", 0)) for s in suites)
    bad = sum(int(s.get("failures", 0)) + int(s.get("errors", 0)) for s in suites)
    skipped = sum(int(s.get("skipped", 0)) for s in suites)
    return Counts(tests - bad - skipped, bad, skipped)


def verdict(rc: int, xml: Path) -> Counts:
    """The suite's counts from pytest's exit status rc and the XML it wrote."""
    if rc not in (PYTEST_OK, PYTEST_TESTS_FAILED):
        print(f"run-pytest: pytest exited {rc} (not a test failure: collection, usage "
              "or internal error, or no tests); see its output above", file=sys.stderr)
        counts = read_junit(xml) if xml.exists() else Counts(0, 0, 0)
        return counts._replace(failed=counts.failed + 1)
    if not xml.exists():
        print("run-pytest: pytest wrote no results", file=sys.stderr)
        return Counts(0, 1, 0)
    counts = read_junit(xml)
    if rc == PYTEST_TESTS_FAILED and counts.failed == 0:
        counts = counts._replace(failed=1)  # pytest saw a failure its XML does not hold
    if rc == PYTEST_OK and counts.passed + counts.failed == 0:
        counts = counts._replace(failed=1)  # every test skipped: nothing was checked
        print("run-pytest: every test was skipped", file=sys.stderr)
    return counts


def main(argv: Sequence[str]) -> int:
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="ppf-pytest.") as tmp:
        xml = Path(tmp) / "results.xml"
        cmd: List[str] = [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider",
                          f"--junitxml={xml}", *argv]
        rc = subprocess.run(cmd, check=False).returncode
        counts = verdict(rc, xml)
    print(f"{counts.passed} passed, {counts.failed} failed, {counts.skipped} skipped")
    return 1 if counts.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
