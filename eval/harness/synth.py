"""Synthetic traces over an existing trace's file table.

random_order(SRC, seed): every `pre` file of SRC opened once, in a random order
(seeded), the first 256 KiB read in 64 KiB reads, closed, 2 ms of think time
between files.  The file table is SRC's, so SRC's image (build-tree) serves it.
Different seeds give different orders: train on one, measure on another, and
nothing learnt applies (the "unpredictable workload").
"""

from __future__ import annotations

import gzip
import random
from pathlib import Path
from typing import List, Tuple

from .build import CACHE

THINK_NS = 2_000_000
CHUNK = 64 * 1024
CAP = 256 * 1024


def _file_table(src: Path) -> Tuple[List[str], List[Tuple[int, int]]]:
    head, pre = [], []
    with gzip.open(src, "rt") as f:
        for line in f:
            if line.startswith(("ppf-trace", "meta ")):
                if line.startswith(("ppf-trace", "meta name", "meta root")):
                    head.append(line)
                continue
            if not line.startswith("file "):
                break
            head.append(line)
            _, fid, size, origin, _path = line.rstrip("\n").split(" ", 4)
            if origin == "pre" and int(size) > 0:
                pre.append((int(fid), int(size)))
    return head, pre


def random_order(src: Path, seed: int) -> Path:
    out = CACHE / "traces" / f"{src.name.split('.')[0]}-random-{seed}.trace.gz"
    if out.exists():
        return out
    head, pre = _file_table(src)
    rng = random.Random(seed)
    rng.shuffle(pre)
    t, pid, ev = 0, 1000, []
    for fid, size in pre:
        t += THINK_NS
        ev.append(f"{t} 5000 {pid} open {fid} 0x80000 3")
        t += 5000
        off = 0
        while off < min(size, CAP):
            n = min(CHUNK, size - off)
            t += 1000
            ev.append(f"{t} 5000 {pid} read {fid} 3 {off} {CHUNK} {n}")
            t += 5000
            off += n
        t += 1000
        ev.append(f"{t} 2000 {pid} close {fid} 3 0")
        t += 2000
    out.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(out, "wt") as f:
        f.writelines(head)
        f.write("\n".join(ev) + "\n")
    return out
