"""A short deterministic evaluation for make test.

Boots the test kernel eleven times, the replay's probes in its think time as
in every cell of the matrix: andrew on hdd-2001, file reads only (no
prefetching twice, EPCM 64/51 twice, the oracle and the hot cache once),
andrew's files in a random order on hdd-2001 (no prefetching, EPCM 64/51),
and a Python start-up that maps most of what it reads (pystart-hdd2001's,
at every page the real start-up touched: no prefetching, EPCM 64/51, the
hot cache); each with 3 warm-up runs that
also train the model and 1 measured run; andrew's image travels in the
initramfs, so its boots are bit-identical.  It checks that
  - every VM ran and every replay matched its recorded results,
  - EPCM removes at least MISS_FLOOR_PCT of the read misses (the model
    predicts and the prefetches arrive),
  - EPCM closes at least GAP_FLOOR_PCT of the cold-to-hot gap in elapsed
    time on andrew and MAP_GAP_FLOOR_PCT on the start-up, and is at most
    NO_HARM_PCT slower than no prefetching on andrew and on the random
    order (issue 10's "no harm"),
  - the oracle (eval/guest/oracle.c) swept a plan with metadata and no
    errors and closes at least ORACLE_FLOOR_PCT of the gap, and the computed
    bound lies between the hot run and every cold configuration (the limit
    every table shows holds),
  - two boots of the same configuration agree within 0.1% on elapsed time,
    with the module off (none) and with a model on (EPCM: its worker, its
    timing and what it learns must not vary between boots either),
  - the module and ppf-replay built from another directory are byte for
    byte the same, so that two checkouts of one commit boot the same guest
    (a path in the module once made their figures differ by up to 4.5 %;
    the guest helpers are named by the digest of their sources),
  - a hot run's elapsed time is its think time plus its calls within
    REPLAY_COST_PCT: what the replay itself adds (its classification probes,
    its hand-offs) stays small beside what it measures.
The last line is "N passed, N failed".

    python3 -m eval.harness selftest [-j N]   (or python3 -m eval.harness.selftest [-j N])

-j: VMs at a time (default 2; the boots take ~30 s of host time each).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Dict

if not __package__:  # run as a file: eval/ is not importable from here
    sys.exit("usage: python3 -m eval.harness selftest [-j N], from the top of the tree")

from eval.harness import build, report, runner  # noqa: E402
from eval.vm import kernel  # noqa: E402

EXPERIMENT = "selftest-andrew"
RANDOM = "selftest-random"
MAPPING = "selftest-pystart"
# Measured with the current module (make test's eval suite), the guest at 1
# ns an instruction (runner.ICOUNT_SHIFT), the replay's probes in its think
# time as in every cell of the matrix: after 3 warm-ups EPCM 64/51 removes
# 93 % of andrew's read misses on hdd-2001 (192 -> 14; 70 %, 192 -> 57,
# before its surprises named the copy phase's sources); the floor leaves
# over half of that as margin.  The run is deterministic (the same
# numbers every time on every machine with this kernel and QEMU, and from
# any checkout), so the margins only cover changes to the code.  What is
# asserted of the time is "no harm": EPCM's elapsed time at most 1 % above
# no prefetching's (2.934 s against 3.575 s; the random order 2.353 s
# against 3.190 s, module d76b991; at 4 ns an instruction an earlier
# module was 2.9 % above).
MISS_FLOOR_PCT = 40.0
NO_HARM_PCT = 1.0
# The share of andrew's cold-to-hot gap EPCM closes in elapsed time on
# hdd-2001: 45.8 % with the worker's reads at best effort (none 3.575 s,
# EPCM 2.934 s, hot 2.174 s, module d76b991), 44.0 % at idle with sweeps
# (EPCM 2.959 s, module 1aa74d10bee5), 20.7 % before them, 13.0 % on the
# module before EPCM named what follows a surprise (docs/models.md, "Surprises": the
# copy phase's sources), 12.0 % with the probes timed.  The floor is above
# 13.0 %, so that a change that loses the surprises fails here; it is
# below what the surprises gave without sweeps, so that it does not depend
# on them (MAP_GAP_FLOOR_PCT and the matrix measure those).
GAP_FLOOR_PCT = 15.0
# The oracle: 51.8 % of the gap (2.853 s, sweeping what the last warm-up
# brought into the page cache: 2.9 MB; 56.8 % from the ranges the reads
# asked for, 1.9 MB, with the probes timed).  Started during the replay's cache drop, as the boot
# list was before ppf-replay's --drop-mark, it lost what it read and
# measured -0.3 % (4 ns an instruction); the floor keeps over 40 % of the
# figure as margin.
ORACLE_FLOOR_PCT = 30.0
# A hot run of andrew: 2.174 s against think 2.063 s + calls 0.073 s, 1.8 %
# more (the probes' 0.031 s mostly hidden in the think, the hand-offs), at
# 1 ns an instruction; 3.0 % with the probes timed.
REPLAY_COST_PCT = 5.0
# A workload that maps most of what it reads: pystart's start-up on
# hdd-2001, its programs and libraries touched at every page the real
# start-up touched (pystart-N.touched.faults.gz; 84 % of its bytes are
# mapped).  EPCM closes 42.4 % of the gap (none 10.505 s, EPCM 6.543 s, hot
# 1.155 s, module 0515dda), its page maps learning fault-around's windows
# on the rotational disk; 15.5 % when they learn the faulted pages alone
# (page_map_windows never, docs/results.md).  At the faults only, before
# the touched pages were recorded, it closed 47.1 %, 30.0 % before small
# libraries got page maps, 23.1 % before page maps.  The floor fails a
# change that loses the windows or the page maps and leaves a fifth of the
# figure as margin.
MAP_GAP_FLOOR_PCT = 33.0
DET_PCT = 0.1
# booted twice (selftest-andrew.json's "repeat"): a model off and a model on
TWICE = ("none", "epcm-64-51")


def main(jobs: int = 2) -> int:
    t0 = time.monotonic()
    passed = failed = 0

    def check(desc: str, ok: bool, detail: str = "") -> None:
        nonlocal passed, failed
        print(f"{'ok  ' if ok else 'FAIL'} {desc}{': ' + detail if detail else ''}", flush=True)
        if ok:
            passed += 1
        else:
            failed += 1

    def no_harm(what: str, n: Dict[str, Any], e: Dict[str, Any]) -> None:
        slower = 100.0 * (e["elapsed_s"] / n["elapsed_s"] - 1)
        check(f"{what}epcm is at most {NO_HARM_PCT}% slower than no prefetching",
              slower <= NO_HARM_PCT,
              f"{n['elapsed_s']:.3f} s -> {e['elapsed_s']:.3f} s ({slower:+.2f}%)")

    def gap_floor(what: str, got: Dict[str, Dict[str, Any]], floor: float) -> None:
        n, e = got["none"], got["epcm-64-51"]
        gap = e["gap_elapsed_pct"]
        check(f"{what}epcm closes at least {floor}% of the cold-to-hot gap (elapsed)",
              gap is not None and gap >= floor,
              "no hot run" if gap is None else
              f"none {n['elapsed_s']:.3f} s, epcm {e['elapsed_s']:.3f} s, "
              f"hot {got['hot']['elapsed_s']:.3f} s: {gap:.1f}%")

    build.ensure_packages()
    b = build.Built()
    with tempfile.TemporaryDirectory(prefix="ppf-selftest-module.") as other:
        ko = kernel.build_module(b.kdir, Path(other))
        check("the module built elsewhere is the same, byte for byte",
              ko.read_bytes() == b.ko.read_bytes(),
              f"{build.sha(b.ko)} here, {build.sha(ko)} from {other}")
    with tempfile.TemporaryDirectory(prefix="ppf-selftest-replay.") as other:
        replay = replay_built_in(Path(other))
        check("ppf-replay built elsewhere is the same, byte for byte",
              replay.read_bytes() == b.replay.read_bytes(),
              f"{build.sha(b.replay)} here, {build.sha(replay)} from {other}")
    exp = runner.load_experiment(EXPERIMENT)
    rnd = runner.load_experiment(RANDOM)
    mapping = runner.load_experiment(MAPPING)
    vms = runner.Runner(b, jobs=jobs)
    vms.run(exp)
    vms.run(rnd)
    vms.run(mapping)
    s = report.summarize(EXPERIMENT)
    rows = {r["config"]: r for r in s["rows"]}
    rrows = {r["config"]: r for r in report.summarize(RANDOM)["rows"]}
    mrows = {r["config"]: r for r in report.summarize(MAPPING)["rows"]}
    for name, got, want in ((EXPERIMENT, rows, ("none", "epcm-64-51", "oracle", "hot")),
                            (RANDOM, rrows, ("none", "epcm-64-51")),
                            (MAPPING, mrows, ("none", "epcm-64-51", "hot"))):
        for c in want:
            r = got.get(c)
            check(f"{name} {c}: the VM ran and produced a measured run", r is not None)
            if r is not None:
                check(f"{name} {c}: no unexpected replay errors", r["unexpected_errors"] == 0,
                      str(r["unexpected_errors"]))
    if "none" in rows and "epcm-64-51" in rows:
        n, e = rows["none"], rows["epcm-64-51"]
        print(f"figure: total I/O latency none {n['io_latency_s']:.3f} s, "
              f"epcm {e['io_latency_s']:.3f} s ({e['io_red']:+.1f}% reduction)", flush=True)
        miss_red = 100.0 * (1 - e["misses"] / n["misses"]) if n["misses"] else 0.0
        check(f"epcm removes at least {MISS_FLOOR_PCT}% of the read misses",
              miss_red >= MISS_FLOOR_PCT,
              f"{n['misses']:.0f} -> {e['misses']:.0f} ({-miss_red:+.1f}%)")
        no_harm("", n, e)
        gap_floor("", rows, GAP_FLOOR_PCT)
    if "none" in rrows and "epcm-64-51" in rrows:
        no_harm("random order: ", rrows["none"], rrows["epcm-64-51"])
    if all(c in mrows for c in ("none", "epcm-64-51", "hot")):
        gap_floor("mapping workload: ", mrows, MAP_GAP_FLOOR_PCT)
    if "oracle" in rows and "hot" in rows:
        oracle_checks(check, rows)
    if "hot" in rows:
        h = runner.RESULTS / EXPERIMENT / "hot" / "hot-1.json"
        j = json.loads(h.read_text()) if h.exists() else None
        if j is not None:
            cost = 100.0 * (j["elapsed_ns"] / (j["think_ns"] + j["call_latency_ns"]) - 1)
            check(f"a hot run is its think time plus its calls within {REPLAY_COST_PCT}%",
                  0 <= cost <= REPLAY_COST_PCT,
                  f"{j['elapsed_ns'] / 1e9:.3f} s against {j['think_ns'] / 1e9:.3f} s + "
                  f"{j['call_latency_ns'] / 1e9:.3f} s ({cost:+.1f}%; probes "
                  f"{j['probe_ns'] / 1e9:.3f} s)")
        else:
            check("a hot run is its think time plus its calls", False, f"no {h}")
    det = s["determinism"]
    for c in TWICE:
        check(f"{c} was booted twice", any(d["config"] == c for d in det))
    for d in det:
        check(f"{d['config']}: two boots agree within {DET_PCT}% on elapsed time",
              d["diff_pct"] <= DET_PCT,
              f"{d['elapsed_ns'][0]:,} vs {d['elapsed_ns'][1]:,} ns ({d['diff_pct']:.4f}%)")
    print(f"selftest: {time.monotonic() - t0:.0f} s of host time")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


def replay_built_in(d: Path) -> Path:
    """ppf-replay built from a copy of its sources under d."""
    shutil.copytree(build.TOP / "userspace", d / "userspace", ignore=shutil.ignore_patterns(
        "*.o", "*.a", "ppf-replay", "ppf-replay-dyn", "ppf-trace-check", "__pycache__",
        ".mypy_cache"))
    shutil.copy(build.TOP / "VERSION", d / "VERSION")
    dst = d / "userspace" / "trace-replay"
    subprocess.run(["make", "-s", "-C", str(dst), "replay"], check=True)
    return dst / "replay" / "ppf-replay"


def oracle_checks(check: Any, rows: Dict[str, Dict[str, Any]]) -> None:
    """The limit: the oracle's sweep and share, the bound's place."""
    log = runner.RESULTS / EXPERIMENT / "oracle" / "cold-1.bootlist"
    m = re.search(r"oracle: (\d+) data extents .* (\d+) metadata extents .* (\d+) errors",
                  log.read_text() if log.exists() else "")
    check("the oracle swept data and metadata, with no errors",
          m is not None and int(m[1]) > 0 and int(m[2]) > 0 and int(m[3]) == 0,
          m[0] if m else f"no sweep reported in {log}")
    gap = rows["oracle"]["gap_elapsed_pct"]
    check(f"the oracle closes at least {ORACLE_FLOOR_PCT}% of the gap (elapsed)",
          gap is not None and gap >= ORACLE_FLOOR_PCT,
          f"{rows['oracle']['elapsed_s']:.3f} s: {gap:.1f}%" if gap is not None else "no gap")
    b = rows.get("bound")
    cold = [r["elapsed_s"] for r in rows.values() if r["cache"] == "cold"]
    check("the bound lies between the hot run and every cold configuration",
          b is not None and rows["hot"]["elapsed_s"] <= b["elapsed_s"] <= min(cold),
          "no bound (no hot-1.accesses.gz)" if b is None else
          f"hot {rows['hot']['elapsed_s']:.3f} s <= bound {b['elapsed_s']:.3f} s <= "
          f"fastest cold {min(cold):.3f} s")
    e = rows.get("epcm-64-51")
    if e is not None and e.get("of_oracle_pct") is not None:
        print(f"figure: epcm closes {e['gap_elapsed_pct']:.1f}% of the gap, "
              f"{e['of_oracle_pct']:.0f}% of the oracle's {gap:.1f}%", flush=True)


if __name__ == "__main__":
    import argparse
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-j", "--jobs", type=int, default=2, help="VMs at a time (default 2)")
    sys.exit(main(ap.parse_args().jobs))
