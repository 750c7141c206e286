"""eval/harness/matrix.py: docs/results.md's matrix is generated from
eval/results/summary.json, and says what the summaries say."""

from __future__ import annotations

import sys
import unittest
from typing import Any, Dict, List

sys.dont_write_bytecode = True
from eval.harness import matrix  # noqa: E402


def row(exp: str, config: str, elapsed: float, gap: float, **more: Any) -> Dict[str, Any]:
    return {"experiment": exp, "config": config, "elapsed_s": elapsed,
            "gap_elapsed_pct": gap, "icount_shift": 0, **more}


class MatrixTest(unittest.TestCase):
    def test_the_page_is_current(self) -> None:
        # what `matrix --write` would put there is what is there
        page = matrix.RESULTS_PAGE.read_text()
        want = matrix.spliced(page, matrix.table(matrix.load_rows(), matrix.load_spreads()))
        self.assertEqual(page, want, "docs/results.md's matrix is stale: run "
                         "python3 -m eval.harness matrix --write")

    def test_a_cell(self) -> None:
        rows: List[Dict[str, Any]] = [
            row("glimpse-hdd2001", "none", 65.7, 0.0),
            row("glimpse-hdd2001", "hot", 3.5, 100.0, synced=True),
            row("glimpse-hdd2001", "oracle", 15.5, 80.8),
            row("glimpse-hdd2001", "epcm-64-51", 33.2, 52.3, of_oracle_pct=64.7),
            row("glimpse-lowmem-hdd2001", "none", 1.0, 0.0),   # not a cell
            row("ablation-glimpse-hdd2001", "none", 1.0, 0.0)]  # not a cell
        lines = matrix.table(rows).splitlines()
        self.assertEqual(len(lines), 3)
        self.assertEqual(lines[2], "| glimpse | hdd-2001 | 65.700 | 3.500 | - | 80.8 % | - | "
                                   "- | - | 52.3 % | - | 64.7 % | 1 ns/instr |")
        # with a spread measured for the cell, EPCM's share's range
        lines = matrix.table(rows, {"glimpse-hdd2001": 2.75}).splitlines()
        self.assertIn("| 52.3 % | 2.8 pts | 64.7 % |", lines[2])

    def test_a_hot_run_that_did_not_start_synced_is_marked(self) -> None:
        rows: List[Dict[str, Any]] = [
            row("gnuld-hdd2001", "none", 83.0, 0.0),
            row("gnuld-hdd2001", "hot", 34.5, 100.0)]
        self.assertEqual(matrix.table(rows).splitlines()[2].split(" | ")[3], "34.500*")
        rows[1]["synced"] = True
        self.assertEqual(matrix.table(rows).splitlines()[2].split(" | ")[3], "34.500")

    def test_a_cell_replayed_at_faults_says_so(self) -> None:
        rows: List[Dict[str, Any]] = [
            row("pystart-ssd", "none", 2.0, 0.0, faults=True),
            row("pystart-ssd", "hot", 1.0, 100.0, faults=True)]
        self.assertTrue(matrix.table(rows).splitlines()[2].endswith(
            "| 1 ns/instr, at faults |"))
        # at every page the real program touched (faults_kind "touched")
        for r in rows:
            r["faults_kind"] = "touched"
        self.assertTrue(matrix.table(rows).splitlines()[2].endswith(
            "| 1 ns/instr, at touched pages |"))

    def test_a_cell_with_the_probes_in_think_says_so(self) -> None:
        rows: List[Dict[str, Any]] = [
            row("pystart-ssd", "none", 2.0, 0.0, faults=True, probes="think"),
            row("pystart-ssd", "hot", 1.0, 100.0, faults=True, probes="think"),
            row("glimpse-ssd", "none", 2.0, 0.0, probes="timed"),
            row("glimpse-ssd", "hot", 1.0, 100.0, probes="timed")]
        lines = matrix.table(rows).splitlines()
        self.assertTrue(lines[2].endswith("| 1 ns/instr |"), lines[2])
        self.assertTrue(lines[3].endswith("| 1 ns/instr, at faults, probes in think |"),
                        lines[3])

    def test_a_model_measured_on_another_module_is_marked(self) -> None:
        rows: List[Dict[str, Any]] = [
            row("pystart-hdd", "none", 4.0, 0.0),
            row("pystart-hdd", "hot", 1.0, 100.0),
            row("pystart-hdd", "last_successor", 3.6, 13.1, measured_by="aaaaaaa"),
            row("pystart-hdd", "pcm-64-4", 3.5, 16.7, measured_by="bbbbbbb", module="m1"),
            row("pystart-hdd", "epcm-64-51", 2.1, 63.5, measured_by="bbbbbbb", module="m2"),
            # the boot list does not run the module: never marked
            row("pystart-hdd", "bootlist", 2.0, 67.0, measured_by="ccccccc")]
        cells = matrix.table(rows).splitlines()[2].split(" | ")
        self.assertEqual(cells[4:10], ["67.0 %", "-", "-", "13.1 % †", "16.7 % †", "63.5 %"])
        rows[2]["measured_by"] = "bbbbbbb"   # no digest: the same commit is the same module
        rows[3]["module"] = "m2"
        cells = matrix.table(rows).splitlines()[2].split(" | ")
        self.assertEqual(cells[7:10], ["13.1 %", "16.7 %", "63.5 %"])

    def test_markers_are_required(self) -> None:
        with self.assertRaises(ValueError):
            matrix.spliced("no markers here", "| t |")
        page = f"a\n{matrix.BEGIN}\nold\n{matrix.END}\nb\n"
        self.assertEqual(matrix.spliced(page, "new"), f"a\n{matrix.BEGIN}\nnew\n{matrix.END}\nb\n")


if __name__ == "__main__":
    unittest.main()
