"""How far a figure moves when nothing changes but the run's phase.

The guest runs at a fixed instruction rate (QEMU's -icount), so a boot
repeats to the nanosecond: two boots of one build agree, and their spread
says nothing.  Yet a few instructions more or less anywhere before the
measured run (another build of the module, a shorter path in a hook) shift
every later decision of the scheduler, the timers and the elevator against
the guest's clock, and a run whose I/O and compute interleave closely can
then end hundreds of milliseconds apart: the parallel build on the ssd
profile took 15.246 s with EPCM built from one commit and 15.679 s built
from the next, whose only module change moved a page-map allocation into a
helper.  That is the spread a comparison between two builds must clear.

`spread EXP` measures it without changing a byte of the build: the same
experiment at PHASES_US, each a replay begun that much later
(ppf-replay run --phase-us, in the warm-ups too), as experiments
EXP-p0, EXP-p1, ...  Per configuration: elapsed at each phase and their
range; per model, the share of the cold-to-hot gap at each phase (against
that phase's none and hot) and its range.  A share whose range is wider
than the share itself says nothing about the model.
"""

from __future__ import annotations

import dataclasses
import json
import statistics
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

from .runner import Experiment, RESULTS
from .workloads import TOP

# Milliseconds apart, multiples neither of the 1 ms tick nor of each other.
PHASES_US = (0, 1009, 2003, 3001)
SPREADS = TOP / "eval" / "results" / "spread"


def phase_name(exp: str, k: int) -> str:
    return f"spread-{exp}-p{k}"


def phased(exp: Experiment, k: int) -> Experiment:
    """exp begun PHASES_US[k] later: another name, the replay's --phase-us."""
    args = " ".join(filter(None, [exp.replay_args,
                                  f"--phase-us={PHASES_US[k]}" if PHASES_US[k] else ""]))
    spec = dict(exp.spec, name=phase_name(exp.name, k), replay_args=args,
                description=f"{exp.name} begun {PHASES_US[k]} us later (spread.py)")
    return dataclasses.replace(exp, name=spec["name"], replay_args=args, spec=spec)


def elapsed_s(d: Path) -> Optional[float]:
    """The mean elapsed time of a configuration's measured runs (cold or hot)."""
    for prefix in ("cold", "hot"):
        runs = [json.loads(p.read_text())["elapsed_ns"] / 1e9
                for p in sorted(d.glob(f"{prefix}-*.json"))]
        if runs:
            return statistics.fmean(runs)
    return None


def share(none: Optional[float], hot: Optional[float], x: Optional[float]) -> Optional[float]:
    """The share of the cold-to-hot gap, % (None without a gap)."""
    if none is None or hot is None or x is None or none == hot:
        return None
    return 100.0 * (none - x) / (none - hot)


def collect(exp: str, phases: int, root: Path = RESULTS) -> Dict[str, Any]:
    """What the phases of exp measured: per configuration, elapsed at each
    phase (None where it did not run) and, for a cold configuration beside
    none and hot, the share of the gap at each."""
    dirs = [root / phase_name(exp, k) for k in range(phases)]
    configs = sorted({c.name for d in dirs if d.is_dir() for c in d.iterdir()
                      if c.is_dir()}, key=lambda c: (c != "none", c != "hot", c))
    el = {c: [elapsed_s(d / c) if (d / c).is_dir() else None for d in dirs]
          for c in configs}
    if not any(v is not None for vs in el.values() for v in vs):
        raise SystemExit(f"spread: nothing measured for {exp} in "
                         f"{', '.join(str(d) for d in dirs)}")
    rows = []
    for c in configs:
        xs = [x for x in el[c] if x is not None]
        row: Dict[str, Any] = {"config": c, "elapsed_s": el[c],
                               "range_s": max(xs) - min(xs) if len(xs) > 1 else None}
        if c not in ("none", "hot") and "none" in el and "hot" in el:
            sh = [share(n, h, x) for n, h, x in zip(el["none"], el["hot"], el[c])]
            row["share_pct"] = sh
            got = [s for s in sh if s is not None]
            row["share_range_pct"] = max(got) - min(got) if len(got) > 1 else None
        rows.append(row)
    builds = sorted({f"{b.get('git')} module {b.get('module_sha256')}"
                     for d in dirs if d.is_dir() for m in d.glob("*/meta.json")
                     for b in [json.loads(m.read_text()).get("build", {})]})
    return {"experiment": exp, "phases_us": list(PHASES_US[:phases]), "builds": builds,
            "rows": rows}


def _f(x: Optional[float], fmt: str) -> str:
    return "-" if x is None else format(x, fmt)


def table(s: Dict[str, Any]) -> str:
    """The markdown table of collect()'s result."""
    ph = s["phases_us"]
    out = ["| config | " + " | ".join(f"elapsed s, +{p} us" for p in ph) +
           " | range s | share of the gap, % | share's range, points |",
           "|---|" + "---|" * (len(ph) + 3)]
    for r in s["rows"]:
        shares = ", ".join(_f(x, ".1f") for x in r.get("share_pct", []))
        out.append(f"| {r['config']} | " + " | ".join(_f(x, ".3f") for x in r["elapsed_s"]) +
                   f" | {_f(r['range_s'], '.3f')} | {shares or '-'} | "
                   f"{_f(r.get('share_range_pct'), '.1f')} |")
    return "\n".join(out)


def main(run: Any, exps: Sequence[Experiment], phases: int, only: Optional[List[str]],
         measure: bool = True) -> int:
    """Run each experiment at its phases (unless measure is False), then print
    and write (eval/results/spread/EXP.json) what they measured."""
    for exp in exps:
        if measure:
            for k in range(phases):
                run.run(phased(exp, k), only)
        s = collect(exp.name, phases)
        print(f"\n## {exp.name}: the same runs begun {', '.join(map(str, s['phases_us']))} "
              f"us later\n")
        print(table(s))
        print(f"\nmeasured with: {'; '.join(s['builds']) or 'unknown builds'}")
        SPREADS.mkdir(parents=True, exist_ok=True)
        out = SPREADS / f"{exp.name}.json"
        out.write_text(json.dumps(s, indent=1) + "\n")
        print(f"\nwritten: {out}")
    return 0
