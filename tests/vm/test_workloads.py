"""Unit tests (no VM) of "any trace, any experiment": workloads discovered
under eval/workloads/, the VM's needs derived from the trace, experiments
made by run --trace, several warm-up traces, the memory limit, and the
headline metric (the share of the cold-to-hot gap closed)."""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
import unittest
from pathlib import Path
from typing import Any, Dict, List, Tuple
from unittest import mock

sys.dont_write_bytecode = True
from eval import tracefmt  # noqa: E402
from eval.harness import __main__ as cli  # noqa: E402
from eval.harness import adhoc, demo, report, runner, workloads  # noqa: E402
from eval.harness.workloads import WORKLOADS  # noqa: E402

MIB = 1 << 20
DATA = Path(__file__).resolve().parent / "test_data"


def write_syn(path: Path) -> None:
    """A small trace with known sizes: 100 MiB + 1 MiB pre-existing, two
    overlapping 4 MiB reads, a mapped library, 3 MiB written; 10 s long."""
    files = [(100 * MIB, "pre", b"big"), (MIB, "pre", b"/usr/lib/lib.so"),
             (0, "new", b"out"), (0, "dir", b"d")]
    ev = [(1000, 10, 7, "open", 0, (0, 3)),
          (2000, 10, 7, "read", 0, (3, 0, 4 * MIB, 4 * MIB)),
          (3000, 10, 7, "read", 0, (3, 2 * MIB, 4 * MIB, 4 * MIB)),
          (4000, 10, 7, "open", 1, (0, 4)),
          (5000, 10, 7, "mmap", 1, (4, 0, 8192, 1)),
          (6000, 10, 7, "open", 2, (0x241, 5)),
          (7000, 10, 7, "write", 2, (5, 0, 3 * MIB, 3 * MIB))]
    tracefmt.write_trace(path, [("name", "syn"), ("elapsed_ns", 10_000_000_000)], files, ev)


class DerivationTest(unittest.TestCase):
    def setUp(self) -> None:
        self.tmp = Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, self.tmp)
        self.trace = self.tmp / "syn.trace.gz"
        write_syn(self.trace)

    def test_stats(self) -> None:
        s = workloads.trace_stats(self.trace)
        self.assertEqual((s.tree_bytes, s.files, s.bytes_written, s.duration_ns, s.compute_ns),
                         (101 * MIB, 4, 3 * MIB, 10_000_000_000, 0))
        # reads 0-4 and 2-6 MiB: 6 distinct; the library whole; what was written
        self.assertEqual(s.working_set_bytes, 6 * MIB + MIB + 3 * MIB)

    def test_derived(self) -> None:
        w = workloads.from_trace(self.trace)
        self.assertEqual(w.name, "syn")
        # room 3 * 1.25 + 64 -> 96; image 111 + 0 + 96 + 64 -> 320;
        # RAM 2 * 320 + 512 -> 1536 (in the initramfs 3 * 336 + 128, less);
        # timeout 300 + 320 / 4 + 5 * max(60, 8 * 10 s)
        self.assertEqual((w.room_mb, w.image_mb, w.memory(False), w.memory(True),
                          w.timeout(5)), (96, 320, "1536M", "1536M", 780))
        self.assertEqual(w.timeout(1), 480)
        o = w.with_overrides({"room_mb": 500, "timeout_s": 99})
        # RAM on a disk 2 * 704 + 512 -> 2048, in the initramfs 3 * 720 + 128 -> 2560
        self.assertEqual((o.room_mb, o.image_mb, o.memory_mb(False), o.memory_mb(True),
                          o.timeout(5)), (500, 704, 2048, 2560, 99))
        self.assertEqual(o.with_overrides({"memory_mb": 1000}).memory(True), "1000M")
        self.assertEqual(o.derived(5)["overrides"], {"room_mb": 500, "timeout_s": 99})

    def test_bad_trace(self) -> None:
        bad = self.tmp / "bad.trace"
        bad.write_text("not a trace\n")
        with self.assertRaisesRegex(SystemExit, "bad.trace: not a ppf trace"):
            workloads.from_trace(bad)
        with self.assertRaisesRegex(SystemExit, "no such file"):
            workloads.from_trace(self.tmp / "none.trace.gz")

    def test_trace_name(self) -> None:
        self.assertEqual([workloads.trace_name(Path(p)) for p in
                          ("a/make-j2.trace.gz", "b.trace", "c.gz", ".gz")],
                         ["make-j2", "b", "c", ".gz"])


class DiscoveryTest(unittest.TestCase):
    def setUp(self) -> None:
        self.root = Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, self.root)
        for name in ("one", "two"):
            (self.root / name).mkdir()
            write_syn(self.root / name / f"{name}.trace.gz")
        (self.root / "notes").mkdir()  # no trace: not a workload
        (self.root / "two" / "workload.json").write_text('{"room_mb": 200, "why": "x"}')

    def test_discover(self) -> None:
        found = workloads.discover(self.root)
        self.assertEqual(list(found), ["one", "two"])
        self.assertEqual(found["one"].room_mb, 96)
        self.assertEqual((found["two"].room_mb, found["two"].overrides), (200, {"room_mb": 200}))

    def test_several_recordings_in_one_directory(self) -> None:
        """A recipe directory's recordings are workloads of their own, with
        the directory's overrides; a name found twice is an error."""
        for i in (1, 2):
            write_syn(self.root / "two" / f"two-run{i}.trace.gz")
        found = workloads.discover(self.root)
        self.assertEqual(list(found), ["one", "two", "two-run1", "two-run2"])
        self.assertEqual(found["two-run2"].room_mb, 200)
        write_syn(self.root / "one" / "two-run1.trace.gz")
        with self.assertRaisesRegex(SystemExit, "two workloads named 'two-run1'"):
            workloads.discover(self.root)

    def test_bad_workload_json(self) -> None:
        conf = self.root / "two" / "workload.json"
        for text, msg in (('{"room": 1}', r"unknown keys \['room'\]"),
                          ('{"memory_mb": "2G"}', "memory_mb must be a positive integer"),
                          ("{", "not JSON")):
            conf.write_text(text)
            with self.assertRaisesRegex(SystemExit, msg):
                workloads.discover(self.root)

    def test_repository(self) -> None:
        """The three recorded workloads are found, and what their VMs get is
        what workloads.py listed before (andrew derived, glimpse's and
        gnuld's room kept by workload.json), except glimpse's RAM with its
        image in the initramfs: 1,536 MiB truncated its 512 MiB image."""
        self.assertLessEqual({"andrew", "glimpse", "gnuld"}, set(WORKLOADS))
        a, g = WORKLOADS["andrew"], WORKLOADS["glimpse"]
        self.assertEqual((a.room_mb, a.image_mb, a.memory(True), a.overrides),
                         (96, 448, "1536M", {}))
        self.assertEqual((g.room_mb, g.image_mb, g.memory(False), g.memory(True)),
                         (128, 512, "1536M", "2048M"))
        self.assertEqual(WORKLOADS["gnuld"].overrides, {"room_mb": 900})
        with self.assertRaisesRegex(SystemExit, "no workload 'nope'.*andrew"):
            workloads.workload("nope")


def run_args(*argv: str) -> Any:
    """run's options as the command line gives them."""
    return cli.parser().parse_args(["run", *argv])


class AdhocTest(unittest.TestCase):
    def setUp(self) -> None:
        self.tmp = Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, self.tmp)
        self.trace = self.tmp / "syn.trace.gz"
        write_syn(self.trace)

    def test_configs(self) -> None:
        self.assertEqual(adhoc.configs("none,epcm,pcm-16-2,last_successor", hot=True), [
            {"name": "none", "model": "none"}, {"model": "epcm", "shapes": [[64, 51]]},
            {"model": "pcm", "shapes": [[16, 2]]},
            {"name": "last_successor", "model": "last_successor"},
            {"name": "hot", "model": "none", "cache": "hot"}])
        for bad in ("lru", "epcm-64", "pcm-x-2"):
            with self.assertRaisesRegex(SystemExit, f"unknown '{bad}'"):
                adhoc.configs(bad, hot=False)

    def test_spec_and_report_finds_it(self) -> None:
        a = run_args("--trace", str(self.trace), "--profile", "hdd", "--models", "none,epcm",
                     "--hot", "--warmup-trace", str(self.trace), "--memory-limit-mb", "64",
                     "--room-mb", "128")
        spec = adhoc.spec(a)
        self.assertEqual(adhoc.name(a), "syn-hdd")
        self.assertEqual((spec["trace"], spec["spin_rate"], spec["image_in_initramfs"]),
                         (str(self.trace), "calibrated", True))  # no compute_ns: recorded gaps
        exp = runner.from_spec(spec, adhoc.name(a), "test")
        self.assertEqual([c.name for c in exp.configs], ["none", "epcm-64-51", "hot"])
        w = runner.workload_of(exp)
        self.assertEqual((w.name, w.room_mb, runner.workload_name(exp)), ("syn", 128, "syn"))
        conf = runner.eval_conf(exp, exp.configs[1], False)
        self.assertIn("WARMUP_TRACES='/ppf/warmup-trace-1.gz'\n", conf)
        self.assertIn("MEMORY_LIMIT_MB=64\n", conf)
        # the run's record in the results is where `report syn-hdd` finds it
        with mock.patch.object(runner, "RESULTS", self.tmp):
            (self.tmp / "syn-hdd").mkdir()
            (self.tmp / "syn-hdd" / "experiment.json").write_text(
                json.dumps({"experiment": exp.info(), "host_s": 1.0}))
            again = runner.load_experiment("syn-hdd")
        self.assertEqual((again.name, again.trace, again.memory_limit_mb, again.workload),
                         ("syn-hdd", str(self.trace), 64, None))

    def test_a_trace_is_first_class(self) -> None:
        # the experiments' defaults, repeated boots and blktrace on request,
        # results apart per checkout, out of the tracked tree
        a = run_args("--trace", str(self.trace), "--profile", "hdd", "--models", "none,epcm",
                     "--hot", "--repeat", "none", "--blktrace", "epcm-64-51")
        exp = runner.from_spec(adhoc.spec(a), adhoc.name(a), "test")
        self.assertEqual((exp.warmups, exp.runs, exp.repeat, exp.blktrace),
                         (3, 2, ["none"], ["epcm-64-51"]))
        self.assertEqual(runner.results_dir(exp), runner.TRACES / "syn-hdd")
        self.assertIn(runner.CHECKOUT, str(runner.results_dir(exp)))
        self.assertEqual(runner.results_dir(runner.load_experiment("selftest-andrew")),
                         runner.RESULTS / "selftest-andrew")

    def test_a_gap_within_the_noise_is_flagged(self) -> None:
        def row(config: str, runs: List[float]) -> Dict[str, Any]:
            return {"config": config, "elapsed_s": sum(runs) / len(runs),
                    "elapsed_runs_s": runs}
        quiet = report.noise([row("none", [3.0, 3.01]), row("hot", [2.0, 2.0])])
        self.assertTrue(quiet and quiet["meaningful"])
        loud = report.noise([row("none", [2.3, 2.1]), row("hot", [2.0, 2.05])])
        self.assertTrue(loud and not loud["meaningful"])
        self.assertIsNone(report.noise([row("none", [3.0]), row("hot", [2.0])]))

    def test_bad_specs(self) -> None:
        base = {"profile": "hdd", "configs": [{"name": "none", "model": "none"}],
                "trace": str(self.trace)}
        cases: List[Tuple[Dict[str, Any], str]] = [
            ({"warmup": 3}, r"unknown keys \['warmup'\]"),
            ({"memory_limit_mb": 8}, "memory_limit_mb must be an integer >= 16"),
            ({"trace": None}, "needs \"workload\""),
            ({"warmup_trace": "x", "warmup_traces": ["x"]}, "both given"),
            ({"timeout_s": -1}, "timeout_s must be a positive integer")]
        for extra, msg in cases:
            with self.assertRaisesRegex(SystemExit, msg):
                runner.from_spec({**base, **extra}, "x", "x.json")
        with self.assertRaisesRegex(SystemExit, "no experiment 'nope'"):
            runner.load_experiment("nope")


class WarmupTracesTest(unittest.TestCase):
    def test_old_warmup_trace(self) -> None:
        """random-hdd2001's one "warmup_trace" still works, as a list of one."""
        exp = runner.load_experiment("random-hdd2001")
        self.assertEqual(len(runner.warmup_traces(exp)), 1)
        conf = runner.eval_conf(exp, exp.configs[0], False)
        self.assertIn("WARMUP_TRACES='/ppf/warmup-trace-1.gz'\n", conf)
        self.assertNotIn("WARMUP_TRACE=", conf)
        self.assertEqual(runner.tree_traces(exp), [])  # andrew's file table throughout

    def test_several(self) -> None:
        spec = {"workload": "andrew", "profile": "hdd", "warmups": 3,
                "configs": [{"name": "none", "model": "none"}],
                "warmup_traces": [{"workload": "glimpse"}, {"workload": "andrew"}]}
        exp = runner.from_spec(spec, "x", "x.json")
        self.assertEqual(runner.warmup_traces(exp),
                         [WORKLOADS["glimpse"].trace, WORKLOADS["andrew"].trace])
        self.assertIn("WARMUP_TRACES='/ppf/warmup-trace-1.gz /ppf/warmup-trace-2.gz'\n",
                      runner.eval_conf(exp, exp.configs[0], False))
        # andrew's faults file goes with each replay of andrew (glimpse has none)
        faults = runner.faults_path(WORKLOADS["andrew"].trace)
        self.assertEqual(runner.trace_files(exp)[1:], [
            f"{faults}:/ppf/trace.faults.gz",
            f"{WORKLOADS['glimpse'].trace}:/ppf/warmup-trace-1.gz",
            f"{WORKLOADS['andrew'].trace}:/ppf/warmup-trace-2.gz",
            f"{faults}:/ppf/warmup-trace-2.faults.gz"])
        # glimpse's files are not andrew's: the image holds both trees
        self.assertEqual(runner.tree_traces(exp), [WORKLOADS["glimpse"].trace])
        with self.assertRaisesRegex(SystemExit, "non-empty list"):
            runner.warmup_traces(runner.from_spec({**spec, "warmup_traces": []}, "x", "x"))

    def test_faults_kind(self) -> None:
        """An experiment replays its mapped files at the faulted pages or,
        with "faults_kind": "touched", at every page the real program
        touched; a touched file that is not there is an error, not a
        replay of whole files."""
        tr = WORKLOADS["andrew"].trace
        self.assertEqual(runner.faults_path(tr).name, "andrew.faults.gz")
        self.assertEqual(runner.faults_path(tr, "touched").name, "andrew.touched.faults.gz")
        with self.assertRaises(ValueError):
            runner.faults_path(tr, "read")
        spec = {"workload": "andrew", "profile": "ssd",
                "configs": [{"name": "none", "model": "none"}]}
        faulted = runner.from_spec(spec, "x", "x.json")
        touched = runner.from_spec({**spec, "faults_kind": "touched"}, "x", "x.json")
        self.assertEqual(faulted.faults_kind, "faulted")
        self.assertEqual(runner.trace_files(faulted)[1],
                         f"{runner.faults_path(tr)}:/ppf/trace.faults.gz")
        self.assertEqual(runner.trace_files(touched)[1],
                         f"{runner.faults_path(tr, 'touched')}:/ppf/trace.faults.gz")
        # the bench differs, and says so in every result's digest
        self.assertNotEqual(runner.faults_digests(faulted), runner.faults_digests(touched))
        with self.assertRaisesRegex(SystemExit, "faults_kind is faulted or touched"):
            runner.from_spec({**spec, "faults_kind": "all"}, "x", "x.json")
        # a trace with its faulted pages but not its touched ones (every
        # workload with a faults file has both now: a copy beside a trace of
        # its own)
        with tempfile.TemporaryDirectory() as tmp:
            t = Path(tmp) / "syn.trace.gz"
            write_syn(t)
            shutil.copy(runner.faults_path(tr), runner.faults_path(t))
            syn = runner.from_spec({**spec, "trace": str(t), "faults_kind": "touched"},
                                   "x", "x.json")
            self.assertIsNotNone(runner.faults_of(runner.trace_of(syn)))
            self.assertIsNone(runner.faults_of(runner.trace_of(syn), "touched"))
            with self.assertRaisesRegex(SystemExit, "no .*syn.touched.faults.gz"):
                runner.trace_files(syn)
        for name in ("andrew-hdd2001", "andrew-ssd", "pystart-hdd2001", "pystart-ssd",
                     "pbuild-j2-hdd2001", "pbuild-j2-touched-ssd", "selftest-pystart",
                     "mixed-hdd2001", "mixed-hdd", "mixed-cloud", "mixed-ssd",
                     "pbuild-j4-hdd2001", "pbuild-j4-hdd", "pbuild-j2-hdd",
                     "pbuild-j2-cloud", "gnuld-hdd2001", "gnuld-hdd",
                     "gnuld-cloud", "pbuild-j4-cloud", "mixed-nvme", "pbuild-j2-ssd",
                     "pbuild-j2-nvme"):
            exp = runner.load_experiment(name)
            self.assertEqual(exp.faults_kind, "touched")
            # the measured trace's and each warm-up's own touched pages
            for t in [runner.trace_of(exp), *runner.warmup_traces(exp)]:
                self.assertTrue(any(a.startswith(f"{runner.faults_path(t, 'touched')}:")
                                    for a in runner.trace_files(exp)), (name, t))

    def test_replays(self) -> None:
        exp = runner.load_experiment("andrew-varied-hdd2001")  # interludes, 3 + 2 runs
        cold, hot = exp.configs[0], exp.configs[-1]
        self.assertEqual((runner.replays(exp, cold, True), runner.replays(exp, hot, False)),
                         (3 + 2 * 2 + 1, 3 + 2))


class ExperimentFilesTest(unittest.TestCase):
    NOT_MATRIX = {"det-andrew", "det-andrew-epcm", "det-gnuld", "selftest-andrew",
                  "selftest-random", "selftest-pystart",  # determinism and make test only
                  # one mechanism at a time, against their matrix cell's none and hot
                  "ablation-pystart-hdd2001", "ablation-glimpse-hdd2001",
                  "ablation-contexts-pbuild-j2-hdd2001",
                  "ablation-contexts-pbuild-j2-ssd",
                  "ablation-contexts-mixed-hdd2001",
                  "ablation-contexts-random-hdd2001"}

    def test_every_file_loads_and_the_matrix_has_hot(self) -> None:
        for p in sorted(runner.EXPERIMENTS.glob("*.json")):
            exp = runner.load_experiment(p.stem)
            if p.stem not in self.NOT_MATRIX:
                self.assertIn("hot", [c.name for c in exp.configs], p.stem)

    def test_lowmem(self) -> None:
        """The limit reaches the guest; it is below the guest's RAM and above
        the replay's own memory (anon-rss 32,288 kB replaying glimpse, from
        the kernel's OOM report when a 32 MiB limit killed it).  That the hot
        run then misses is measured in the VM (the experiment's description)."""
        exp = runner.load_experiment("glimpse-lowmem-hdd2001")
        lim = (exp.memory_limit_mb or 0) * MIB
        self.assertIn(f"MEMORY_LIMIT_MB={exp.memory_limit_mb}\n",
                      runner.eval_conf(exp, exp.configs[1], False))
        self.assertGreater(lim, 32288 * 1024 + WORKLOADS["glimpse"].stats.working_set_bytes / 2)
        self.assertLess(lim, WORKLOADS["glimpse"].memory_mb(True) * MIB / 8)
        self.assertEqual([c.name for c in exp.configs][:2], ["none", "hot"])

    def test_lowmem_guest_scope(self) -> None:
        exp = runner.load_experiment("glimpse-lowmem-guest-hdd2001")
        conf = runner.eval_conf(exp, exp.configs[0], False)
        self.assertIn("MEMORY_LIMIT_MB=128\nMEMORY_LIMIT_SCOPE=guest\n", conf)
        cg = runner.load_experiment("glimpse-lowmem-hdd2001")
        self.assertNotIn("MEMORY_LIMIT_SCOPE", runner.eval_conf(cg, cg.configs[0], False))
        with self.assertRaisesRegex(SystemExit, "memory_limit_scope is cgroup or guest"):
            runner.from_spec({**exp.spec, "memory_limit_scope": "host"}, "x", "x.json")

    def test_cgroup_record(self) -> None:
        """The memory limit's files as the guest copies them (cgroup v2)."""
        with tempfile.TemporaryDirectory() as tmp:
            d = Path(tmp)
            self.assertEqual(report.cgroup(d), {})
            (d / "cgroup-memory.max.txt").write_text("67108864\n")
            (d / "cgroup-memory.peak.txt").write_text("67108864\n")
            (d / "cgroup-memory.events.txt").write_text(
                "low 0\nhigh 0\nmax 262\noom 4\noom_kill 4\noom_group_kill 0\n")
            self.assertEqual(report.cgroup(d), {"max": 67108864, "peak": 67108864,
                                                "max_events": 262, "oom_kill": 4})

    def test_selftest_repeats_a_model(self) -> None:
        self.assertEqual(runner.load_experiment("selftest-andrew").repeat,
                         ["none", "epcm-64-51"])


class GapTest(unittest.TestCase):
    """The share of the cold-to-hot gap closed, from selftest-andrew's
    recorded results with a hot configuration made from them."""

    def test_gap(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            res = Path(tmp) / "res"
            shutil.copytree(DATA / "eval-results" / "selftest-andrew", res / "gap")
            # a hot run: none's measured run with elapsed and I/O latency cut
            j = json.loads((res / "gap" / "none" / "cold-1.json").read_text())
            j["elapsed_ns"] -= 1_000_000_000
            j["io_latency_ns"] -= 2_000_000_000
            (res / "gap" / "hot").mkdir()
            (res / "gap" / "hot" / "hot-1.json").write_text(json.dumps(j))
            spec = json.loads((runner.EXPERIMENTS / "selftest-andrew.json").read_text())
            self.assertIn({"name": "hot", "model": "none", "cache": "hot"}, spec["configs"])
            # the recorded results had the probes timed, as make test's then did
            spec["probes"] = "timed"
            exp = Path(tmp) / "gap.json"
            exp.write_text(json.dumps(spec))
            with mock.patch.object(runner, "RESULTS", res):
                s = report.summarize(str(exp))
        rows = {r["config"]: r for r in s["rows"]}
        none, epcm, hot = rows["none"], rows["epcm-64-51"], rows["hot"]
        self.assertTrue(s["hot_run"])
        self.assertEqual((none["gap_elapsed_pct"], hot["gap_elapsed_pct"]), (0.0, 100.0))
        # epcm: 5.420577 -> 5.298 s of a 1 s gap; 3.147 -> 3.010 s of a 2 s gap
        self.assertAlmostEqual(epcm["gap_elapsed_pct"],
                               100 * (none["elapsed_s"] - epcm["elapsed_s"]) / 1.0)
        self.assertAlmostEqual(epcm["gap_io_pct"], 100 * (3.147284556 - 3.009902828) / 2.0)
        line = report.table(s).splitlines()[3]
        self.assertIn(f"| {epcm['gap_elapsed_pct']:.1f}% | 6.9% |", line)
        # the demo prints it too
        self.assertIn("share of the cold-to-hot gap EPCM closed: elapsed "
                      f"{epcm['gap_elapsed_pct']:.1f}%, total I/O latency 6.9%",
                      demo.summary(rows))


if __name__ == "__main__":
    unittest.main()
