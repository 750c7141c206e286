"""The computed bound: the shortest elapsed time any prefetcher could reach
on a device, from the hot run and the bytes the run reads.

A prefetcher that knows everything and reads at the device's media rate
from the moment the run starts, with no positioning cost, still needs
B_i / rate seconds before the first i data accesses (in first-use order)
can all have their bytes, whatever order it reads them in; and after access
i the run needs at least what the hot run needed after it.  So

    bound = max(hot elapsed, max_i(B_i / rate + hot elapsed - end_i))

where end_i is access i's end in the hot run and B_i the bytes, in 4 KiB
pages, first used by accesses 1..i of the files that existed at the start
(those the run writes first are in the cache, not on the device), each
range clipped to its file's size.  Metadata is left out, so the bound is
lower than any real run (a lower bound is what it must be).

The accesses come from run-experiment.sh's NAME.accesses.gz: "# sizes"
then "SIZE PATH" for every file at the start (ppf-replay build-tree
--list), "# accesses: ..." then "END_NS OFFSET LEN PATH" per read, mmap
and exec as the replay did them (LEN <= 0: the whole file from OFFSET).
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Dict, List, Optional, Set, Tuple

from .profiles import NULL_BLK, Profile

PAGE = 4096


def media_rate(prof: Profile) -> float:
    """The device's sequential rate in bytes per second: the simulated
    disk's media rate, null_blk's bandwidth cap."""
    if prof.device == NULL_BLK:
        return prof.param("mbps") * 1048576.0
    return prof.param("media_kbps") * 1000.0


Access = Tuple[int, int, int, str]  # end_ns, offset, len, path


def read_accesses(p: Path) -> Tuple[Dict[str, int], List[Access]]:
    """The sizes and accesses of an accesses.gz (ValueError naming the line
    that is not one)."""
    sizes: Dict[str, int] = {}
    acc: List[Access] = []
    part = ""
    with gzip.open(p, "rt") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if line.startswith("# "):
                part = line[2:].split(":", 1)[0]
                continue
            try:
                if part == "sizes":
                    size, path = line.split(" ", 1)
                    sizes[path] = int(size)
                elif part == "accesses":
                    end, off, ln, path = line.split(" ", 3)
                    acc.append((int(end), int(off), int(ln), path))
                else:
                    raise ValueError("before any section")
            except ValueError as e:
                raise ValueError(f"{p}:{n}: not an accesses line ({e}): {line!r}") from None
    return sizes, acc


def bound_s(hot_elapsed_s: float, sizes: Dict[str, int], acc: List[Access],
            rate: float) -> Tuple[float, int]:
    """The bound above, in seconds, and the bytes B_n it counts."""
    seen: Dict[str, Set[int]] = {}
    total = 0
    worst = hot_elapsed_s
    for end_ns, off, ln, path in sorted(acc):
        size = sizes.get(path)
        if size is None:  # created by the run: no device read
            continue
        off = max(0, off)  # an exec's -1: the file from its start
        end = size if ln <= 0 else min(size, off + ln)
        pages = seen.setdefault(path, set())
        for pg in range(off // PAGE, -(-end // PAGE)):
            if pg not in pages:
                pages.add(pg)
                total += PAGE
        worst = max(worst, total / rate + hot_elapsed_s - end_ns / 1e9)
    return worst, total


def bound_of_run(d: Path, prof: Profile) -> Optional[Dict[str, float]]:
    """The bound of the hot configuration's results in d (the mean over its
    hot runs with accesses), with the bytes it counts; None without any."""
    out = []
    for p in sorted(d.glob("hot-*.accesses.gz")):
        run = p.with_name(p.name.replace(".accesses.gz", ".json"))
        if not run.exists():
            continue
        hot = json.loads(run.read_text())["elapsed_ns"] / 1e9
        sizes, acc = read_accesses(p)
        out.append(bound_s(hot, sizes, acc, media_rate(prof)))
    if not out:
        return None
    return {"elapsed_s": sum(b for b, _ in out) / len(out), "runs": len(out),
            "bytes": out[0][1], "media_rate_MB_s": media_rate(prof) / 1e6}
