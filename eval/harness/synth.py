"""Synthetic traces over an existing trace's file table.

random_order(SRC, seed): every `pre` file of SRC opened once, in a random order
(seeded), the first 256 KiB read in 64 KiB reads, closed, 2 ms of think time
between files.  The file table is SRC's, so SRC's image (build-tree) serves it.
Different seeds give different orders: train on one, measure on another, and
nothing learnt applies (the "unpredictable workload").
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any, List, Tuple

from .. import tracefmt
from .build import CACHE

THINK_NS = 2_000_000
CHUNK = 64 * 1024
CAP = 256 * 1024
O_CLOEXEC = 0x80000   # the open flags of every synthetic open
FD = 3                # and the descriptor it returns
KEEP_META = ("name", "root")

Meta = List[Tuple[str, Any]]
Files = List[Tuple[int, str, bytes]]
Event = Tuple[int, int, int, str, int, Tuple[int, ...]]


def origin(new: bool, is_dir: bool) -> str:
    """A file's origin in the trace format from parse_trace's two flags."""
    return ("new" if new else "") + ("dir" if is_dir else "") or "pre"


def _file_table(src: Path) -> Tuple[Meta, Files, List[Tuple[int, int]]]:
    """SRC's name and root meta, its file table, and (id, size) of its
    non-empty pre-existing files."""
    t = tracefmt.load_trace(src)
    meta = [(k, v) for k, v in t["meta"].items() if k in KEEP_META]
    files = [(size, origin(new, is_dir), path) for size, new, path, is_dir in t["files"]]
    pre = [(fid, size) for fid, (size, org, _) in enumerate(files)
           if org == "pre" and size > 0]
    return meta, files, pre


def events(pre: List[Tuple[int, int]], pid: int = 1000) -> List[Event]:
    """Open, read the first CAP bytes in CHUNK reads, close: each file in turn."""
    t = 0
    ev: List[Event] = []
    for fid, size in pre:
        t += THINK_NS
        ev.append((t, 5000, pid, "open", fid, (O_CLOEXEC, FD)))
        t += 5000
        off = 0
        while off < min(size, CAP):
            n = min(CHUNK, size - off)
            t += 1000
            ev.append((t, 5000, pid, "read", fid, (FD, off, CHUNK, n)))
            t += 5000
            off += n
        t += 1000
        ev.append((t, 2000, pid, "close", fid, (FD, 0)))
        t += 2000
    return ev


def random_order(src: Path, seed: int) -> Path:
    out = CACHE / "traces" / f"{src.name.split('.')[0]}-random-{seed}.trace.gz"
    if out.exists():
        return out
    meta, files, pre = _file_table(src)
    rng = random.Random(seed)
    rng.shuffle(pre)
    out.parent.mkdir(parents=True, exist_ok=True)
    tracefmt.write_trace(out, meta, files, events(pre))
    return out
