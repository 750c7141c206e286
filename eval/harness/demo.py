"""The demo: from a fresh machine, build everything, boot the test kernel and
replay the cold-cache GNU ld link trace without prefetching and with EPCM
(3 warm-up runs that also train the model), on the paper's disk (hdd-2001),
then print what prefetching removed.

    python3 -m eval.harness demo
"""

from __future__ import annotations

import time

from . import build, report, runner

EXPERIMENT = "gnuld-hdd2001"
CONFIGS = ["none", "epcm-64-51"]


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
    n, e = rows["none"], rows["epcm-64-51"]
    print("\nGNU ld link of Linux 6.12, cold cache, replayed in the test VM on a "
          "12 ms / 10 MiB/s disk (hdd-2001)")
    print(f"{'':24}{'no prefetching':>16}{'EPCM 64/51':>14}{'removed':>10}")
    for k, name, unit, sc in (("read_mean_us", "read latency (mean)", "us", 1),
                              ("read_latency_total_s", "read latency (total)", "s", 1),
                              ("io_latency_s", "total I/O latency", "s", 1),
                              ("elapsed_s", "elapsed time", "s", 1)):
        a, c = n[k] * sc, e[k] * sc
        print(f"{name + ' (' + unit + ')':24}{a:16.3f}{c:14.3f}{100 * (1 - c / a):9.1f}%")
    print(f"reads hit / partial / miss: none {n['hits']:.0f} / {n['partial']:.0f} / "
          f"{n['misses']:.0f}, EPCM {e['hits']:.0f} / {e['partial']:.0f} / {e['misses']:.0f}")
    print("paper (GNU ld 2.9.1, EPCM): elapsed -11%, total I/O latency -34%, read latency -33%")
    print(f"demo: {time.monotonic() - t0:.0f} s of host time")
    return 0
