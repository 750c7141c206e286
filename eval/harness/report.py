"""Summary tables (printed and JSON) and figures from an experiment's results."""

from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import Any, Dict, List, Optional

from . import bound
from .profiles import PROFILES
from .runner import RESULTS, faults_digests, load_experiment, results_dir, workload_name
from .workloads import TOP

FIGURES = TOP / "docs" / "figures"
SUMMARIES = TOP / "eval" / "results"


def _runs(d: Path, prefix: str) -> List[Dict[str, Any]]:
    return [json.loads(p.read_text()) for p in sorted(d.glob(f"{prefix}-*.json"))]


def _mean(xs: List[float]) -> Optional[float]:
    return statistics.fmean(xs) if xs else None


# ppf's counters kept per measured run: the difference across the run
# (run-experiment.sh's NAME.ppf-before.txt and NAME.ppf-after.txt).
RUN_COUNTERS = ("events_open", "events_exec", "events_read", "predictions",
                "predictions_repeated", "restates", "opens_hot", "opens_deep",
                "decodes", "decodes_spared",
                "prefetch_issued", "pages_requested",
                "page_map_runs", "page_map_windows", "opened_planned",
                "prefetch_useful", "prefetch_wasted", "prefetch_early", "pages_wasted",
                "worker_ns", "worker_model_ns", "worker_readahead_ns", "worker_decode_ns",
                "worker_lookup_ns", "lookups", "meta_learned_lookup", "meta_readahead",
                "worker_cpu_ns", "hook_open_ns", "hook_read_ns",
                # the guest's (run-experiment.sh's stats_to): /proc/stat's
                # context switches and CPU ticks of 10 ms, the worker's switches
                "sys_ctxt", "sys_user_ticks", "sys_system_ticks", "sys_idle_ticks",
                "sys_iowait_ticks", "sys_irq_ticks", "sys_softirq_ticks",
                "sys_worker_switches", "sys_worker_preempted")


# KiB in the guest's page (x86-64): ppf counts pages.
PAGE_KB = 4

# The parts of the worker's time counted apart (worker_<part>_ns).
PER_OPEN_PARTS = ("model", "decode", "lookup")


def _counters(p: Path) -> Dict[str, int]:
    kv = (line.split() for line in p.read_text().splitlines())
    return {f[0]: int(f[1]) for f in kv if len(f) == 2 and f[1].isdigit()}


def run_counters(d: Path, cache: str, icount_shift: Optional[int]) -> Optional[Dict[str, float]]:
    """ppf's counters over the measured runs alone, the mean of each run's
    difference; with the guest at a fixed instruction rate (icount), the
    worker's instructions per open or exec (its CPU time over the time of
    one instruction, 2^shift ns).  None where no run has both snapshots."""
    per_run = []
    for before in sorted(d.glob(f"{cache}-*.ppf-before.txt")):
        after = before.with_name(before.name.replace(".ppf-before.", ".ppf-after."))
        if not after.exists():
            continue
        b, a = _counters(before), _counters(after)
        per_run.append({k: a[k] - b[k] for k in RUN_COUNTERS if k in a and k in b})
    if not per_run:
        return None
    out: Dict[str, float] = {k: statistics.fmean(r[k] for r in per_run)
                             for k in RUN_COUNTERS if all(k in r for r in per_run)}
    opens = out.get("events_open", 0) + out.get("events_exec", 0)
    if icount_shift is not None and opens and "worker_cpu_ns" in out:
        per_open = 2 ** icount_shift * opens
        out["worker_insns_per_open"] = out["worker_cpu_ns"] / per_open
        # outside the readahead calls and their submission: the CPU time less
        # the clock time in them, which at a fixed instruction rate is the
        # work done there unless the worker slept in them (a full request
        # queue on a slow disk: pbuild-j2-hdd2001's 2.5 s of readahead against
        # 0.1 s of CPU); then it is not known, and left out
        ra = out.get("worker_readahead_ns")
        if ra is not None and ra <= out["worker_cpu_ns"]:
            out["worker_insns_per_open_outside_readahead"] = (
                out["worker_cpu_ns"] - ra) / per_open
        # where the worker's clock time went, per open, in the same unit:
        # instructions where the worker did not wait (the model never does;
        # a decode and a lookup wait for a cold inode's or directory's block)
        for part in PER_OPEN_PARTS:
            if f"worker_{part}_ns" in out:
                out[f"worker_{part}_per_open"] = out[f"worker_{part}_ns"] / per_open
    return out


def summarize_config(d: Path, cache: str,
                     icount_shift: Optional[int] = None) -> Optional[Dict[str, Any]]:
    runs = _runs(d, cache)
    if not runs:
        return None
    rd = [r["read"] for r in runs]
    s = {
        "runs": len(runs),
        "probes": runs[0].get("probes", "timed"),
        # started with nothing dirty (ppf-replay syncs first; before it did,
        # a hot run waited on the writeback the cold run before it left)
        "synced": all(r.get("options", {}).get("synced", False) for r in runs),
        "elapsed_s": _mean([r["elapsed_ns"] / 1e9 for r in runs]),
        "think_s": _mean([r["think_ns"] / 1e9 for r in runs]),
        "io_latency_s": _mean([r["io_latency_ns"] / 1e9 for r in runs]),
        "read_latency_total_s": _mean([x["latency"]["sum_ns"] / 1e9 for x in rd]),
        "read_mean_us": _mean([x["latency"]["mean_ns"] / 1e3 for x in rd]),
        "read_p50_us": _mean([x["latency"]["p50_ns"] / 1e3 for x in rd]),
        "read_p99_us": _mean([x["latency"]["p99_ns"] / 1e3 for x in rd]),
        "reads": rd[0]["latency"]["count"],
        "hits": _mean([x["hits"] for x in rd]),
        "partial": _mean([x["partial"] for x in rd]),
        "misses": _mean([x["misses"] for x in rd]),
        "mmap_misses": _mean([r["mmap"]["misses"] + r["mmap"]["partial"] for r in runs]),
        "unexpected_errors": sum(r["errors"]["unexpected"] for r in runs),
        "elapsed_runs_s": [r["elapsed_ns"] / 1e9 for r in runs],
        # what the calls of each kind waited in all, s (mapped pages touched
        # count with their mmap call, the pages of an exec with the exec)
        "op_wait_s": {op: _mean([r["ops"][op]["latency"]["sum_ns"] / 1e9 for r in runs])
                      for op in runs[0].get("ops", {})
                      if all("latency" in r.get("ops", {}).get(op, {}) for r in runs)},
    }
    meta = d / "meta.json"
    if meta.exists():
        m = json.loads(meta.read_text())
        s["host_s"] = m["host_s"]
        s["measured_by"] = m.get("build", {}).get("git")
        s["module"] = m.get("build", {}).get("module_sha256")
        s["faults"] = m.get("faults")
    st = d / "ppf-stats.txt"
    if st.exists():
        kv = _counters(st)
        s["ppf"] = {k: kv[k] for k in ("prefetch_issued", "pages_requested",
                                     "prefetch_useful", "prefetch_wasted", "worker_ns")
                    if k in kv}
    rc = run_counters(d, cache, icount_shift)
    if rc is not None:
        s["ppf_run"] = rc
    cg = cgroup(d)
    if cg:
        s["cgroup"] = cg
    return s


def cgroup(d: Path) -> Dict[str, int]:
    """The memory limit's record (memory_limit_mb): its max and peak in bytes,
    the times reclaim hit the max and the OOM kills.  Empty without one."""
    files = {k: d / f"cgroup-memory.{k}.txt" for k in ("max", "peak", "events")}
    if not all(p.exists() for p in files.values()):
        return {}
    ev = dict(l.split() for l in files["events"].read_text().splitlines() if l.strip())
    return {"max": int(files["max"].read_text()), "peak": int(files["peak"].read_text()),
            "max_events": int(ev.get("max", 0)), "oom_kill": int(ev.get("oom_kill", 0))}


def summarize(name: str, committed: Optional[Path] = None) -> Dict[str, Any]:
    """The experiment's summary from its results; a configuration with no
    results collected here is carried over from the summary at @committed
    (if it has it), marked "carried" with the build that measured it, so
    that measuring one configuration again keeps the others' record."""
    exp = load_experiment(name)
    root = results_dir(exp)
    faults = faults_digests(exp)
    old = json.loads(committed.read_text()) if committed and committed.exists() else {}
    if old and not same_bench(old, exp.icount_shift, faults, exp.probes):
        old = {}  # another bench: its figures are not comparable, none carried
    old_rows = {r["config"]: r for r in old.get("rows", []) if r.get("cache") != "bound"}
    old_build = ((old.get("run") or {}).get("build") or {}).get("git")
    rows: List[Dict[str, Any]] = []
    for c in exp.configs:
        s = summarize_config(root / c.name, "hot" if c.cache == "hot" else "cold",
                             exp.icount_shift)
        if s is not None and (s.pop("faults", None) or {}) != faults:
            # collected with other faults files (or none): another bench
            print(f"report {name}: {c.name}'s results in {root} were replayed with other "
                  f"faults files than the workload has now: left out (run it again)")
            s = None
        if s is not None and s.pop("probes") != exp.probes:
            print(f"report {name}: {c.name}'s results in {root} were replayed with the "
                  f"probes {'timed' if exp.probes == 'think' else 'in the think'}, the "
                  f"experiment has them {exp.probes}: left out (run it again)")
            s = None
        if s is None:
            if c.name in old_rows:
                carried = dict(old_rows[c.name])
                carried.setdefault("carried", carried.get("measured_by") or old_build or "?")
                rows.append(carried)
            continue
        rows.append({"config": c.name, "label": c.label, "model": c.model, "ps": c.ps,
                     "order": c.order, "cache": c.cache, **s})
    cold_base = next((r for r in rows if r["config"] == "none"), None)
    hot_base = next((r for r in rows if r["config"] == "hot"), None)
    b = bound.bound_of_run(root / "hot", PROFILES[exp.profile]) if hot_base else None
    if b is None and "bound" in old_rows.get("hot", {}):
        b = old_rows["hot"]["bound"]
    if b is not None and hot_base is not None:
        hot_base["bound"] = b
        rows.append(bound_row(b))
    reductions(rows, cold_base, hot_base)
    # determinism: the same configuration in two boots
    det = []
    for c in exp.configs:
        d1, d2 = root / c.name, root / f"{c.name}.boot2"
        if not d2.exists():
            continue
        cache = "hot" if c.cache == "hot" else "cold"
        for a, b in zip(_runs(d1, cache), _runs(d2, cache)):
            rel = abs(a["elapsed_ns"] - b["elapsed_ns"]) / a["elapsed_ns"] * 100
            det.append({"config": c.name, "elapsed_ns": [a["elapsed_ns"], b["elapsed_ns"]],
                        "io_latency_ns": [a["io_latency_ns"], b["io_latency_ns"]],
                        "diff_pct": rel})
    info = root / "experiment.json"
    calib = RESULTS / "profiles" / exp.profile / "calibration.json"
    return {"experiment": exp.name, "workload": workload_name(exp), "profile": exp.profile,
            "warmups": exp.warmups, "runs": exp.runs, "replay_args": exp.replay_args,
            "spin_rate": exp.spin_rate, "icount_shift": exp.icount_shift, "faults": faults,
            "faults_kind": exp.faults_kind if faults else None, "probes": exp.probes,
            "run": json.loads(info.read_text()) if info.exists() else None,
            "calibration": json.loads(calib.read_text()) if calib.exists() else None,
            "hot_run": hot_base is not None, "rows": rows, "determinism": det,
            "adhoc": bool(exp.spec.get("adhoc")), "noise": noise(rows)}


def same_bench(old: Dict[str, Any], icount_shift: int, faults: Dict[str, str],
               probes: str = "timed") -> bool:
    """Was the summary @old measured on the bench of today's experiment: the
    same guest CPU, its mapped files replayed the same way (the same faults
    files, runner.faults_digests; none: replayed whole), and the replay's
    probes in the same place?  Summaries before the shift was recorded ran
    at 2; before the faults were, with none (the summaries of pystart, which
    had them, carry them); before the probes' place was, timed."""
    return bool(old.get("icount_shift", 2) == icount_shift
                and old.get("faults", {}) == faults
                and old.get("probes", "timed") == probes)


def bound_row(b: Dict[str, Any]) -> Dict[str, Any]:
    """The computed bound (bound.py) as a row of the table: elapsed only."""
    none_keys = ("think_s", "io_latency_s", "read_mean_us", "read_p50_us", "read_p99_us",
                 "hits", "partial", "misses", "host_s")
    return {"config": "bound", "label": "bound (media rate)", "model": "bound",
            "cache": "bound", "elapsed_s": b["elapsed_s"], "runs": b["runs"],
            "bound": b, **{k: None for k in none_keys}}


def reductions(rows: List[Dict[str, Any]], cold_base: Optional[Dict[str, Any]],
               hot_base: Optional[Dict[str, Any]]) -> None:
    """Each row against its baseline: cold rows (the hot row and the bound
    too) against no prefetching (cold), other hot rows against "hot" (the
    module's cost there); then the share of the gap, and of the oracle's."""
    for r in rows:
        base = hot_base if r["cache"] == "hot" and r["config"] != "hot" else cold_base
        r["baseline"] = base["config"] if base else None
        for k, out in (("elapsed_s", "elapsed_red"), ("io_latency_s", "io_red"),
                       ("read_mean_us", "read_red")):
            r[out] = (100.0 * (1 - r[k] / base[k]) if base and base[k] and r[k] is not None
                      else None)
    gap_closed(rows, cold_base, hot_base)
    oracle = next((r for r in rows if r["config"] == "oracle"), None)
    for r in rows:
        g, og = r.get("gap_elapsed_pct"), oracle and oracle.get("gap_elapsed_pct")
        r["of_oracle_pct"] = (100.0 * g / og if g is not None and og and og > 0
                              and r["cache"] == "cold" and r is not oracle else None)


def noise(rows: List[Dict[str, Any]]) -> Optional[Dict[str, Any]]:
    """Is the cold-to-hot gap larger than the runs' own spread?  The spread:
    the widest range of elapsed times among the measured runs of no
    prefetching and of the hot cache (None with one run each: unknown).  A
    share of a gap within twice that spread says nothing: not meaningful."""
    none = next((r for r in rows if r["config"] == "none"), None)
    hot = next((r for r in rows if r["config"] == "hot"), None)
    if none is None or hot is None:
        return None
    spreads = [max(r["elapsed_runs_s"]) - min(r["elapsed_runs_s"]) for r in (none, hot)
               if len(r.get("elapsed_runs_s") or []) > 1]
    if not spreads:
        return None
    gap = none["elapsed_s"] - hot["elapsed_s"]
    return {"gap_s": gap, "spread_s": max(spreads), "meaningful": gap > 2 * max(spreads)}


GAP_KEYS = (("elapsed_s", "gap_elapsed_pct"), ("io_latency_s", "gap_io_pct"))
NO_HOT = "no hot run"


def gap_closed(rows: List[Dict[str, Any]], none: Optional[Dict[str, Any]],
               hot: Optional[Dict[str, Any]]) -> None:
    """The headline: the share of the cold-to-hot gap a cold row closes,
    (cold none - cold row) / (cold none - hot), in %, for elapsed time and
    total I/O latency.  The hot cache is the physical limit: 100 % is
    prefetching as good as having everything cached, 0 % no better than no
    prefetching, below 0 worse.  None where there is no such gap to close:
    no "none" or no "hot" run (the table says "no hot run"), or a hot row.
    The bound's row (elapsed only) is the share no prefetcher can pass."""
    for r in rows:
        for k, out in GAP_KEYS:
            r[out] = None
            if (none is None or hot is None or r[k] is None
                    or (r["cache"] not in ("cold", "bound") and r is not hot)):
                continue
            span = none[k] - hot[k]
            r[out] = 100.0 * (none[k] - r[k]) / span if span else None


def gap_cell(s: Dict[str, Any], r: Dict[str, Any], key: str) -> str:
    if r[key] is not None:
        return f"{r[key]:.1f}%"
    return NO_HOT if not s["hot_run"] and r["cache"] == "cold" else "-"


def cell(x: Any, fmt: str = "{:.2f}") -> str:
    """A table cell: x formatted, or "-" when there is no value."""
    return "-" if x is None else fmt.format(x)


def table(s: Dict[str, Any]) -> str:
    hdr = ("| config | elapsed s | think s | I/O latency s | read mean us | p50 | p99 | "
           "hit / partial / miss | elapsed red. | I/O red. | read red. | "
           "gap closed: elapsed | gap closed: I/O | of the oracle's | host s |")
    out = [hdr, "|" + "---|" * 15]
    for r in s["rows"]:
        hpm = ("-" if r["hits"] is None else
               f"{r['hits']:.0f} / {r['partial']:.0f} / {r['misses']:.0f}")
        out.append("| " + " | ".join([
            r["label"] + (" (carried)" if r.get("carried") else ""),
            cell(r["elapsed_s"], "{:.3f}"), cell(r["think_s"]),
            cell(r["io_latency_s"], "{:.3f}"),
            cell(r["read_mean_us"], "{:.0f}"), cell(r["read_p50_us"], "{:.1f}"),
            cell(r["read_p99_us"], "{:.0f}"),
            hpm, cell(r.get("elapsed_red"), "{:+.1f}%"), cell(r.get("io_red"), "{:+.1f}%"),
            cell(r.get("read_red"), "{:+.1f}%"), gap_cell(s, r, "gap_elapsed_pct"),
            gap_cell(s, r, "gap_io_pct"), cell(r.get("of_oracle_pct"), "{:.0f}%"),
            cell(r.get("host_s"), "{:.0f}")]) + " |")
    return "\n".join(out)


def part_cell(k: Dict[str, float], total: str, part: str, scale: float = 1) -> str:
    """A counter, and in brackets another that qualifies it (decodes and the
    files judged by their inode instead, prefetches and the wasted ones);
    the brackets are left out for a run of a module that does not count
    the other."""
    t = cell(k[total] * scale if total in k else None, "{:,.0f}")
    return t if k.get(part) is None else f"{t} ({k[part] * scale:,.0f})"


def worker_table(s: Dict[str, Any]) -> str:
    """ppf's worker over the measured runs alone (the mean of the runs)."""
    rows = [r for r in s["rows"] if r.get("ppf_run") and r["config"] not in ("none", "hot")]
    if not rows:
        return "(no counters per measured run)"
    out = ["| config | opens | predictions | repeated | decodes (spared) | "
           "prefetches (wasted) | KiB read ahead (wasted) | "
           "worker CPU ms | instructions per open | outside readahead | "
           "of which the model, decodes, lookups (clock) |", "|" + "---|" * 11]
    for r in rows:
        k = r["ppf_run"]
        parts = [k.get(f"worker_{p}_per_open") for p in PER_OPEN_PARTS]
        out.append("| " + " | ".join([
            r["label"], cell(k.get("events_open", 0) + k.get("events_exec", 0), "{:.0f}"),
            cell(k.get("predictions"), "{:.0f}"), cell(k.get("predictions_repeated"), "{:.0f}"),
            part_cell(k, "decodes", "decodes_spared"),
            part_cell(k, "prefetch_issued", "prefetch_wasted"),
            part_cell(k, "pages_requested", "pages_wasted", PAGE_KB),
            cell(k["worker_cpu_ns"] / 1e6 if "worker_cpu_ns" in k else None, "{:.1f}"),
            cell(k.get("worker_insns_per_open"), "{:,.0f}"),
            cell(k.get("worker_insns_per_open_outside_readahead"), "{:,.0f}"),
            " / ".join(cell(v, "{:,.0f}") for v in parts)]) + " |")
    return "\n".join(out)


def guest_table(s: Dict[str, Any]) -> str:
    """The guest over the measured runs (the mean of the runs), every
    configuration: context switches, CPU by kind, the worker's wake-ups
    and, with measure_hooks, the hooks' own time."""
    rows = [r for r in s["rows"] if (r.get("ppf_run") or {}).get("sys_ctxt") is not None]
    if not rows:
        return "(no guest counters per measured run)"
    out = ["| config | context switches | user ms | system ms | softirq ms | irq ms | "
           "worker wake-ups | worker CPU ms | hooks ms (open + read) |", "|" + "---|" * 9]
    for r in rows:
        k = r["ppf_run"]

        def ticks(name: str) -> Optional[float]:
            return k[name] * 10.0 if name in k else None
        hooks = (k["hook_open_ns"] + k["hook_read_ns"]) / 1e6 \
            if k.get("hook_open_ns") or k.get("hook_read_ns") else None
        out.append("| " + " | ".join([
            r["label"], cell(k.get("sys_ctxt"), "{:,.0f}"), cell(ticks("sys_user_ticks"), "{:.0f}"),
            cell(ticks("sys_system_ticks"), "{:.0f}"), cell(ticks("sys_softirq_ticks"), "{:.0f}"),
            cell(ticks("sys_irq_ticks"), "{:.0f}"),
            cell(k.get("sys_worker_switches") if r["config"] not in ("none", "hot") else None,
                 "{:,.0f}"),
            cell(k["worker_cpu_ns"] / 1e6 if "worker_cpu_ns" in k and r["config"]
                 not in ("none", "hot") else None, "{:.1f}"),
            cell(hooks, "{:.1f}")]) + " |")
    return "\n".join(out)


def wait_table(s: Dict[str, Any]) -> str:
    """What the calls of each kind waited, s, per configuration (the mean of
    the measured runs): where a configuration's time went or came from,
    beyond the reads (a prefetcher that speeds the reads but delays the
    writes' flush at close, or the faults of mapped files, shows here)."""
    rows = [r for r in s["rows"] if r.get("op_wait_s")]
    if not rows:
        return "(no per-call figures: measured before report kept them)"
    ops = [op for op in rows[0]["op_wait_s"] if any(r["op_wait_s"].get(op, 0) >= 0.0005
                                                    for r in rows)]
    out = ["| config | " + " | ".join(ops) + " |", "|" + "---|" * (len(ops) + 1)]
    for r in rows:
        out.append("| " + " | ".join([r["label"]] + [cell(r["op_wait_s"].get(op), "{:.3f}")
                                                     for op in ops]) + " |")
    return "\n".join(out)


def det_table(s: Dict[str, Any]) -> str:
    if not s["determinism"]:
        return "(no configuration booted twice)"
    out = ["| config | elapsed boot 1 ns | elapsed boot 2 ns | difference |", "|---|---|---|---|"]
    for d in s["determinism"]:
        out.append(f"| {d['config']} | {d['elapsed_ns'][0]:,} | {d['elapsed_ns'][1]:,} | "
                   f"{d['diff_pct']:.4f}% |")
    return "\n".join(out)


SUMMARY = SUMMARIES / "summary.json"
SUMMARY_KEYS = ("elapsed_s", "io_latency_s", "read_mean_us", "read_p99_us",
                "gap_elapsed_pct", "gap_io_pct", "of_oracle_pct", "runs", "carried",
                "measured_by", "module", "synced")


def summary_rows(summaries: Path = SUMMARIES) -> List[Dict[str, Any]]:
    """Every configuration measured, one row each, from the experiments'
    summaries in @summaries (EXPERIMENT.json, as report() writes them):
    workload, profile, config, cache, the figures of SUMMARY_KEYS, and the
    experiment that measured it."""
    rows: List[Dict[str, Any]] = []
    for p in sorted(summaries.glob("*.json")):
        if p.name == SUMMARY.name:
            continue
        s = json.loads(p.read_text())
        if not isinstance(s, dict) or "rows" not in s or "experiment" not in s:
            raise ValueError(f"{p}: not an experiment summary (no 'experiment' or 'rows')")
        for r in s["rows"]:
            rows.append({"workload": s["workload"], "profile": s["profile"],
                         "config": r["config"], "cache": r["cache"],
                         **{k: r.get(k) for k in SUMMARY_KEYS},
                         **{k: (r.get("ppf_run") or {}).get(k)
                            for k in ("worker_insns_per_open",
                                      "worker_insns_per_open_outside_readahead")},
                         "icount_shift": s.get("icount_shift", 2),
                         "faults": bool(s.get("faults")),
                         "faults_kind": (s.get("faults_kind") or "faulted") if s.get("faults")
                         else None,
                         "probes": s.get("probes", "timed"),
                         "experiment": s["experiment"]})
    return rows


def write_summary(summaries: Path = SUMMARIES) -> Path:
    """eval/results/summary.json: summary_rows() of every experiment."""
    out = summaries / SUMMARY.name
    rows = summary_rows(summaries)
    out.write_text(json.dumps({"schema": "ppf-summary-1", "rows": rows}, indent=1) + "\n")
    return out


class ReportRefused(SystemExit):
    """report would replace a summary with less than it holds: it stops,
    exit status 1, with the reason, having written nothing."""

    def __init__(self, name: str, why: str) -> None:
        super().__init__(f"report {name}: {why}; nothing written")


def collected_in(name: str) -> Path:
    """Where experiment @name's results are collected (run --trace's apart)."""
    try:
        return results_dir(load_experiment(name))
    except SystemExit:  # no such experiment (any more): where it would be
        return RESULTS / name


def check_not_less(s: Dict[str, Any], old_path: Path) -> None:
    """Refuse a summary with no measured configuration, or one that lacks a
    configuration (or measured runs of one) the summary at old_path has:
    results are collected in a cache that another run or machine may not
    have, and the committed summary and figures are the record."""
    name = s["experiment"]
    if not any(not r.get("carried") for r in s["rows"] if r.get("cache") != "bound"):
        raise ReportRefused(name, f"no results collected in {collected_in(name)} "
                            f"(run: python3 -m eval.harness run {name})")
    if not old_path.exists():
        return
    old = json.loads(old_path.read_text())
    if not same_bench(old, s["icount_shift"], s.get("faults", {}), s.get("probes", "timed")):
        # a new bench replaces the old one's figures: git keeps them
        print(f"report {name}: {old_path} was measured at icount shift "
              f"{old.get('icount_shift', 2)} with faults files {old.get('faults', {})} "
              f"and the probes {old.get('probes', 'timed')}, this at {s['icount_shift']} "
              f"with {s.get('faults', {})} and {s.get('probes', 'timed')}: replaced; its "
              f"configurations not measured again are dropped: "
              + (", ".join(r["config"] for r in old.get("rows", [])
                           if r.get("cache") != "bound" and r["config"] not in
                           {x["config"] for x in s["rows"]}) or "none"))
        return
    have = {r["config"]: r.get("runs", 0) for r in s["rows"] if r.get("cache") != "bound"}
    lost = [f"{r['config']} ({r.get('runs', 0)} runs)" for r in old.get("rows", [])
            if r.get("cache") != "bound" and have.get(r["config"], 0) < r.get("runs", 0)]
    if lost:
        raise ReportRefused(name, f"{old_path} has results this one lacks: "
                            f"{', '.join(lost)} (collected in {collected_in(name)})")


def report(name: str, figures: bool = True, commit: bool = False) -> Dict[str, Any]:
    """Print the tables; write the summary (and figures) into the tracked tree
    (eval/results/, docs/figures/) for an experiment file's results, or for
    run --trace's next to its results unless @commit."""
    exp = load_experiment(name)
    into_tree = commit or not exp.spec.get("adhoc")
    summaries, figs = (SUMMARIES, FIGURES) if into_tree else (results_dir(exp),) * 2
    committed = summaries / f"{exp.name}.json"
    s = summarize(name, committed)
    check_not_less(s, committed)
    print(f"\n## {s['experiment']}: {s['workload']} on {s['profile']}, "
          f"{s['warmups']} warm-ups, {s['runs']} measured runs\n")
    c = s["calibration"]
    if c:
        print(f"disk check (fio in the guest): random 4 KiB qd1 "
              f"{c['rand4k_qd1']['lat_mean_us']:.0f} us mean; sequential 1 MiB "
              f"{c['seq1m']['MB_s']:.1f} MB/s\n")
    print(table(s))
    print("\ngap closed: (cold none - cold config) / (cold none - hot), the share of the "
          "hot cache's gain the configuration gets"
          + ("" if s["hot_run"] else " (no hot run in this experiment: not computed)"))
    print("of the oracle's: a configuration's share of the gap over the oracle's (the run's "
          "own pages and metadata swept in disk order from its start, eval/guest/oracle.c); "
          "bound: the hot run plus the bytes at the media rate in first-use order "
          "(eval/harness/bound.py), which no prefetcher passes")
    carried = sorted({f"{r['config']} ({r['carried']})" for r in s["rows"] if r.get("carried")})
    if carried:
        print(f"carried from the committed summary (not measured in this cache; the build "
              f"that measured them): {', '.join(carried)}")
    nz = s["noise"]
    if nz is not None and not nz["meaningful"]:
        print(f"NOT MEANINGFUL: the cold-to-hot gap ({nz['gap_s']:.3f} s) is within twice "
              f"the runs' own spread ({nz['spread_s']:.3f} s): no share of it says anything")
    print("\nwhat the calls waited, s, by kind (the mean of the measured runs; a mapping's "
          "touched pages count with its mmap, an exec's with the exec):\n")
    print(wait_table(s))
    print("\nthe worker in the measured runs (CPU time at the guest's fixed instruction "
          "rate, so instructions per open are CPU time / 2^icount_shift ns):\n")
    print(worker_table(s))
    print("\nthe guest in the measured runs (/proc/stat: CPU in ticks of 10 ms; the "
          "worker's voluntary switches):\n")
    print(guest_table(s))
    print("\ndeterminism (same configuration, two boots):\n")
    print(det_table(s))
    summaries.mkdir(parents=True, exist_ok=True)
    committed.write_text(json.dumps(s, indent=1) + "\n")
    print(f"\nsummary: {committed}")
    if into_tree:
        print(f"every configuration: {write_summary()}")
    if figures:
        try:
            from . import plots
            for p in plots.all_figures(s, results_dir(exp), figs):
                print(f"figure: {p}")
        except ImportError as e:
            print(f"no figures: {e} (apt-get install python3-matplotlib)")
    return s
