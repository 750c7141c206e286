"""An experiment for any trace, from `run --trace FILE`'s options.

    python3 -m eval.harness run --trace FILE.trace.gz --profile P \\
        --models none,epcm,pcm-16-2 --hot [--report]

makes the experiment a file in eval/experiments/ would describe: named
TRACENAME-PROFILE (or --name), the trace a path, its VM's needs derived from
the trace (workloads.py) unless --room-mb, --memory-mb or --timeout-s say.
The runner records it in the results' experiment.json, where `report NAME`
finds it again.  Its results are kept apart per checkout
($PPF_CACHE/eval/results/traces/CHECKOUT/NAME, runner.TRACES), and `report`
writes its summary and figures there, not into the tracked tree, unless
`report --commit`.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, Dict, List

from .runner import MODELS
from .workloads import from_trace

# the shape of "pcm" and "epcm" without one: the defaults of the experiments
DEFAULT_SHAPES = {"pcm": (64, 4), "epcm": (64, 51)}
# images up to this size travel in the initramfs (bit-identical boots);
# larger ones on a virtio disk, which costs the guest no copy in RAM
INITRAMFS_MAX_MB = 1024


def config(word: str) -> Dict[str, Any]:
    """One --models word: none, last_successor, bootlist, oracle, hot, pcm, epcm or
    pcm-PS-ORDER / epcm-PS-ORDER."""
    if word == "hot":
        return {"name": "hot", "model": "none", "cache": "hot"}
    model, _, shape = word.partition("-")
    if model in DEFAULT_SHAPES:
        if not shape:
            return {"model": model, "shapes": [list(DEFAULT_SHAPES[model])]}
        ps, _, order = shape.partition("-")
        if ps.isdigit() and order.isdigit():
            return {"model": model, "shapes": [[int(ps), int(order)]]}
    elif word in MODELS:
        return {"name": word, "model": word}
    raise SystemExit(f"harness: --models: unknown {word!r} (known: {', '.join(MODELS)}, hot, "
                     "pcm-PS-ORDER, epcm-PS-ORDER)")


def configs(models: str, hot: bool) -> List[Dict[str, Any]]:
    words = [w for w in models.split(",") if w]
    if hot and "hot" not in words:
        words.append("hot")
    if not words:
        raise SystemExit("harness: --models: no configuration")
    return [config(w) for w in words]


def spec(a: argparse.Namespace) -> Dict[str, Any]:
    """The experiment file run --trace's options describe."""
    trace = Path(a.trace).resolve()
    w = from_trace(trace)
    s = w.stats
    over = {k: getattr(a, k) for k in ("room_mb", "memory_mb", "timeout_s")
            if getattr(a, k) is not None}
    w = w.with_overrides(over)
    out: Dict[str, Any] = {
        "description": f"{trace} on {a.profile} (python3 -m eval.harness run --trace)",
        "trace": str(trace), "profile": a.profile,
        # compute: think time scaled to the untraced run's CPU time, when the
        # recorder measured it (ppf-trace record --untraced-run)
        "spin_rate": a.spin_rate or ("compute" if s.compute_ns > 0 else "calibrated"),
        "replay_args": a.replay_args,
        "image_in_initramfs": w.image_mb <= INITRAMFS_MAX_MB,
        "warmups": a.warmups, "runs": a.runs,
        "repeat": a.repeat or [], "blktrace": a.blktrace or [],
        "configs": configs(a.models, a.hot), "adhoc": True, **over}
    if a.warmup_trace:
        out["warmup_traces"] = [str(Path(t).resolve()) for t in a.warmup_trace]
    if a.memory_limit_mb is not None:
        out["memory_limit_mb"] = a.memory_limit_mb
        out["memory_limit_scope"] = a.memory_limit_scope
    return out


def name(a: argparse.Namespace) -> str:
    return a.name or f"{from_trace(Path(a.trace)).name}-{a.profile}"


def add_options(r: argparse.ArgumentParser) -> None:
    """run's options for --trace."""
    g = r.add_argument_group("any trace (instead of EXPERIMENT names)")
    g.add_argument("--trace", help="a trace recorded with ppf-trace record (FILE.trace.gz)")
    g.add_argument("--profile", help="disk profile (profiles.py)")
    g.add_argument("--models", default="none,epcm",
                   help="configurations, comma-separated: none, last_successor, pcm, epcm, "
                        "bootlist, oracle, hot, pcm-PS-ORDER, epcm-PS-ORDER (default none,epcm)")
    g.add_argument("--hot", action="store_true",
                   help="add the hot cache (the limit the share of the gap is measured to)")
    g.add_argument("--name", help="experiment name (default TRACENAME-PROFILE)")
    g.add_argument("--warmups", type=int, default=3)
    g.add_argument("--runs", type=int, default=2,
                   help="measured runs per configuration (default 2, as the experiments'; "
                        "two give the spread the share of the gap is judged against)")
    g.add_argument("--repeat", action="append", metavar="CONFIG",
                   help="boot this configuration twice (determinism; repeat the option)")
    g.add_argument("--blktrace", action="append", metavar="CONFIG",
                   help="one more cold run of this configuration under blktrace")
    g.add_argument("--warmup-trace", action="append",
                   help="a trace the warm-ups replay instead (repeat: in turn)")
    g.add_argument("--replay-args", default="", help="extra ppf-replay run options")
    g.add_argument("--spin-rate", help="think-time spin rate (default compute if the trace "
                                       "has compute_ns, else calibrated: the recorded think time)")
    g.add_argument("--memory-limit-mb", type=int,
                   help="replays in a cgroup with this memory.max")
    g.add_argument("--memory-limit-scope", choices=("cgroup", "guest"), default="cgroup",
                   help="guest: all but the limit of the guest's memory held instead")
    g.add_argument("--room-mb", type=int, help="free space in the image (default: derived)")
    g.add_argument("--memory-mb", type=int, help="guest RAM (default: derived)")
    g.add_argument("--timeout-s", type=int, help="host seconds per VM (default: derived)")
