"""eval/harness/report.py never replaces a summary with less than it holds."""

from __future__ import annotations

import json
import sys
import tempfile
import unittest
from pathlib import Path
from typing import Any, Dict, List

sys.dont_write_bytecode = True
from eval.harness import report  # noqa: E402


def summary(rows: List[Dict[str, Any]], shift: int = 0) -> Dict[str, Any]:
    return {"experiment": "x-hdd", "rows": rows, "icount_shift": shift}


class CheckNotLessTest(unittest.TestCase):
    def setUp(self) -> None:
        self.tmp = tempfile.TemporaryDirectory()
        self.old = Path(self.tmp.name) / "x-hdd.json"

    def tearDown(self) -> None:
        self.tmp.cleanup()

    def test_nothing_collected_is_refused(self) -> None:
        with self.assertRaises(report.ReportRefused) as cm:
            report.check_not_less(summary([]), self.old)
        self.assertIn("no results collected", str(cm.exception.code))

    def test_only_carried_rows_are_refused(self) -> None:
        # every configuration carried over from the committed summary: nothing
        # was measured, so nothing may be written (the bound is computed, not
        # measured, and does not count either)
        rows = [{"config": "none", "runs": 2, "carried": "abc1234"},
                {"config": "bound", "cache": "bound", "runs": 1}]
        with self.assertRaises(report.ReportRefused) as cm:
            report.check_not_less(summary(rows), self.old)
        self.assertIn("no results collected", str(cm.exception.code))

    def test_a_lost_configuration_is_refused(self) -> None:
        self.old.write_text(json.dumps(summary([{"config": "none", "runs": 2},
                                                {"config": "epcm", "runs": 2}])))
        with self.assertRaises(report.ReportRefused) as cm:
            report.check_not_less(summary([{"config": "none", "runs": 2}]), self.old)
        self.assertIn("epcm (2 runs)", str(cm.exception.code))
        with self.assertRaises(report.ReportRefused):
            report.check_not_less(summary([{"config": "none", "runs": 2},
                                           {"config": "epcm", "runs": 1}]), self.old)

    def test_another_bench_is_replaced(self) -> None:
        # measured on another guest CPU (icount shift 2): not comparable, so a
        # summary of today's bench replaces it even with fewer configurations
        self.old.write_text(json.dumps(summary([{"config": "none", "runs": 2},
                                                {"config": "pcm", "runs": 2}], shift=2)))
        report.check_not_less(summary([{"config": "none", "runs": 1}]), self.old)
        # and a summary from before the shift was recorded ran at 2
        self.old.write_text(json.dumps({"experiment": "x-hdd",
                                        "rows": [{"config": "pcm", "runs": 2}]}))
        report.check_not_less(summary([{"config": "none", "runs": 1}]), self.old)
        with self.assertRaises(report.ReportRefused):
            report.check_not_less(summary([{"config": "none", "runs": 1}], shift=2),
                                  self.old)

    def test_probes_in_think_are_another_bench(self) -> None:
        # the replay's probes in the timed part, then in the think: replaced
        self.old.write_text(json.dumps(summary([{"config": "none", "runs": 2},
                                                {"config": "pcm", "runs": 2}])))
        in_think = {**summary([{"config": "none", "runs": 1}]), "probes": "think"}
        report.check_not_less(in_think, self.old)
        self.assertTrue(report.same_bench(summary([]), 0, {}, "timed"))
        self.assertFalse(report.same_bench(summary([]), 0, {}, "think"))
        self.assertTrue(report.same_bench(in_think, 0, {}, "think"))
        self.old.write_text(json.dumps({**in_think, "rows": [{"config": "none", "runs": 2}]}))
        with self.assertRaises(report.ReportRefused):
            report.check_not_less(in_think, self.old)

    def test_other_faults_files_are_another_bench(self) -> None:
        # mapped files replayed whole, then at the real program's faults: the
        # old figures are not comparable and are replaced, not merged
        self.old.write_text(json.dumps(summary([{"config": "none", "runs": 2},
                                                {"config": "pcm", "runs": 2}])))
        at_faults = {**summary([{"config": "none", "runs": 1}]),
                     "faults": {"w-4.trace.gz": "e2e9daa97b14"}}
        report.check_not_less(at_faults, self.old)
        self.assertTrue(report.same_bench(summary([]), 0, {}))
        self.assertFalse(report.same_bench(summary([]), 0, {"w-4.trace.gz": "e2e9daa97b14"}))
        self.assertFalse(report.same_bench(at_faults, 0, {"w-4.trace.gz": "0123456789ab"}))
        self.assertTrue(report.same_bench(at_faults, 0, {"w-4.trace.gz": "e2e9daa97b14"}))
        # the same faults files: less is still refused
        self.old.write_text(json.dumps({**at_faults, "rows": [{"config": "none", "runs": 2}]}))
        with self.assertRaises(report.ReportRefused):
            report.check_not_less(at_faults, self.old)

    def test_as_much_or_more_is_written(self) -> None:
        self.old.write_text(json.dumps(summary([{"config": "none", "runs": 2}])))
        report.check_not_less(summary([{"config": "none", "runs": 2},
                                       {"config": "epcm", "runs": 2}]), self.old)
        report.check_not_less(summary([{"config": "none", "runs": 1}]),
                              Path(self.tmp.name) / "absent.json")


if __name__ == "__main__":
    unittest.main()
