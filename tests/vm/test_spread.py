"""eval/harness/spread.py: the same experiment at several phases, and how far
each figure moved."""

from __future__ import annotations

import json
import sys
import tempfile
import unittest
from pathlib import Path
from typing import Dict

sys.dont_write_bytecode = True
from eval.harness import runner, spread  # noqa: E402


def measured(root: Path, exp: str, k: int, elapsed: Dict[str, float]) -> None:
    """A phase's results as the runner leaves them: CONFIG/cold-1.json (hot-1
    for the hot cache) with the replay's elapsed_ns."""
    for config, s in elapsed.items():
        d = root / spread.phase_name(exp, k) / config
        d.mkdir(parents=True)
        kind = "hot" if config == "hot" else "cold"
        (d / f"{kind}-1.json").write_text(json.dumps({"elapsed_ns": int(s * 1e9)}))


class SpreadTest(unittest.TestCase):
    def test_phased_experiment(self) -> None:
        exp = runner.load_experiment("pystart-ssd")
        p0, p2 = spread.phased(exp, 0), spread.phased(exp, 2)
        self.assertEqual((p0.name, p2.name), ("spread-pystart-ssd-p0", "spread-pystart-ssd-p2"))
        self.assertEqual(p0.replay_args, exp.replay_args)
        self.assertIn(f"--phase-us={spread.PHASES_US[2]}", p2.replay_args.split())
        self.assertEqual(p2.spec["replay_args"], p2.replay_args)
        self.assertEqual([c.name for c in p2.configs], [c.name for c in exp.configs])
        self.assertEqual(exp.name, "pystart-ssd")  # the original untouched

    def test_ranges_and_shares(self) -> None:
        with tempfile.TemporaryDirectory() as t:
            root = Path(t)
            measured(root, "x", 0, {"none": 10.0, "hot": 2.0, "epcm": 6.0})
            measured(root, "x", 1, {"none": 10.0, "hot": 2.0, "epcm": 8.0})
            measured(root, "x", 2, {"none": 11.0, "hot": 2.0})  # epcm did not run
            s = spread.collect("x", 3, root)
        rows = {r["config"]: r for r in s["rows"]}
        self.assertEqual(s["phases_us"], list(spread.PHASES_US[:3]))
        self.assertEqual(s["builds"], [])  # no meta.json here
        self.assertEqual(rows["none"]["elapsed_s"], [10.0, 10.0, 11.0])
        self.assertAlmostEqual(rows["none"]["range_s"], 1.0)
        self.assertNotIn("share_pct", rows["none"])
        e = rows["epcm"]
        self.assertEqual(e["elapsed_s"], [6.0, 8.0, None])
        self.assertAlmostEqual(e["range_s"], 2.0)
        self.assertEqual([round(x, 1) if x is not None else None for x in e["share_pct"]],
                         [50.0, 25.0, None])
        self.assertAlmostEqual(e["share_range_pct"], 25.0)
        md = spread.table(s)
        self.assertIn("| epcm | 6.000 | 8.000 | - | 2.000 | 50.0, 25.0, - | 25.0 |", md)

    def test_nothing_measured_is_refused(self) -> None:
        with tempfile.TemporaryDirectory() as t:
            with self.assertRaises(SystemExit) as cm:
                spread.collect("x", 2, Path(t))
        self.assertIn("nothing measured for x", str(cm.exception))


if __name__ == "__main__":
    unittest.main()
