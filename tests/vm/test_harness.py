"""Unit tests of eval/harness/'s logic (no VM): experiments, eval.conf, the
spin rate, synthetic traces, the summary of recorded results."""

from __future__ import annotations

import gzip
import hashlib
import sys
import tempfile
import unittest
from pathlib import Path
from unittest import mock

sys.dont_write_bytecode = True
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from eval import tracefmt  # noqa: E402
from eval.harness import runner, synth  # noqa: E402
from eval.harness.workloads import WORKLOADS  # noqa: E402

ANDREW = WORKLOADS["andrew"].trace


class ExperimentTest(unittest.TestCase):
    def test_expand(self) -> None:
        cs = runner.expand([{"name": "none", "model": "none"},
                            {"name": "hot", "model": "none", "cache": "hot"},
                            {"model": "pcm", "shapes": [[16, 2], [64, 4]]},
                            {"model": "epcm", "shapes": [[64, 51]], "cache": "hot"}])
        self.assertEqual([c.name for c in cs], ["none", "hot", "pcm-16-2", "pcm-64-4",
                                                "epcm-64-51"])
        self.assertEqual([c.label for c in cs], ["none", "hot", "pcm 16/2", "pcm 64/4",
                                                 "epcm 64/51 (hot)"])
        with self.assertRaises(SystemExit):
            runner.expand([{"name": "x", "model": "lru"}])

    def test_defaults(self) -> None:
        exp = runner.load_experiment("selftest-andrew")
        self.assertEqual((exp.name, exp.hot_runs, exp.icount_shift, exp.blktrace),
                         ("selftest-andrew", 0, 2, []))
        self.assertEqual(runner.DEFAULT_SPIN_RATE, "83")
        # experiment.json: the file, then the defaults it lacked, in that order
        self.assertEqual(list(exp.info()), ["description", "workload", "profile", "spin_rate",
                                            "replay_args", "image_in_initramfs", "warmups",
                                            "runs", "repeat", "configs", "name", "hot_runs",
                                            "blktrace", "icount_shift"])

    def test_eval_conf(self) -> None:
        exp = runner.load_experiment("selftest-andrew")
        none, epcm = exp.configs
        # make test's short evaluation: these exact files went into its VMs
        common = ("TRACE=/ppf/trace.gz\nWARMUPS=3\nRUNS=1\nHOT_RUNS=0\nSPIN_RATE=37.885\n"
                  "MODEL=epcm\nPS=64\nORDER=51\n")
        tail = ("BOOTLIST=0\nBLKTRACE=0\nIMAGE=/ppf/image.img\n"
                "REPLAY_ARGS='--exec=head --mmap=none'\n")
        self.assertEqual(runner.eval_conf(exp, none, False), common + "MODEL_ON=0\n" + tail)
        self.assertEqual(runner.eval_conf(exp, epcm, False), common + "MODEL_ON=1\n" + tail)
        hot = runner.Config("hot", cache="hot")
        conf = runner.eval_conf(exp, hot, True)
        self.assertIn("RUNS=0\nHOT_RUNS=1\n", conf)
        self.assertIn("BLKTRACE=1\n", conf)

    def test_spin_rate(self) -> None:
        exp = runner.Experiment("x", "andrew", "hdd", [])
        self.assertEqual(runner.spin_rate(exp), "83")
        self.assertIsNone(exp.think_scale)
        exp.spin_rate = "compute"
        self.assertEqual(runner.spin_rate(exp), "37.885")
        self.assertAlmostEqual(exp.think_scale or 0, 2044700999 / 4479646425)
        self.assertEqual(exp.info()["think_scale"], exp.think_scale)

    def test_think_and_compute(self) -> None:
        self.assertEqual(runner.think_and_compute(ANDREW),
                         {"think_recorded_ns": 4479646425, "compute_ns": 2044700999})

    def test_trace_of(self) -> None:
        exp = runner.Experiment("x", "andrew", "hdd", [])
        self.assertEqual(runner.trace_of(exp), ANDREW)
        self.assertIsNone(runner.extra_trace(exp, "warmup_trace"))
        exp.trace = "/x.gz"
        self.assertEqual(runner.trace_of(exp), Path("/x.gz"))
        exp = runner.Experiment("x", "gnuld", "hdd", [], trace={"workload": "andrew"})
        self.assertEqual(runner.trace_of(exp), ANDREW)


class SynthTest(unittest.TestCase):
    # sha256 of the decompressed traces synth.py made before it used
    # ppftrace.fmt (they must not change: experiments train and measure on them)
    RECORDED = {1: "8cbc9c1de4d08a17f1e7b4bee358cb3cf1f7ad6fb20e1130ea2450b02eb3c611",
                2: "3a0047360579806947cf5f3fa2b4c6b7a73193f8e8d10310246429965feb6be9"}

    def test_random_order(self) -> None:
        with tempfile.TemporaryDirectory() as tmp, mock.patch.object(synth, "CACHE", Path(tmp)):
            for seed, digest in self.RECORDED.items():
                out = synth.random_order(ANDREW, seed)
                data = gzip.decompress(out.read_bytes())
                self.assertEqual(hashlib.sha256(data).hexdigest(), digest)
                t = tracefmt.parse_trace(data)
                self.assertEqual(t["files"], tracefmt.load_trace(ANDREW)["files"])
                # the gzip framing is fixed too (mtime 0): the same bytes every time
                again = Path(tmp) / "again.trace.gz"
                out.rename(again)
                self.assertEqual(synth.random_order(ANDREW, seed).read_bytes(),
                                 again.read_bytes())


if __name__ == "__main__":
    unittest.main()
