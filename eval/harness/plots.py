"""Figures in the paper's spirit (matplotlib, PNG), written to out_dir
(report.py passes docs/figures/): DPI dots an inch, so a 6-inch figure is
1200 pixels wide and its 8-point labels print readably; the reduction bars
carry their values."""

from __future__ import annotations

import gzip
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

try:
    import matplotlib
except ImportError:  # Debian's python3-matplotlib, for another CPython 3.11 (pyenv)
    import sys
    sys.path.append("/usr/lib/python3/dist-packages")
    import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

DPI = 200


def reductions(s: Dict[str, Any], out_dir: Path) -> Path:
    rows = [r for r in s["rows"] if r["config"] != "none" and r.get("io_red") is not None]
    labels = [r["label"] for r in rows]
    x = range(len(rows))
    w = 0.27
    fig, ax = plt.subplots(figsize=(max(6, 0.55 * len(rows) + 2), 3.6), dpi=DPI)
    for i, (k, name) in enumerate((("elapsed_red", "elapsed time"),
                                   ("io_red", "total I/O latency"),
                                   ("read_red", "read latency (mean)"))):
        bars = ax.bar([xi + (i - 1) * w for xi in x], [r[k] for r in rows], w, label=name)
        ax.bar_label(bars, fmt="%.0f", fontsize=6, padding=1)
    ax.axhline(0, color="black", lw=0.6)
    ax.set_xticks(list(x))
    ax.set_xticklabels(labels, rotation=45, ha="right", fontsize=8)
    ax.set_ylabel("reduction vs no prefetching (%)")
    ax.set_title(f"{s['workload']}, {s['profile']}, cold cache "
                 f"({s['warmups']} warm-ups; labels: partition size / model order)", fontsize=9)
    ax.legend(fontsize=8)
    ax.grid(axis="y", lw=0.3)
    fig.tight_layout()
    out = out_dir / f"{s['experiment']}-reductions.png"
    fig.savefig(out)
    plt.close(fig)
    return out


def latency_cdf(s: Dict[str, Any], root: Path, out_dir: Path) -> Path:
    fig, ax = plt.subplots(figsize=(6, 3.6), dpi=DPI)
    for r in s["rows"]:
        name = "hot-1" if r["cache"] == "hot" else "cold-1"
        p = root / r["config"] / f"{name}.reads.gz"
        if not p.exists() or (r["model"] == "pcm" and r["config"] != "pcm-64-4"):
            continue
        if r["model"] == "epcm" and r["config"] not in ("epcm-64-51", "epcm-4-3"):
            continue
        lat = sorted(max(int(l.split()[0]), 1) / 1e3 for l in gzip.open(p, "rt") if l.strip())
        n = len(lat)
        ax.step(lat, [1 - i / n for i in range(n)], where="post", label=r["label"], lw=1)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("read latency (us, log)")
    ax.set_ylabel("fraction of reads taking longer (log)")
    ax.set_title(f"{s['workload']}, {s['profile']}: read latency distribution "
                 "(first measured run)", fontsize=9)
    ax.legend(fontsize=7)
    ax.grid(lw=0.3)
    fig.tight_layout()
    out = out_dir / f"{s['experiment']}-latency.png"
    fig.savefig(out)
    plt.close(fig)
    return out


def blk_figure(panels: List[Tuple[str, Path]], out: Path,
               window: Optional[Tuple[float, float]] = None, served: bool = False) -> Path:
    """One panel per (title, blktrace.txt): the read requests queued on the
    device over time, by who queued them (the replay's demand reads, ppf's
    worker or a kworker's prefetches, anything else); only those within
    window (seconds since blktrace started) if it is given.  With served,
    each read is placed where the device completed it, which shows the
    order the disk served them in (a completion names no task: the read is
    credited to whoever queued its first sector)."""
    fig, axes = plt.subplots(len(panels), 1, figsize=(7, 2.4 * len(panels)), dpi=DPI,
                             sharex=True, squeeze=False)
    for ax, (title, p) in zip(axes[:, 0], panels):
        groups: Dict[str, List[Tuple[float, float, float]]] = {
            "demand (ppf-replay)": [], "prefetch (kworker / ppf)": [], "other": []}
        queued_by: Dict[str, str] = {}
        for line in p.read_text().splitlines():
            t, act, rwbs, sector, nblk, pid, *comm = line.split()
            if "R" not in rwbs or act not in ("Q", "C"):
                continue
            c = " ".join(comm)
            if act == "Q":
                key = ("demand (ppf-replay)" if c.startswith("ppf-replay") else
                       "prefetch (kworker / ppf)" if c.startswith(("kworker", "ppf")) else
                       "other")
                queued_by.setdefault(sector, key)
                if served:
                    continue
            elif not served:
                continue
            else:
                key = queued_by.get(sector, "other")
            if window and not window[0] <= float(t) <= window[1]:
                continue
            groups[key].append((float(t), int(sector) * 512 / 2**20, int(nblk) * 512 / 1024))
        for (k, pts), col in zip(groups.items(), ("tab:red", "tab:green", "tab:gray")):
            if pts:
                ax.scatter([x[0] for x in pts], [x[1] for x in pts], s=2, c=col,
                           label=f"{k}: {len(pts)} reqs, {sum(x[2] for x in pts) / 1024:.0f} MiB")
        ax.set_ylabel("offset (MiB)")
        ax.set_title(f"{title}: block reads (blktrace, {'as served' if served else 'as queued'})",
                     fontsize=9)
        ax.legend(fontsize=7, markerscale=4, loc="upper right")
    axes[-1, 0].set_xlabel("time since blktrace start (s, guest clock)")
    fig.tight_layout()
    fig.savefig(out)
    plt.close(fig)
    return out


def blk_timeline(s: Dict[str, Any], root: Path, out_dir: Path) -> List[Path]:
    panels = [(r["label"], root / r["config"] / "blktrace.txt") for r in s["rows"]]
    panels = [(t, p) for t, p in panels if p.exists()]
    if not panels:
        return []
    return [blk_figure(panels, out_dir / f"{s['experiment']}-blktrace.png")]


def all_figures(s: Dict[str, Any], root: Path, out_dir: Path) -> List[Path]:
    """Every figure of summary s (results under root) in out_dir."""
    out_dir.mkdir(parents=True, exist_ok=True)
    out = []
    if len(s["rows"]) > 1:
        out.append(reductions(s, out_dir))
    out.append(latency_cdf(s, root, out_dir))
    out += blk_timeline(s, root, out_dir)
    return out


def main(argv: List[str]) -> int:
    """python3 -m eval.harness.plots blktrace OUT.png TITLE=RESULT_DIR...: the
    block requests of several runs in one figure, e.g. the same configuration
    with two modules (a result directory holds blktrace.txt)."""
    import argparse
    ap = argparse.ArgumentParser(prog="python3 -m eval.harness.plots", description=main.__doc__)
    ap.add_argument("what", choices=["blktrace"])
    ap.add_argument("out", type=Path)
    ap.add_argument("panels", nargs="+", metavar="TITLE=RESULT_DIR")
    ap.add_argument("--window", nargs=2, type=float, metavar=("FROM_S", "TO_S"),
                    help="only the reads in this span (seconds since blktrace started)")
    ap.add_argument("--served", action="store_true",
                    help="each read where the device completed it, not where it was queued")
    a = ap.parse_args(argv)
    if a.window and not a.window[0] < a.window[1]:
        ap.error(f"--window {a.window[0]} {a.window[1]}: FROM_S must be before TO_S")
    panels = []
    for spec in a.panels:
        title, sep, d = spec.partition("=")
        p = Path(d) / "blktrace.txt"
        if not sep or not title:
            ap.error(f"{spec!r}: want TITLE=RESULT_DIR")
        if not p.exists():
            ap.error(f"{p}: no such file (run the configuration with blktrace)")
        panels.append((title, p))
    print(blk_figure(panels, a.out, (a.window[0], a.window[1]) if a.window else None,
                     a.served))
    return 0


if __name__ == "__main__":
    import sys as _sys
    _sys.exit(main(_sys.argv[1:]))
