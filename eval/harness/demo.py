"""The demo: from a fresh machine, build everything, boot the test kernel and
replay the cold-cache GNU ld link trace without prefetching and with EPCM
(3 warm-up runs that also train the model), and hot (the physical limit), on
the paper's disk (hdd-2001), then print what prefetching removed and the
share of the cold-to-hot gap it closed.

    python3 -m eval.harness demo
"""

from __future__ import annotations

import time
from typing import Any, Dict, List

from . import build, report, runner

EXPERIMENT = "gnuld-hdd2001"
CONFIGS = ["none", "epcm-64-51", "hot"]


def main(jobs: int = 2) -> int:
    t0 = time.monotonic()
    print("demo: installs what is missing first (apt-get, as root): "
          + " ".join(build.PACKAGES), flush=True)
    build.ensure_packages()
    b = build.Built()
    exp = runner.load_experiment(EXPERIMENT)
    runner.Runner(b, jobs=jobs).run(exp, CONFIGS)
    s = report.summarize(EXPERIMENT)
    rows = {r["config"]: r for r in s["rows"]}
    if not all(c in rows for c in CONFIGS):
        print("demo: a configuration produced no result (see the log above)")
        return 1
    print(summary(rows))
    print(f"demo: {time.monotonic() - t0:.0f} s of host time")
    return 0


def summary(rows: Dict[str, Dict[str, Any]]) -> str:
    """What the demo prints of its three rows (report.summarize's)."""
    out: List[str] = []
    n, e = rows["none"], rows["epcm-64-51"]
    out.append("\nGNU ld link of Linux 6.12, cold cache, replayed in the test VM on a "
               "12 ms / 10 MiB/s disk (hdd-2001)")
    out.append(f"{'':24}{'no prefetching':>16}{'EPCM 64/51':>14}{'removed':>10}")
    for k, name, unit, sc in (("read_mean_us", "read latency (mean)", "us", 1),
                              ("read_latency_total_s", "read latency (total)", "s", 1),
                              ("io_latency_s", "total I/O latency", "s", 1),
                              ("elapsed_s", "elapsed time", "s", 1)):
        a, c = n[k] * sc, e[k] * sc
        out.append(f"{name + ' (' + unit + ')':24}{a:16.3f}{c:14.3f}{100 * (1 - c / a):9.1f}%")
    h = rows["hot"]
    out.append(f"{'hot cache: elapsed':24}{h['elapsed_s']:16.3f} s, total I/O latency "
               f"{h['io_latency_s']:.3f} s")
    out.append("share of the cold-to-hot gap EPCM closed: "
               f"elapsed {e['gap_elapsed_pct']:.1f}%, "
               f"total I/O latency {e['gap_io_pct']:.1f}%  "
               "((cold none - cold EPCM) / (cold none - hot))")
    out.append(f"reads hit / partial / miss: none {n['hits']:.0f} / {n['partial']:.0f} / "
               f"{n['misses']:.0f}, EPCM {e['hits']:.0f} / {e['partial']:.0f} / {e['misses']:.0f}")
    out.append("paper (GNU ld 2.9.1, EPCM): elapsed -11%, total I/O latency -34%, "
               "read latency -33%")
    return "\n".join(out)
