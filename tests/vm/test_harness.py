"""Unit tests of eval/harness/'s logic (no VM): experiments, eval.conf, the
spin rate, synthetic traces, the summary of recorded results."""

from __future__ import annotations

import dataclasses
import gzip
import hashlib
import json
import signal
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path
from unittest import mock

sys.dont_write_bytecode = True
from eval import tracefmt  # noqa: E402
from eval.harness import report, runner, synth  # noqa: E402
from eval.harness.workloads import WORKLOADS  # noqa: E402
from eval.vm import parse  # noqa: E402

ANDREW = WORKLOADS["andrew"].trace
# A run of make test's short evaluation (selftest-andrew): the measured run's
# results of each VM, and one VM's console (tests/vm/test_data/).
TOP = Path(__file__).resolve().parents[2]
DATA = Path(__file__).resolve().parent / "test_data"
RESULTS = DATA / "eval-results"
# That run's experiment as the run recorded it (its probes timed, as make
# test's were then): its results are read against it, not against today's
# eval/experiments/selftest-andrew.json.
SELFTEST_RECORD = str(RESULTS / "selftest-andrew" / "experiment.json")


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
                         ("selftest-andrew", 0, 0, []))
        self.assertEqual(runner.DEFAULT_SPIN_RATE, "calibrated")
        # experiment.json: the file, then the defaults it lacked, in that order
        self.assertEqual(list(exp.info()), ["description", "workload", "profile", "probes",
                                            "spin_rate",
                                            "replay_args", "image_in_initramfs", "warmups",
                                            "runs", "repeat", "configs", "name", "hot_runs",
                                            "blktrace", "icount_shift"])

    def test_eval_conf(self) -> None:
        exp = runner.load_experiment("selftest-andrew")
        none, epcm = exp.configs[:2]
        # make test's short evaluation: these exact files went into its VMs
        common = ("TRACE=/ppf/trace.gz\nWARMUPS=3\nRUNS=1\nHOT_RUNS=0\nSPIN_RATE=151.539\n"
                  "MODEL=epcm\nPS=64\nORDER=51\n")
        tail = ("BOOTLIST=0\nBLKTRACE=0\nIMAGE=/ppf/image.img\n"
                "REPLAY_ARGS='--exec=head --mmap=none --probes=think'\n")
        self.assertEqual(runner.eval_conf(exp, none, False), common + "MODEL_ON=0\n" + tail)
        self.assertEqual(runner.eval_conf(exp, epcm, False), common + "MODEL_ON=1\n" + tail)
        hot = runner.Config("hot", cache="hot")
        conf = runner.eval_conf(exp, hot, True)
        self.assertIn("RUNS=0\nHOT_RUNS=1\n", conf)
        self.assertIn("BLKTRACE=1\n", conf)
        # every event kept only where the experiment names the configuration
        self.assertNotIn("EVENTS", runner.eval_conf(exp, epcm, False))
        kept = runner.from_spec({**exp.spec, "events": [epcm.name]}, "x", "x.json")
        self.assertIn("EVENTS=1\n", runner.eval_conf(kept, kept.configs[1], False))
        self.assertNotIn("EVENTS", runner.eval_conf(kept, kept.configs[0], False))
        self.assertNotIn("SCHED_TRACE", runner.eval_conf(kept, kept.configs[1], False))
        traced = runner.from_spec({**exp.spec, "sched_trace": [epcm.name]}, "x", "x.json")
        self.assertIn("SCHED_TRACE=1\n", runner.eval_conf(traced, traced.configs[1], True))
        for key in ("events", "blktrace", "repeat", "sched_trace"):
            with self.assertRaisesRegex(SystemExit, f"{key} names no configuration"):
                runner.from_spec({**exp.spec, key: ["epcm-6-4"]}, "x", "x.json")
        # the oracle: the boot list, swept by eval/guest/oracle.c in its class
        oracle = runner.expand([{"name": "oracle", "model": "oracle"}])[0]
        self.assertIn("BOOTLIST=1\nORACLE=1\nORACLE_CLASS=be\n",
                      runner.eval_conf(exp, oracle, False))
        idle = runner.expand([{"name": "o", "model": "oracle", "oracle_class": "idle"}])[0]
        self.assertIn("ORACLE_CLASS=idle\n", runner.eval_conf(exp, idle, False))
        for bad in ({"name": "o", "model": "oracle", "oracle_class": "rt"},
                    {"name": "o", "model": "oracle", "oracle_klass": "be"}):
            with self.assertRaises(SystemExit, msg=str(bad)):
                runner.expand([bad])

    def test_sysctls(self) -> None:
        exp = runner.load_experiment("selftest-andrew")
        c = runner.expand([{"name": "be", "model": "epcm", "ps": 64, "order": 51,
                            "sysctls": {"io_class": "best-effort", "max_inflight_kb": 512}}])[0]
        self.assertEqual(c.sysctls, {"io_class": "best-effort", "max_inflight_kb": "512"})
        self.assertEqual(c.label, "epcm 64/51 io_class=best-effort max_inflight_kb=512")
        self.assertIn("SYSCTLS='io_class=best-effort max_inflight_kb=512'\n",
                      runner.eval_conf(exp, c, False))
        for bad in ({"io class": "idle"}, {"io_class": "idle; reboot"}, {"model": "pcm"}):
            with self.assertRaises(SystemExit, msg=str(bad)):
                runner.expand([{"name": "x", "model": "epcm", "sysctls": bad}])

    def test_module_params(self) -> None:
        exp = runner.load_experiment("selftest-andrew")
        c = runner.expand([{"name": "h", "model": "epcm", "cache": "hot",
                            "module_params": {"measure_hooks": 1}}])[0]
        self.assertEqual(c.module_params, {"measure_hooks": "1"})
        self.assertEqual(c.label, "epcm 64/51 measure_hooks=1 (hot)")
        self.assertIn("MODULE_PARAMS='measure_hooks=1'\n", runner.eval_conf(exp, c, False))
        self.assertNotIn("MODULE_PARAMS", runner.eval_conf(exp, exp.configs[0], False))
        for bad in ({"measure_hooks": 2}, {"max_files": 1}, {"measure_hooks": "1 x=1"}):
            with self.assertRaises(SystemExit, msg=str(bad)):
                runner.expand([{"name": "x", "model": "epcm", "module_params": bad}])

    def test_probes(self) -> None:
        spec = {"workload": "andrew", "profile": "ssd", "replay_args": "--exec=head",
                "configs": [{"name": "none", "model": "none"}]}
        exp = runner.from_spec(spec, "x", "x.json")
        self.assertEqual(exp.probes, "timed")
        self.assertIn("REPLAY_ARGS='--exec=head'\n", runner.eval_conf(exp, exp.configs[0], False))
        exp = runner.from_spec({**spec, "probes": "think"}, "x", "x.json")
        self.assertIn("REPLAY_ARGS='--exec=head --probes=think'\n",
                      runner.eval_conf(exp, exp.configs[0], False))
        with self.assertRaisesRegex(SystemExit, "probes is timed or think"):
            runner.from_spec({**spec, "probes": "off"}, "x", "x.json")
        with self.assertRaisesRegex(SystemExit, "not a replay_args option"):
            runner.from_spec({**spec, "replay_args": "--probes=think"}, "x", "x.json")

    def test_stopped_runner_boots_nothing(self) -> None:
        # a stopped harness's queued jobs must not boot VMs (they used to:
        # SIGTERM left the thread pool going through its queue)
        handlers = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
        try:
            r = runner.Runner(None, jobs=1)  # type: ignore[arg-type]
        finally:
            for s, h in handlers.items():
                signal.signal(s, h)
        exp = runner.load_experiment("selftest-andrew")
        r.stop()
        with tempfile.TemporaryDirectory() as d:
            with self.assertRaises(SystemExit) as cm:
                r.boot(exp, exp.configs[0], "none", Path(d) / "img", 64, Path(d) / "out",
                       False)
            self.assertIn("not booted", str(cm.exception))
            self.assertFalse((Path(d) / "out").exists())

    def test_spin_rate(self) -> None:
        exp = runner.Experiment("x", "andrew", "hdd", [])
        self.assertEqual(runner.spin_rate(exp), "332")  # 1 ns an instruction
        self.assertIsNone(exp.think_scale)
        exp.icount_shift = 2                             # where 83 was measured
        self.assertEqual(runner.spin_rate(exp), "83")
        exp.spin_rate = "compute"
        self.assertEqual(runner.spin_rate(exp), "37.885")
        exp.icount_shift = 0
        self.assertEqual(runner.spin_rate(exp), "151.539")
        self.assertAlmostEqual(exp.think_scale or 0, 2044700999 / 4479646425)
        self.assertEqual(exp.info()["think_scale"], exp.think_scale)

    def test_think_and_compute(self) -> None:
        self.assertEqual(runner.think_and_compute(ANDREW),
                         {"think_recorded_ns": 4479646425, "compute_ns": 2044700999})

    def test_trace_of(self) -> None:
        exp = runner.Experiment("x", "andrew", "hdd", [])
        self.assertEqual(runner.trace_of(exp), ANDREW)
        self.assertIsNone(runner.extra_trace(exp, "warmup_trace"))
        exp.trace = "eval/workloads/glimpse/glimpse.trace.gz"  # relative: to the top
        self.assertEqual(runner.trace_of(exp), WORKLOADS["glimpse"].trace)
        exp.trace = "/no/such.trace.gz"
        with self.assertRaisesRegex(SystemExit, "no such trace /no/such.trace.gz"):
            runner.trace_of(exp)
        exp = runner.Experiment("x", "gnuld", "hdd", [], trace={"workload": "andrew"})
        self.assertEqual(runner.trace_of(exp), ANDREW)


class GuestCountersTest(unittest.TestCase):
    def test_run_counters_and_guest_table(self) -> None:
        # run-experiment.sh's snapshots around a measured run, /proc/stat's
        # and the worker's lines with ppf's
        with tempfile.TemporaryDirectory() as t:
            d = Path(t)
            (d / "hot-1.ppf-before.txt").write_text(
                "events_open 10\nworker_cpu_ns 1000\nworker_readahead_ns 0\n"
                "sys_ctxt 500\nsys_user_ticks 100\nsys_system_ticks 20\n"
                "sys_softirq_ticks 1\nsys_irq_ticks 0\nsys_worker_switches 7\n")
            (d / "hot-1.ppf-after.txt").write_text(
                "events_open 1010\nworker_cpu_ns 2001000\nworker_readahead_ns 0\n"
                "worker_model_ns 500000\nworker_decode_ns 250000\n"
                "sys_ctxt 3500\nsys_user_ticks 1600\nsys_system_ticks 190\n"
                "sys_softirq_ticks 1\nsys_irq_ticks 0\nsys_worker_switches 407\n")
            (d / "hot-1.ppf-before.txt").write_text(
                (d / "hot-1.ppf-before.txt").read_text() +
                "worker_model_ns 0\nworker_decode_ns 50000\n")
            k = report.run_counters(d, "hot", 0)
            assert k is not None
            self.assertEqual((k["sys_ctxt"], k["sys_worker_switches"]), (3000, 400))
            self.assertEqual(k["worker_insns_per_open"], 2000)
            self.assertEqual(k["worker_insns_per_open_outside_readahead"], 2000)
            # the parts counted apart, per open; none for a part not counted
            self.assertEqual((k["worker_model_per_open"], k["worker_decode_per_open"]),
                             (500, 200))
            self.assertNotIn("worker_lookup_per_open", k)
            self.assertIn("| epcm | 1000 | - | - | - | - | - | 2.0 | 2,000 | 2,000 | 500 / 200 / - |",
                          report.worker_table({"rows": [{"config": "epcm", "label": "epcm",
                                                         "ppf_run": k}]}))
            # prefetches and the KiB they read, with the wasted part of each
            w = dict(k, prefetch_issued=10, prefetch_wasted=3, pages_requested=100,
                     pages_wasted=10)
            self.assertIn("| - | 10 (3) | 400 (40) | 2.0 |",
                          report.worker_table({"rows": [{"config": "epcm", "label": "epcm",
                                                         "ppf_run": w}]}))
            # readahead's clock time past the CPU time: the worker slept in
            # it, and what it did outside is not known (not 0)
            (d / "cold-1.ppf-before.txt").write_text(
                "events_open 10\nworker_cpu_ns 1000\nworker_readahead_ns 0\n")
            (d / "cold-1.ppf-after.txt").write_text(
                "events_open 1010\nworker_cpu_ns 2001000\nworker_readahead_ns 5000000\n")
            c = report.run_counters(d, "cold", 0)
            assert c is not None
            self.assertEqual(c["worker_insns_per_open"], 2000)
            self.assertNotIn("worker_insns_per_open_outside_readahead", c)
        rows = [{"config": "hot", "label": "hot", "ppf_run": {"sys_ctxt": 100.0,
                                                              "sys_user_ticks": 3.0}},
                {"config": "epcm-hot", "label": "epcm 64/51 (hot)", "ppf_run": k},
                {"config": "none", "label": "none"}]
        table = report.guest_table({"rows": rows})
        self.assertIn("| hot | 100 | 30 | - | - | - | - | - | - |", table)
        self.assertIn("| epcm 64/51 (hot) | 3,000 | 15000 | 1700 | 0 | 0 | 400 | 2.0 | - |",
                      table)
        self.assertNotIn("| none |", table)
        self.assertEqual(report.guest_table({"rows": rows[2:]}),
                         "(no guest counters per measured run)")


class FaultsTest(unittest.TestCase):
    def test_faults_digests(self) -> None:
        # the bench of a trace replayed at its faults names the faults file
        # (pystart-ssd's: every page the real start-up touched)
        exp = runner.load_experiment("pystart-ssd")
        got = runner.faults_digests(exp)
        self.assertEqual(sorted(got), ["pystart-1.trace.gz", "pystart-2.trace.gz",
                                       "pystart-3.trace.gz"])
        data = (TOP / "eval" / "workloads" / "pystart" /
                "pystart-3.touched.faults.gz").read_bytes()
        self.assertEqual(got["pystart-3.trace.gz"], hashlib.sha256(data).hexdigest()[:12])
        # gitwork-2 has none: its mapped files are replayed whole
        self.assertEqual(runner.faults_digests(runner.Experiment("x", "gitwork-2", "hdd", [])),
                         {})

    def test_a_replay_that_maps_nothing_gets_no_faults(self) -> None:
        # premise: the trace has a faults file, and the experiment maps nothing
        exp = runner.load_experiment("andrew-reads-ssd")
        self.assertIsNotNone(runner.faults_of(runner.trace_of(exp)))
        self.assertIn("--mmap=none", exp.replay_args)
        self.assertFalse(runner.uses_faults(exp))
        self.assertEqual(runner.faults_digests(exp), {})
        self.assertFalse([a for a in runner.trace_files(exp) if "faults" in a])
        # the same trace replayed with its mappings: the faults are the bench's
        maps = dataclasses.replace(exp, replay_args="--exec=head")
        self.assertTrue(runner.uses_faults(maps))
        self.assertEqual(sorted(runner.faults_digests(maps)), ["andrew.trace.gz"])
        self.assertTrue([a for a in runner.trace_files(maps) if "faults" in a])
        for args, want in (("--mmap none --exec head", False), ("--mmap=read", True),
                           ("--mmap=read --exec=none", False), ("--exec=map --mmap=none", True)):
            self.assertEqual(runner.uses_faults(dataclasses.replace(exp, replay_args=args)),
                             want, args)


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


class SummaryTest(unittest.TestCase):
    def test_summarize(self) -> None:
        with mock.patch.object(runner, "RESULTS", RESULTS):
            s = report.summarize(SELFTEST_RECORD)
        rows = {r["config"]: r for r in s["rows"]}
        none, epcm = rows["none"], rows["epcm-64-51"]
        self.assertEqual((none["io_latency_s"], epcm["io_latency_s"]),
                         (3.147284556, 3.009902828))
        self.assertEqual((none["misses"], epcm["misses"]), (192, 61))
        self.assertEqual((epcm["baseline"], f"{epcm['io_red']:.2f}"), ("none", "4.37"))
        self.assertEqual(s["determinism"], [
            {"config": "none", "elapsed_ns": [5420576756, 5420576756],
             "io_latency_ns": [3147284556, 3147284556], "diff_pct": 0.0}])
        table = report.table(s).splitlines()
        self.assertEqual(table[3], "| epcm 64/51 | 5.298 | 2.07 | 3.010 | 490 | 6.6 | 12160 | "
                         "3817 / 86 / 61 | +2.3% | +4.4% | +18.9% | no hot run | no hot run "
                         "| - | 80 |")
        self.assertFalse(s["hot_run"])
        self.assertIsNone(epcm["gap_io_pct"])
        self.assertIn("| none | 5,420,576,756 | 5,420,576,756 | 0.0000% |",
                      report.det_table(s))
        # what each kind of call waited: the runs' own sums, the opens' here
        self.assertAlmostEqual(none["op_wait_s"]["open"], 0.270605384)
        waits = report.wait_table(s).splitlines()
        self.assertTrue(waits[0].startswith("| config | open | exec | read |"), waits[0])
        self.assertTrue(waits[2].startswith("| none | 0.271 | 0.235 |"), waits[2])

    def test_summary_rows(self) -> None:
        """summary.json: one row per configuration of every experiment, with the
        figures each row needs; something else among the summaries is named."""
        with tempfile.TemporaryDirectory() as tmp:
            with mock.patch.object(runner, "RESULTS", RESULTS):
                s = report.summarize(SELFTEST_RECORD)
            (Path(tmp) / "selftest-andrew.json").write_text(json.dumps(s))
            out = report.write_summary(Path(tmp))
            rows = json.loads(out.read_text())["rows"]
            self.assertEqual([(r["workload"], r["config"], r["cache"]) for r in rows],
                             [("andrew", c["config"], "cold") for c in s["rows"]])
            epcm = next(r for r in rows if r["config"] == "epcm-64-51")
            self.assertEqual((epcm["profile"], epcm["io_latency_s"], epcm["experiment"]),
                             (s["profile"], 3.009902828, "selftest-andrew"))
            for key in ("elapsed_s", "read_mean_us", "read_p99_us", "gap_elapsed_pct"):
                self.assertIn(key, epcm)
            self.assertEqual(report.summary_rows(Path(tmp)), rows)  # summary.json skipped
            (Path(tmp) / "stray.json").write_text("[]")
            with self.assertRaisesRegex(ValueError, "stray.json: not an experiment summary"):
                report.summary_rows(Path(tmp))

    @unittest.skipUnless(Path("/usr/lib/python3/dist-packages/matplotlib").exists(),
                         "python3-matplotlib is not installed")
    def test_blktrace_figure_refuses_bad_panels(self) -> None:
        """python3 -m eval.harness.plots blktrace: a panel that is not
        TITLE=RESULT_DIR, or a directory without blktrace.txt, is refused
        with a message naming it, and nothing is written."""
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "fig.png"
            for spec, msg in (("nodir", "'nodir': want TITLE=RESULT_DIR"),
                              ("=x", "'=x': want TITLE=RESULT_DIR"),
                              (f"t={tmp}", "blktrace.txt: no such file")):
                res = subprocess.run([sys.executable, "-m", "eval.harness.plots", "blktrace",
                                      str(out), spec], cwd=TOP, text=True,
                                     capture_output=True)
                self.assertEqual(res.returncode, 2, res.stderr)
                self.assertIn(msg, res.stderr)
                self.assertFalse(out.exists())

    def test_cell(self) -> None:
        self.assertEqual((report.cell(None), report.cell(1.234), report.cell(2, "{:+.1f}%")),
                         ("-", "1.23", "+2.0%"))

    def test_extract_recorded_console(self) -> None:
        """The console of the "none" VM holds the results the harness kept."""
        with tempfile.TemporaryDirectory() as tmp:
            self.assertTrue(parse.extract((DATA / "eval-selftest-none.log").read_text(),
                                          Path(tmp)))
            for name in ("cold-1.json", "ppf-stats.txt"):
                self.assertEqual((Path(tmp) / name).read_bytes(),
                                 (RESULTS / "selftest-andrew" / "none" / name).read_bytes())
            self.assertTrue((Path(tmp) / "cold-1.reads.gz").exists())


if __name__ == "__main__":
    unittest.main()
