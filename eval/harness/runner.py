"""Run an experiment: one VM per configuration (eval/vm/run.py's boot()),
results collected as one JSON per replay under $PPF_CACHE/eval/results/EXPERIMENT/."""

from __future__ import annotations

import concurrent.futures as cf
import dataclasses
import functools
import hashlib
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Set, Tuple

from .. import tracefmt
from ..vm import run as vm
from ..vm.config import BootRequest
from ..vm.parse import extract
from . import build, sparse
from .profiles import PROFILES
from .workloads import (OVERRIDES, TOP, Workload, check_overrides, from_trace, trace_name,
                        workload)

EXPERIMENTS = TOP / "eval" / "experiments"
# The start the guest scripts share (run-experiment.sh and realcheck.sh
# source it): device, image, clock phase, mount, module.  SRC:DEST for boot().
PRELUDE = f"{TOP / 'eval' / 'guest' / 'prelude.sh'}:/ppf/prelude.sh"
# PPF_RESULTS: another root, e.g. one private to a run (make test's short
# evaluation uses one, so two runs on one machine never read each other's).
RESULTS = Path(os.environ.get("PPF_RESULTS") or build.CACHE / "results")
# run --trace's experiments: apart per checkout (a hash of its path, as the
# module's build directory), so that another checkout's run of the same
# trace never replaces them
CHECKOUT = hashlib.sha256(str(TOP).encode()).hexdigest()[:8]
TRACES = RESULTS / "traces" / CHECKOUT
MODELS = ("none", "last_successor", "pcm", "epcm", "bootlist", "oracle")
# The guest's CPU: one instruction a nanosecond (icount shift 0), the speed
# of the cores that drive today's flash; at shift 2 (250 MIPS, the bench
# until the oracle came) every instruction of the kernel, ppf's worker
# included, weighed four times what the devices' timings assume.
ICOUNT_SHIFT = 0
# Spin rate of the replay's think time (iterations per us), fixed so every
# boot does the same work: ppf-replay's calibration measured 83 iterations/us
# in the test VM at icount shift 2 (83.1 in every run's "calibration"); one
# iteration is a fixed number of instructions, so the rate at shift s is
# 83 x 2^(2 - s) (332 at shift 0, where the calibration measures 332.5).
CALIBRATED_SPIN_RATE = 83.0
CALIBRATED_AT_SHIFT = 2
DEFAULT_SPIN_RATE = "calibrated"  # an experiment's "spin_rate": spin_rate_at(its shift)


def spin_rate_at(shift: int) -> float:
    """The calibrated spin rate at icount shift @shift (iterations per us)."""
    return CALIBRATED_SPIN_RATE * 2.0 ** (CALIBRATED_AT_SHIFT - shift)


@dataclasses.dataclass
class Config:
    name: str
    model: str = "none"          # none | last_successor | pcm | epcm | bootlist | oracle
    ps: int = 64
    order: int = 51
    cache: str = "cold"          # cold | hot (measured runs)
    # other vm.predictive_prefetch sysctls, set after the model (e.g. io_class)
    sysctls: Dict[str, str] = dataclasses.field(default_factory=dict)
    oracle_class: str = "be"     # the oracle's I/O priority class: be | idle
    # parameters of the module's insmod (MODULE_PARAMS), e.g. measure_hooks
    module_params: Dict[str, str] = dataclasses.field(default_factory=dict)

    @property
    def label(self) -> str:
        if self.model in ("pcm", "epcm"):
            lab = f"{self.model} {self.ps}/{self.order}"
            lab += "".join(f" {k}={v}" for k, v in sorted(self.sysctls.items()))
            lab += "".join(f" {k}={v}" for k, v in sorted(self.module_params.items()))
            return lab + " (hot)" if self.cache == "hot" else lab
        return self.name


@dataclasses.dataclass
class Experiment:
    """An experiment file (eval/experiments/NAME.json, harness/README.md)."""
    name: str
    workload: Optional[str]        # eval/workloads/NAME; None: "trace" is a path
    profile: str                   # PROFILES
    configs: List[Config]          # the file's "configs", expanded
    warmups: int = 3
    runs: int = 2
    hot_runs: int = 0
    repeat: List[str] = dataclasses.field(default_factory=list)    # booted twice
    blktrace: List[str] = dataclasses.field(default_factory=list)  # one run more, traced
    events: List[str] = dataclasses.field(default_factory=list)    # every event's latency kept
    sched_trace: List[str] = dataclasses.field(default_factory=list)  # the scheduler, traced
    icount_shift: int = ICOUNT_SHIFT
    spin_rate: Any = DEFAULT_SPIN_RATE  # iterations per us, "calibrated" or "compute"
    trace: Any = None              # a path, {"random": SEED}, {"workload": NAME}
    warmup_trace: Any = None       # one trace for every warm-up (old files)
    warmup_traces: Any = None      # a list of them, replayed in turn
    interlude_trace: Any = None
    replay_args: str = ""
    # the replay's page-cache probes: "timed" (before each call, in the run's
    # time) or "think" (in place of the think before it: ppf-replay --probes)
    probes: str = "timed"
    image_in_initramfs: bool = False
    memory_limit_mb: Optional[int] = None  # the replays in a cgroup with memory.max
    memory_limit_scope: str = "cgroup"     # or "guest": all but the limit held in tmpfs
    # which faults file a replay that maps gets (faults_path()): "faulted",
    # the pages the real program faulted, or "touched", every page it touched
    faults_kind: str = "faulted"
    spec: Dict[str, Any] = dataclasses.field(default_factory=dict)  # the file + defaults
    think_scale: Optional[float] = None  # set by spin_rate() for "compute"

    def info(self) -> Dict[str, Any]:
        """The file with its defaults filled in, as experiment.json records it."""
        out = dict(self.spec)
        if self.think_scale is not None:
            out["think_scale"] = self.think_scale
        return out


# Keys an experiment file may have beside Experiment's fields: what the
# workload's VM gets (workloads.OVERRIDES), and what is only for the reader.
EXTRA_KEYS = {"description", "think_scale", "adhoc", *OVERRIDES}


def results_dir(exp: "Experiment") -> Path:
    """Where exp's results are collected: RESULTS/NAME, or for run --trace's
    experiments ("adhoc") TRACES/NAME."""
    return (TRACES if exp.spec.get("adhoc") else RESULTS) / exp.name


def experiment_file(name: str) -> Path:
    """NAME as a path, eval/experiments/NAME.json, or the experiment.json that
    a run of NAME left in the results (an experiment made by run --trace)."""
    for p in (Path(name), EXPERIMENTS / f"{name}.json"):
        if p.is_file():
            return p
    for p in (TRACES / name / "experiment.json", RESULTS / name / "experiment.json"):
        if p.is_file():
            return p
    known = ", ".join(sorted(q.stem for q in EXPERIMENTS.glob("*.json")))
    raise SystemExit(f"harness: no experiment {name!r}: not a file, not in {EXPERIMENTS} "
                     f"({known}), no results in {TRACES / name} or {RESULTS / name}")


def load_experiment(name: str) -> Experiment:
    p = experiment_file(name)
    try:
        spec = json.loads(p.read_text())
    except json.JSONDecodeError as e:
        raise SystemExit(f"harness: {p}: not JSON: {e}")
    if p.name == "experiment.json" and "experiment" in spec:  # a run's record
        spec = spec["experiment"]
    return from_spec(spec, p.stem if p.name != "experiment.json" else p.parent.name, str(p))


def from_spec(spec: Dict[str, Any], name: str, where: str) -> Experiment:
    """An Experiment from a file's object: defaults filled in, keys checked."""
    spec = dict(spec)
    spec.setdefault("name", name)
    spec.setdefault("warmups", 3)
    spec.setdefault("runs", 2)
    spec.setdefault("hot_runs", 0)
    spec.setdefault("repeat", [])
    spec.setdefault("blktrace", [])
    spec.setdefault("icount_shift", ICOUNT_SHIFT)
    spec.setdefault("spin_rate", DEFAULT_SPIN_RATE)
    spec.setdefault("image_in_initramfs", True)  # no virtio disk: docs/results.md, Determinism
    fields = {f.name for f in dataclasses.fields(Experiment)} - {"configs", "spec",
                                                                 "think_scale"}
    unknown = sorted(set(spec) - fields - EXTRA_KEYS - {"configs"})
    if unknown:
        raise SystemExit(f"harness: {where}: unknown keys {unknown}")
    for k in ("profile", "configs"):
        if k not in spec:
            raise SystemExit(f"harness: {where}: no {k!r}")
    if spec.get("workload") is None and not isinstance(spec.get("trace"), str):
        raise SystemExit(f"harness: {where}: needs \"workload\" (eval/workloads/NAME) "
                         "or a \"trace\" path")
    if spec.get("warmup_trace") is not None and spec.get("warmup_traces") is not None:
        raise SystemExit(f"harness: {where}: warmup_trace and warmup_traces both given")
    lim = spec.get("memory_limit_mb")
    if lim is not None and (not isinstance(lim, int) or isinstance(lim, bool) or lim < 16):
        raise SystemExit(f"harness: {where}: memory_limit_mb must be an integer >= 16, "
                         f"not {lim!r}")
    if spec.get("probes", "timed") not in ("timed", "think"):
        raise SystemExit(f"harness: {where}: probes is timed or think, "
                         f"not {spec['probes']!r}")
    if "--probes" in str(spec.get("replay_args", "")):
        raise SystemExit(f"harness: {where}: the probes' place is the experiment's "
                         "\"probes\", not a replay_args option")
    if spec.get("faults_kind", "faulted") not in FAULTS_KINDS:
        raise SystemExit(f"harness: {where}: faults_kind is {' or '.join(FAULTS_KINDS)}, "
                         f"not {spec['faults_kind']!r}")
    if spec.get("memory_limit_scope", "cgroup") not in ("cgroup", "guest"):
        raise SystemExit(f"harness: {where}: memory_limit_scope is cgroup or guest, "
                         f"not {spec['memory_limit_scope']!r}")
    check_overrides(where, spec)
    spec.setdefault("workload", None)
    configs = expand(spec["configs"])
    for key in ("repeat", "blktrace", "events", "sched_trace"):
        stray = sorted(set(spec.get(key, [])) - {c.name for c in configs})
        if stray:
            raise SystemExit(f"harness: {where}: {key} names no configuration {stray}")
    return Experiment(configs=configs, spec=spec,
                      **{k: v for k, v in spec.items() if k in fields})


def expand(specs: List[Dict[str, Any]]) -> List[Config]:
    out: List[Config] = []
    for s in specs:
        if "shapes" in s:
            for ps, order in s["shapes"]:
                out.append(Config(f"{s['model']}-{ps}-{order}", s["model"], ps, order,
                                  s.get("cache", "cold"), check_sysctls(s),
                                  module_params=check_module_params(s)))
        else:
            fields: Dict[str, Any] = {**s, "sysctls": check_sysctls(s),
                                      "module_params": check_module_params(s)}
            try:
                c = Config(**fields)
            except TypeError as e:
                raise SystemExit(f"harness: configuration {s.get('name', s.get('model'))}: "
                                 f"{e}") from None
            if c.model not in MODELS:
                raise SystemExit(f"harness: unknown model {c.model}")
            if c.oracle_class not in ("idle", "be"):
                raise SystemExit(f"harness: configuration {c.name}: oracle_class is idle "
                                 f"or be, not {c.oracle_class!r}")
            out.append(c)
    return out


SYSCTL_NAME = re.compile(r"[a-z_]+")
SYSCTL_VALUE = re.compile(r"[A-Za-z0-9_.,-]+")


def check_sysctls(spec: Dict[str, Any]) -> Dict[str, str]:
    """A configuration's "sysctls": {name: value} of vm.predictive_prefetch,
    names and values as the guest's shell can pass them on unquoted."""
    out: Dict[str, str] = {}
    for k, v in dict(spec.get("sysctls", {})).items():
        if not SYSCTL_NAME.fullmatch(str(k)) or not SYSCTL_VALUE.fullmatch(str(v)):
            raise SystemExit(f"harness: configuration {spec.get('name', spec.get('model'))}: "
                             f"bad sysctl {k!r}={v!r} (names [a-z_], values "
                             "[A-Za-z0-9_.,-])")
        if k in ("enabled", "model", "partition_size", "model_order"):
            raise SystemExit(f"harness: sysctl {k} is the configuration's own "
                             "(model, ps, order)")
        out[str(k)] = str(v)
    return out


# the module's parameters (mm/prefetch/main.c) a configuration may set
MODULE_PARAMS = {"measure_hooks": ("0", "1")}


def check_module_params(spec: Dict[str, Any]) -> Dict[str, str]:
    """A configuration's "module_params": {name: value} given to insmod."""
    out: Dict[str, str] = {}
    for k, v in dict(spec.get("module_params", {})).items():
        if str(v) not in MODULE_PARAMS.get(str(k), ()):
            raise SystemExit(f"harness: configuration {spec.get('name', spec.get('model'))}: "
                             f"module parameter {k}={v!r} is not one of "
                             + ", ".join(f"{n}={'|'.join(vs)}" for n, vs in MODULE_PARAMS.items()))
        out[str(k)] = str(v)
    return out


def workload_of(exp: Experiment) -> Workload:
    """The experiment's workload (discovered, or derived from its "trace"
    path), with the experiment's overrides of room, RAM and timeout."""
    if exp.workload is not None:
        w = workload(exp.workload)
    else:
        w = from_trace(resolve_trace(exp, "trace", exp.trace))
    return w.with_overrides(check_overrides(exp.name, exp.spec))


def workload_name(exp: Experiment) -> str:
    """The workload's name, or the trace file's (run --trace), without reading it."""
    return exp.workload or trace_name(Path(str(exp.trace)))


def trace_of(exp: Experiment) -> Path:
    """The trace the measured runs replay: the workload's unless "trace" says."""
    t = extra_trace(exp, "trace")
    return workload_of(exp).trace if t is None else t


def extra_trace(exp: Experiment, key: str) -> Optional[Path]:
    """A trace (key: trace, warmup_trace or interlude_trace): a path, or
    {"random": SEED} (synth.py), or {"workload": NAME}.  None when absent."""
    t = getattr(exp, key)
    return None if t is None else resolve_trace(exp, key, t)


def resolve_trace(exp: Experiment, key: str, t: Any) -> Path:
    """One trace of an experiment file: a path (relative to the top of the
    repository), {"random": SEED} over the workload's trace, {"workload": NAME}."""
    if isinstance(t, dict) and "random" in t:
        from . import synth
        return synth.random_order(workload_of(exp).trace, int(t["random"]))
    if isinstance(t, dict) and "workload" in t:
        return workload(t["workload"]).trace
    if not isinstance(t, str):
        raise SystemExit(f"harness: {exp.name}: {key}: not a path, random or workload: {t!r}")
    p = Path(t)
    p = p if p.is_absolute() else TOP / p
    if not p.is_file():
        raise SystemExit(f"harness: {exp.name}: {key}: no such trace {p}")
    return p


def warmup_traces(exp: Experiment) -> List[Path]:
    """The warm-ups' traces, replayed in turn (warm-up i replays the
    ((i - 1) mod n)-th); empty: the warm-ups replay the measured trace."""
    if exp.warmup_trace is not None:
        return [resolve_trace(exp, "warmup_trace", exp.warmup_trace)]
    ts = exp.warmup_traces
    if ts is None:
        return []
    if not isinstance(ts, list) or not ts:
        raise SystemExit(f"harness: {exp.name}: warmup_traces: a non-empty list, not {ts!r}")
    return [resolve_trace(exp, f"warmup_traces[{i}]", t) for i, t in enumerate(ts)]


def replays(exp: Experiment, c: Config, blktrace: bool) -> int:
    """How many times a VM of configuration c replays a trace (for its timeout)."""
    runs = exp.runs * (2 if exp.interlude_trace is not None else 1)
    measured = runs + exp.hot_runs if c.cache == "cold" else exp.runs
    return exp.warmups + measured + int(blktrace)


@functools.lru_cache(maxsize=None)
def think_and_compute(trace: Path) -> Dict[str, int]:
    """Recorded think time as ppf-replay computes it (per process: ppftrace's
    think.py, the one shared definition) and the untraced compute_ns."""
    think, compute = tracefmt.think_and_compute(tracefmt.load_trace(trace))
    return {"think_recorded_ns": think, "compute_ns": compute}


def spin_rate(exp: Experiment) -> str:
    """"compute": think time scaled so that its total is the untraced run's
    user+sys time (the recorded gaps also hold strace's per-process costs);
    "calibrated": the recorded think time; both at the experiment's shift."""
    if str(exp.spin_rate) == "calibrated":
        return f"{spin_rate_at(exp.icount_shift):g}"
    if str(exp.spin_rate) != "compute":
        return str(exp.spin_rate)
    tc = think_and_compute(trace_of(exp))
    exp.think_scale = tc["compute_ns"] / tc["think_recorded_ns"]
    return f"{spin_rate_at(exp.icount_shift) * exp.think_scale:.3f}"


def eval_conf(exp: Experiment, c: Config, blktrace: bool) -> str:
    """The guest's /ppf/eval.conf (run-experiment.sh) for configuration c."""
    model_on = c.model in ("last_successor", "pcm", "epcm")
    runs, hot = (exp.runs, exp.hot_runs) if c.cache == "cold" else (0, exp.runs)
    v = {"TRACE": "/ppf/trace.gz", "WARMUPS": exp.warmups, "RUNS": runs,
         "HOT_RUNS": hot, "SPIN_RATE": spin_rate(exp),
         "MODEL": c.model if model_on else "epcm", "PS": c.ps, "ORDER": c.order,
         "MODEL_ON": int(model_on), "BOOTLIST": int(c.model in ("bootlist", "oracle")),
         **({"ORACLE": 1, "ORACLE_CLASS": c.oracle_class} if c.model == "oracle" else {}),
         "BLKTRACE": int(blktrace),
         **({"EVENTS": 1} if c.name in exp.events else {}),
         **({"SCHED_TRACE": 1} if c.name in exp.sched_trace else {}),
         **({"SYSCTLS": "'" + " ".join(f"{k}={val}" for k, val in c.sysctls.items()) + "'"}
            if c.sysctls else {}),
         **({"MODULE_PARAMS": "'" + " ".join(f"{k}={val}" for k, val in c.module_params.items())
             + "'"} if c.module_params else {}),
         "IMAGE": "/ppf/image.img" if exp.image_in_initramfs else "/dev/vda",
         **warmup_conf(exp),
         **({"INTERLUDE_TRACE": "/ppf/interlude_trace.gz"}
            if exp.interlude_trace is not None else {}),
         **({"MEMORY_LIMIT_MB": exp.memory_limit_mb}
            if exp.memory_limit_mb is not None else {}),
         **({"MEMORY_LIMIT_SCOPE": exp.memory_limit_scope}
            if exp.memory_limit_scope != "cgroup" else {}),
         "REPLAY_ARGS": "'" + " ".join(filter(None, [
             exp.replay_args, "--probes=think" if exp.probes == "think" else ""])) + "'"}
    return "".join(f"{k}={val}\n" for k, val in v.items())


def warmup_guest_paths(exp: Experiment) -> List[Tuple[Path, str]]:
    """(host trace, its path in the guest) of each warm-up trace."""
    return [(t, f"/ppf/warmup-trace-{i}.gz")
            for i, t in enumerate(warmup_traces(exp), 1)]


def warmup_conf(exp: Experiment) -> Dict[str, str]:
    """WARMUP_TRACES: the guest paths, space-separated, when there are any."""
    paths = [g for _, g in warmup_guest_paths(exp)]
    return {"WARMUP_TRACES": "'" + " ".join(paths) + "'"} if paths else {}


def tree_traces(exp: Experiment) -> List[Path]:
    """Warm-up and interlude traces whose file table is not the measured
    trace's (other recorded runs): the image holds their trees too."""
    own = file_table(trace_of(exp))
    others = [*warmup_traces(exp), *filter(None, [extra_trace(exp, "interlude_trace")])]
    out: List[Path] = []
    for t in others:
        if t not in out and file_table(t) != own:
            out.append(t)
    return out


@functools.lru_cache(maxsize=None)
def file_table(trace: Path) -> Tuple[Any, ...]:
    return tuple(tracefmt.load_trace(trace)["files"])


def missing_runs(exp: Experiment, c: Config, runs: List[str], console: str) -> str:
    """What a VM that exited cleanly still failed to do: measured runs without
    results (a replay killed, e.g. by a memory limit), or an initramfs that did
    not fit (the image truncated).  "" when nothing."""
    if "Initramfs unpacking failed" in console:
        return "initramfs unpacking failed: more guest RAM (memory_mb)"
    want = ([f"cold-{i}" for i in range(1, exp.runs + 1)] +
            [f"hot-{i}" for i in range(1, exp.hot_runs + 1)] if c.cache == "cold" else
            [f"hot-{i}" for i in range(1, exp.runs + 1)])
    lost = [r for r in want if r not in runs]
    return f"no results from {', '.join(lost)}" if lost else ""


# The faults files a trace may have beside it (faults_path()).
FAULTS_KINDS = ("faulted", "touched")


def faults_path(trace: Path, kind: str = "faulted") -> Path:
    """Where a trace's faults file is (ppf-replay run --faults: its mapped
    files touched at those pages, not whole): X.trace.gz -> X.faults.gz
    beside it, the pages the real program faulted (`realcheck --save-faults`
    writes it), or with kind "touched" X.touched.faults.gz, every page it
    touched (`realcheck --fault-around-bytes 4096 --save-faults`: with a
    one-page fault-around window each touched page faults; at the default
    window the pages a window mapped first never do)."""
    if kind not in FAULTS_KINDS:
        raise ValueError(f"faults kind {kind!r}: not one of {FAULTS_KINDS}")
    base = trace.name[:-len(".trace.gz")] if trace.name.endswith(".trace.gz") else trace.stem
    return trace.with_name(base + (".touched" if kind == "touched" else "") + ".faults.gz")


def faults_of(trace: Path, kind: str = "faulted") -> Optional[Path]:
    """The trace's faults file of that kind, when it has one."""
    p = faults_path(trace, kind)
    return p if p.is_file() else None


def faults_adds(trace: Path, guest: str, kind: str = "faulted") -> List[str]:
    """The faults file of @trace, at @guest's path with .gz -> .faults.gz
    (BootRequest adds): run-experiment.sh passes /ppf/X.faults.gz to the
    replays of /ppf/X.gz, and only to them (another trace's pages differ),
    whichever kind it is."""
    f = faults_of(trace, kind)
    return [f"{f}:{guest[:-len('.gz')]}.faults.gz"] if f else []


def uses_faults(exp: Experiment) -> bool:
    """Does the experiment's replay touch mapped or exec'd files by mapping
    them (ppf-replay's --mmap=map or --exec=map, the defaults)?  Only then
    does a faults file change what it reads: with --mmap=none (or read) and
    --exec=head (or none), as Andrew's reads, it would be passed for
    nothing and would make another bench of the same replay."""
    modes = {"--mmap": "map", "--exec": "map"}
    args = shlex.split(exp.replay_args)
    for i, a in enumerate(args):
        key, eq, val = a.partition("=")
        if key in modes:
            modes[key] = val if eq else (args[i + 1] if i + 1 < len(args) else "")
    return "map" in modes.values()


def faults_digests(exp: Experiment) -> Dict[str, str]:
    """{trace file name: sha256 (12 digits) of its faults file} for each trace
    the experiment replays that has one, when the replay maps (uses_faults()):
    part of what the bench is, since a mapped file replayed at its faults
    reads a fraction of it replayed whole.  Recorded with every boot
    (meta.json) and summary; report compares it."""
    out: Dict[str, str] = {}
    if not uses_faults(exp):
        return out
    for t in [trace_of(exp), *warmup_traces(exp)]:
        f = faults_of(t, exp.faults_kind)
        if f is not None:
            out[t.name] = hashlib.sha256(f.read_bytes()).hexdigest()[:12]
    return out


def trace_files(exp: Experiment) -> List[str]:
    """The traces the guest gets (BootRequest adds, HOST:GUEST), with their
    faults files when the replay maps (uses_faults())."""
    maps = uses_faults(exp)
    if maps and exp.faults_kind != "faulted":
        # a replay that would map its files whole instead is another bench
        for t in [trace_of(exp), *warmup_traces(exp)]:
            if faults_of(t, exp.faults_kind) is None:
                raise SystemExit(
                    f"harness: {exp.name}: faults_kind {exp.faults_kind}: no "
                    f"{faults_path(t, exp.faults_kind)} (python3 -m eval.harness "
                    "realcheck WORKLOAD --fault-around-bytes 4096 --no-boot --save-faults "
                    "after a boot with the same window)")
    out = [f"{trace_of(exp)}:/ppf/trace.gz"]
    if maps:
        out += faults_adds(trace_of(exp), "/ppf/trace.gz", exp.faults_kind)
    for t, g in warmup_guest_paths(exp):
        out += [f"{t}:{g}", *(faults_adds(t, g, exp.faults_kind) if maps else [])]
    inter = extra_trace(exp, "interlude_trace")
    if inter is not None:
        out.append(f"{inter}:/ppf/interlude_trace.gz")
    return out


PROGRESS_S = float(os.environ.get("PPF_PROGRESS_S", "60"))  # a running VM's line, this often
_GUEST_TS = re.compile(r"^\[\s*(\d+\.\d+)\]", re.M)
_START = re.compile(r"<<<PPF-START nonce=\S+ uptime=([\d.]+)>>>")


def progress(log: Path, n_replays: int) -> str:
    """What a running VM's console says so far: the replays done of
    n_replays, the guest script's last line (its phase), and the guest's
    seconds since its command started (its kernel's last timestamp), if the
    console shows them."""
    try:
        text = log.read_text(errors="replace")
    except OSError:
        return "starting"
    says = [line.split("ppf-eval: ", 1)[1] for line in text.splitlines()
            if "ppf-eval: " in line]
    done = sum(1 for s in says if s.startswith("run ") and " rc=" in s)
    out = f"replay {done} of {n_replays} done"
    stamps = _GUEST_TS.findall(text)
    start = _START.search(text)
    if stamps and start:
        out += f", guest {max(float(stamps[-1]) - float(start.group(1)), 0):.0f} s"
    phase = says[-1] if says else ("booting" if not start else "started")
    return out + f"; last: {phase[:90]}"


def time_left(host_s: List[float], remaining: int, jobs: int) -> str:
    """An estimate of a multi-VM run's time left: the VMs still to finish,
    each taking the mean of those done, jobs at a time."""
    if not host_s or remaining <= 0:
        return ""
    left = sum(host_s) / len(host_s) * -(-remaining // max(jobs, 1))
    return f"about {left / 60:.0f} min left" if left >= 90 else f"about {left:.0f} s left"


def _kill_session(proc: "subprocess.Popen[bytes]") -> None:
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except ProcessLookupError:
        pass


class Runner:
    def __init__(self, built: build.Built, wall_clock: bool = False, jobs: int = 2,
                 quiet: bool = False, qemu_args: Tuple[str, ...] = ()) -> None:
        self.b = built
        # more QEMU options for every boot ({out}: the boot's result directory)
        self.qemu_args = qemu_args
        self.wall_clock = wall_clock
        self.jobs = jobs
        self.quiet = quiet
        self.t0 = time.monotonic()
        self.lock = threading.Lock()
        self.procs: Set["subprocess.Popen[bytes]"] = set()
        self.stopping = False
        # a stopped harness stops its VMs (QEMU runs in a session of its own)
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, self._stop)

    def _stop(self, signum: int, _frame: Any) -> None:
        self.stop()
        raise SystemExit(f"harness: stopped by signal {signum}")

    def stop(self) -> None:
        """Stop every VM, and boot no more: the thread pool's queued jobs
        still run once the main thread leaves it, and must find nothing to do."""
        with self.lock:
            self.stopping = True
            for p in self.procs:
                _kill_session(p)

    def _started(self, proc: "subprocess.Popen[bytes]") -> None:
        with self.lock:
            self.procs.add(proc)
            if self.stopping:  # started while the harness was being stopped
                _kill_session(proc)

    def say(self, msg: str) -> None:
        with self.lock:
            print(f"[{time.monotonic() - self.t0:7.1f} s] {msg}", flush=True)

    def boot(self, exp: Experiment, c: Config, tag: str, img: Path, img_mb: int,
             out: Path, blktrace: bool) -> Dict[str, Any]:
        if self.stopping:
            raise SystemExit(f"harness: stopped, {exp.name}: {tag} not booted")
        w = workload_of(exp)
        prof = PROFILES[exp.profile]
        if out.exists():
            shutil.rmtree(out)
        out.mkdir(parents=True)
        conf = out / "eval.conf"
        conf.write_text(eval_conf(exp, c, blktrace) + prof.eval_conf(img_mb))  # DEV...
        adds = [f"{self.b.ko}:/ppf/predictive_prefetch.ko",
                f"{self.b.replay}:/ppf/ppf-replay",
                f"{self.b.helpers['bootlist']}:/ppf/bootlist",
                f"{self.b.helpers['oracle']}:/ppf/oracle",
                f"{self.b.helpers['nbcopy']}:/ppf/nbcopy", PRELUDE,
                *trace_files(exp), f"{conf}:/ppf/eval.conf"]
        adds += prof.guest_adds(self.b.kdir)  # the profile's device (simdisk module)
        disks: List[str] = []
        if exp.image_in_initramfs:
            adds.append(f"{sparse.sparse_image(img)}:/ppf/image.img")
        else:
            disks.append(f"{img}:ro")
        req = BootRequest(
            kernel=self.b.kdir, initrd=self.b.initrd,
            command=(TOP / "eval" / "guest" / "run-experiment.sh").read_text(),
            adds=tuple(adds), disks=tuple(disks), append=prof.kernel_params(img_mb),
            memory=w.memory(exp.image_in_initramfs), smp=1, icount_shift=exp.icount_shift,
            timeout=float(w.timeout(replays(exp, c, blktrace))), wall_clock=self.wall_clock,
            log=out / "vm.log",
            qemu_args=tuple(a.replace("{out}", str(out)) for a in self.qemu_args))
        t = time.monotonic()
        self.say(f"{exp.name}: {tag} booting (log: {out / 'vm.log'})")
        done = threading.Event()
        n_replays = replays(exp, c, blktrace)

        def report_progress() -> None:
            while not done.wait(PROGRESS_S):
                self.say(f"{exp.name}: {tag} {progress(out / 'vm.log', n_replays)} "
                         f"({time.monotonic() - t:.0f} s host)")
        watcher = threading.Thread(target=report_progress, daemon=True)
        watcher.start()
        try:
            res = vm.boot(req, started=self._started)
        finally:
            done.set()
            watcher.join()
        vm.write_json(res, out / "vm.json")
        with self.lock:
            self.procs = {p for p in self.procs if p.poll() is None}
        host_s = time.monotonic() - t
        text = (out / "vm.log").read_text(errors="replace")
        ok = extract(text, out)
        meta = {"config": dataclasses.asdict(c), "tag": tag, "host_s": round(host_s, 1),
                "build": self.b.identity(), "spin_rate": spin_rate(exp),
                "faults": faults_digests(exp),
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
        lost = missing_runs(exp, c, runs, text)
        if lost and status == "ok":
            status = f"FAILED ({lost})"
        self.say(f"{exp.name}: {tag} {status} in {host_s:.0f} s host: {'; '.join(summ)}")
        if status != "ok":
            self.say("  " + "\n  ".join(text.splitlines()[-25:]) + f"\n  log: {out}/vm.log")
        return meta

    def run(self, exp: Experiment, only: Optional[List[str]] = None) -> Path:
        w = workload_of(exp)
        img, img_mb = build.workload_image(w, trace_of(exp), tree_traces(exp))
        root = results_dir(exp)
        root.mkdir(parents=True, exist_ok=True)
        jobs = []
        for c in exp.configs:
            if only and c.name not in only:
                continue
            jobs.append((c, c.name, c.name in exp.blktrace))
            if c.name in exp.repeat:
                jobs.append((c, f"{c.name}.boot2", False))
        derived = w.derived(replays(exp, exp.configs[0], False), exp.image_in_initramfs)
        info = {"experiment": exp.info(), "workload": derived,
                "build": self.b.identity(), "image_mb": img_mb,
                "faults": faults_digests(exp)}
        # written first too: `report NAME` finds an experiment made by
        # run --trace here, and a stopped run leaves what it was
        (root / "experiment.json").write_text(json.dumps(info, indent=1))
        self.say(f"{exp.name}: {len(jobs)} VMs ({w.name}, {exp.profile}, "
                 f"{exp.warmups} warm-ups, {exp.runs} runs; image {img_mb} MiB, "
                 f"RAM {w.memory(exp.image_in_initramfs)}), {self.jobs} at a time")
        finished: List[float] = []

        def one(c: Config, tag: str, bt: bool) -> Dict[str, Any]:
            meta = self.boot(exp, c, tag, img, img_mb, root / tag, bt)
            with self.lock:
                finished.append(float(meta["host_s"]))
                n = len(finished)
            if len(jobs) > 1:
                left = time_left(finished, len(jobs) - n, self.jobs)
                self.say(f"{exp.name}: {n} of {len(jobs)} VMs done" + (f"; {left}" if left else ""))
            return meta

        with cf.ThreadPoolExecutor(self.jobs) as ex:
            futs = [ex.submit(one, c, tag, bt) for c, tag, bt in jobs]
            for f in futs:
                f.result()
        info["host_s"] = round(time.monotonic() - self.t0, 1)
        (root / "experiment.json").write_text(json.dumps(info, indent=1))
        self.say(f"{exp.name}: done, results in {root}")
        return root

