"""Run an experiment: one VM per configuration (eval/vm/run.py's boot()),
results collected as one JSON per replay under $PPF_CACHE/eval/results/EXPERIMENT/."""

from __future__ import annotations

import concurrent.futures as cf
import dataclasses
import functools
import json
import math
import os
import shutil
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Set

from .. import tracefmt
from ..vm import run as vm
from ..vm.config import BootRequest
from ..vm.parse import extract
from . import build, sparse
from .profiles import PROFILES, Profile
from .workloads import TOP, WORKLOADS

EXPERIMENTS = TOP / "eval" / "experiments"
RESULTS = build.CACHE / "results"
MODELS = ("none", "last_successor", "pcm", "epcm", "bootlist")
# Spin rate of the replay's think time (iterations per us), fixed so every
# boot does the same work: the value ppf-replay's calibration measured in the
# test VM at icount shift 2 (see docs/results.md, "Determinism").
CALIBRATED_SPIN_RATE = 83.0
DEFAULT_SPIN_RATE = f"{CALIBRATED_SPIN_RATE:g}"  # an experiment's "spin_rate": "83"


@dataclasses.dataclass
class Config:
    name: str
    model: str = "none"          # none | last_successor | pcm | epcm | bootlist
    ps: int = 64
    order: int = 51
    cache: str = "cold"          # cold | hot (measured runs)

    @property
    def label(self) -> str:
        if self.model in ("pcm", "epcm"):
            lab = f"{self.model} {self.ps}/{self.order}"
            return lab + " (hot)" if self.cache == "hot" else lab
        return self.name


@dataclasses.dataclass
class Experiment:
    """An experiment file (eval/experiments/NAME.json, harness/README.md)."""
    name: str
    workload: str                  # WORKLOADS
    profile: str                   # PROFILES
    configs: List[Config]          # the file's "configs", expanded
    warmups: int = 3
    runs: int = 2
    hot_runs: int = 0
    repeat: List[str] = dataclasses.field(default_factory=list)    # booted twice
    blktrace: List[str] = dataclasses.field(default_factory=list)  # one run more, traced
    icount_shift: int = 2
    spin_rate: Any = DEFAULT_SPIN_RATE  # iterations per us, or "compute"
    trace: Any = None              # a path, {"random": SEED}, {"workload": NAME}
    warmup_trace: Any = None
    interlude_trace: Any = None
    replay_args: str = ""
    image_in_initramfs: bool = False
    spec: Dict[str, Any] = dataclasses.field(default_factory=dict)  # the file + defaults
    think_scale: Optional[float] = None  # set by spin_rate() for "compute"

    def info(self) -> Dict[str, Any]:
        """The file with its defaults filled in, as experiment.json records it."""
        out = dict(self.spec)
        if self.think_scale is not None:
            out["think_scale"] = self.think_scale
        return out


def load_experiment(name: str) -> Experiment:
    p = Path(name)
    if not p.exists():
        p = EXPERIMENTS / f"{name}.json"
    spec = json.loads(p.read_text())
    spec.setdefault("name", p.stem)
    spec.setdefault("warmups", 3)
    spec.setdefault("runs", 2)
    spec.setdefault("hot_runs", 0)
    spec.setdefault("repeat", [])
    spec.setdefault("blktrace", [])
    spec.setdefault("icount_shift", 2)
    spec.setdefault("spin_rate", DEFAULT_SPIN_RATE)
    spec.setdefault("image_in_initramfs", True)  # no virtio disk: docs/results.md, Determinism
    fields = {f.name for f in dataclasses.fields(Experiment)} - {"configs", "spec",
                                                                 "think_scale"}
    return Experiment(configs=expand(spec["configs"]), spec=spec,
                      **{k: v for k, v in spec.items() if k in fields})


def expand(specs: List[Dict[str, Any]]) -> List[Config]:
    out: List[Config] = []
    for s in specs:
        if "shapes" in s:
            for ps, order in s["shapes"]:
                out.append(Config(f"{s['model']}-{ps}-{order}", s["model"], ps, order,
                                  s.get("cache", "cold")))
        else:
            c = Config(**s)
            if c.model not in MODELS:
                raise SystemExit(f"harness: unknown model {c.model}")
            out.append(c)
    return out


def trace_of(exp: Experiment) -> Path:
    """The trace the measured runs replay: the workload's unless "trace" says."""
    t = extra_trace(exp, "trace")
    return WORKLOADS[exp.workload].trace if t is None else t


def extra_trace(exp: Experiment, key: str) -> Optional[Path]:
    """A trace (key: trace, warmup_trace or interlude_trace): a path, or
    {"random": SEED} (synth.py), or {"workload": NAME}.  None when absent."""
    t = getattr(exp, key)
    if t is None:
        return None
    if isinstance(t, dict) and "random" in t:
        from . import synth
        return synth.random_order(WORKLOADS[exp.workload].trace, int(t["random"]))
    if isinstance(t, dict) and "workload" in t:
        return WORKLOADS[t["workload"]].trace
    if not isinstance(t, str):
        raise SystemExit(f"harness: {key}: not a path, random or workload: {t!r}")
    p = Path(t)
    return p if p.is_absolute() else TOP / p


@functools.lru_cache(maxsize=None)
def think_and_compute(trace: Path) -> Dict[str, int]:
    """Recorded think time of a serial trace (ppf-replay's definition: the gap
    since the latest end of any earlier call) and the untraced compute_ns."""
    t = tracefmt.load_trace(trace)
    think = end = 0
    for start, dur, *_ in t["events"]:
        think += max(0, start - end)
        end = max(end, start + dur)
    compute = t["meta"].get("compute_ns", 0)  # a number in META_NUMS: an int
    return {"think_recorded_ns": think,
            "compute_ns": compute if isinstance(compute, int) else 0}


def spin_rate(exp: Experiment) -> str:
    """"compute": think time scaled so that its total is the untraced run's
    user+sys time (the recorded gaps also hold strace's per-process costs)."""
    if str(exp.spin_rate) != "compute":
        return str(exp.spin_rate)
    tc = think_and_compute(trace_of(exp))
    exp.think_scale = tc["compute_ns"] / tc["think_recorded_ns"]
    return f"{CALIBRATED_SPIN_RATE * exp.think_scale:.3f}"


def eval_conf(exp: Experiment, c: Config, blktrace: bool) -> str:
    """The guest's /ppf/eval.conf (run-experiment.sh) for configuration c."""
    model_on = c.model in ("last_successor", "pcm", "epcm")
    runs, hot = (exp.runs, exp.hot_runs) if c.cache == "cold" else (0, exp.runs)
    v = {"TRACE": "/ppf/trace.gz", "WARMUPS": exp.warmups, "RUNS": runs,
         "HOT_RUNS": hot, "SPIN_RATE": spin_rate(exp),
         "MODEL": c.model if model_on else "epcm", "PS": c.ps, "ORDER": c.order,
         "MODEL_ON": int(model_on), "BOOTLIST": int(c.model == "bootlist"),
         "BLKTRACE": int(blktrace),
         "IMAGE": "/ppf/image.img" if exp.image_in_initramfs else "/dev/vda",
         **{k.upper(): f"/ppf/{k}.gz" for k in ("warmup_trace", "interlude_trace")
            if getattr(exp, k) is not None}, "REPLAY_ARGS": f"'{exp.replay_args}'"}
    return "".join(f"{k}={val}\n" for k, val in v.items())


class Runner:
    def __init__(self, built: build.Built, wall_clock: bool = False, jobs: int = 2,
                 quiet: bool = False) -> None:
        self.b = built
        self.wall_clock = wall_clock
        self.jobs = jobs
        self.quiet = quiet
        self.t0 = time.monotonic()
        self.lock = threading.Lock()
        self.procs: Set["subprocess.Popen[bytes]"] = set()
        # a stopped harness stops its VMs (QEMU runs in a session of its own)
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, self._stop)

    def _stop(self, signum: int, _frame: Any) -> None:
        with self.lock:
            for p in self.procs:
                try:
                    os.killpg(p.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        raise SystemExit(f"harness: stopped by signal {signum}")

    def _started(self, proc: "subprocess.Popen[bytes]") -> None:
        with self.lock:
            self.procs.add(proc)

    def say(self, msg: str) -> None:
        with self.lock:
            print(f"[{time.monotonic() - self.t0:7.1f} s] {msg}", flush=True)

    def boot(self, exp: Experiment, c: Config, tag: str, img: Path, img_mb: int,
             out: Path, blktrace: bool) -> Dict[str, Any]:
        w = WORKLOADS[exp.workload]
        prof = PROFILES[exp.profile]
        if out.exists():
            shutil.rmtree(out)
        out.mkdir(parents=True)
        conf = out / "eval.conf"
        conf.write_text(eval_conf(exp, c, blktrace))
        trace = trace_of(exp)
        gb = max(1, math.ceil(img_mb / 1024))
        adds = [f"{self.b.ko}:/ppf/predictive_prefetch.ko",
                f"{self.b.replay}:/ppf/ppf-replay",
                f"{self.b.helpers['bootlist']}:/ppf/bootlist",
                f"{self.b.helpers['nbcopy']}:/ppf/nbcopy",
                f"{trace}:/ppf/trace.gz", f"{conf}:/ppf/eval.conf"]
        for k in ("warmup_trace", "interlude_trace"):
            extra = extra_trace(exp, k)
            if extra is not None:
                adds.append(f"{extra}:/ppf/{k}.gz")
        disks: List[str] = []
        if exp.image_in_initramfs:
            adds.append(f"{sparse.sparse_image(img)}:/ppf/image.img")
        else:
            disks.append(f"{img}:ro")
        req = BootRequest(
            kernel=self.b.kdir, initrd=self.b.initrd,
            command=(TOP / "eval" / "guest" / "run-experiment.sh").read_text(),
            adds=tuple(adds), disks=tuple(disks), append=prof.kernel_params(gb),
            memory=w.memory, smp=1, icount_shift=exp.icount_shift,
            timeout=float(w.timeout), wall_clock=self.wall_clock, log=out / "vm.log")
        t = time.monotonic()
        self.say(f"{exp.name}: {tag} booting")
        res = vm.boot(req, started=self._started)
        vm.write_json(res, out / "vm.json")
        with self.lock:
            self.procs = {p for p in self.procs if p.poll() is None}
        host_s = time.monotonic() - t
        text = (out / "vm.log").read_text(errors="replace")
        ok = extract(text, out)
        meta = {"config": dataclasses.asdict(c), "tag": tag, "host_s": round(host_s, 1),
                "build": self.b.identity(), "spin_rate": spin_rate(exp),
                "run_py_status": res.exit_code, "results": ok,
                "vm": dataclasses.asdict(res)}
        (out / "meta.json").write_text(json.dumps(meta, indent=1))
        runs = sorted(p.stem for p in out.glob("*.json")
                      if p.stem.startswith(("cold-", "hot-")))
        summ = []
        for r in runs:
            j = json.loads((out / f"{r}.json").read_text())
            err = j["errors"]["unexpected"] + j["errors"]["no_fd"]
            summ.append(f"{r} {j['elapsed_ns'] / 1e9:.3f}s io {j['io_latency_ns'] / 1e9:.3f}s"
                        + (f" UNEXPECTED ERRORS {err}" if err else ""))
        status = "ok" if ok and res.exit_code == 0 else f"FAILED (run.py {res.exit_code})"
        self.say(f"{exp.name}: {tag} {status} in {host_s:.0f} s host: {'; '.join(summ)}")
        if status != "ok":
            self.say("  " + "\n  ".join(text.splitlines()[-25:]) + f"\n  log: {out}/vm.log")
        return meta

    def run(self, exp: Experiment, only: Optional[List[str]] = None) -> Path:
        w = WORKLOADS[exp.workload]
        img, img_mb = build.workload_image(w, trace_of(exp))
        root = RESULTS / exp.name
        root.mkdir(parents=True, exist_ok=True)
        jobs = []
        for c in exp.configs:
            if only and c.name not in only:
                continue
            jobs.append((c, c.name, c.name in exp.blktrace))
            if c.name in exp.repeat:
                jobs.append((c, f"{c.name}.boot2", False))
        self.say(f"{exp.name}: {len(jobs)} VMs ({exp.workload}, {exp.profile}, "
                 f"{exp.warmups} warm-ups, {exp.runs} runs), {self.jobs} at a time")
        with cf.ThreadPoolExecutor(self.jobs) as ex:
            futs = [ex.submit(self.boot, exp, c, tag, img, img_mb, root / tag, bt)
                    for c, tag, bt in jobs]
            for f in futs:
                f.result()
        info = {"experiment": exp.info(),
                "build": self.b.identity(), "image_mb": img_mb,
                "host_s": round(time.monotonic() - self.t0, 1)}
        (root / "experiment.json").write_text(json.dumps(info, indent=1))
        self.say(f"{exp.name}: done, results in {root}")
        return root


def calibrate(built: build.Built, profile: Profile, shift: int = 2) -> Dict[str, Any]:
    """fio on /dev/nullb1 of the profile: random 4 KiB qd1 and sequential 1 MiB."""
    out = RESULTS / "profiles" / profile.name
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    rand_ios = max(50, min(2000, int(2e9 / profile.completion_nsec)))
    seq_mb = max(32, min(1024, profile.mbps * 3))
    (out / "eval.conf").write_text(f"RAND_IOS={rand_ios}\nSEQ_MB={seq_mb}\n")
    req = BootRequest(kernel=built.kdir, initrd=built.initrd,
                      command=(TOP / "eval" / "guest" / "calibrate.sh").read_text(),
                      adds=(f"{out / 'eval.conf'}:/ppf/eval.conf",),
                      append=profile.kernel_params(1), memory="1536M", smp=1,
                      icount_shift=shift, timeout=900.0, log=out / "vm.log")
    t = time.monotonic()
    vm.boot(req)
    if not extract((out / "vm.log").read_text(errors="replace"), out):
        raise SystemExit(f"harness: calibration of {profile.name} failed, see {out}/vm.log")
    rj = json.loads((out / "fio-rand.json").read_text())["jobs"][0]["read"]
    sj = json.loads((out / "fio-seq.json").read_text())["jobs"][0]["read"]
    res = {"profile": dataclasses.asdict(profile),
           "rand4k_qd1": {"ios": rj["total_ios"], "lat_mean_us": rj["clat_ns"]["mean"] / 1e3,
                          "lat_stddev_us": rj["clat_ns"]["stddev"] / 1e3,
                          "iops": rj["iops"]},
           "seq1m": {"MiB": sj["io_bytes"] >> 20, "MiB_s": sj["bw_bytes"] / 2**20,
                     "MB_s": sj["bw_bytes"] / 1e6, "lat_mean_ms": sj["clat_ns"]["mean"] / 1e6},
           "host_s": round(time.monotonic() - t, 1)}
    (out / "calibration.json").write_text(json.dumps(res, indent=1))
    return res
