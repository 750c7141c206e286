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
range clipped to its file's size; a mapping or exec of a file the run's
faults file names (ppf-replay --faults) uses only the pages listed there.
Metadata, and the kernel's own read-around, are left out, so the bound is
lower than any real run (a lower bound is what it must be).

The accesses come from run-experiment.sh's NAME.accesses.gz: "# root: DIR"
(the replay's tree), "# sizes" then "SIZE PATH" for every file at the
start (ppf-replay build-tree --list), "# accesses: ..." then "END_NS OP
OFFSET LEN PATH" per read, mmap and exec as the replay did them (LEN <= 0:
the whole file from OFFSET), and optionally "# faults: ..." then the
faults file (docs/replay.md, its paths as the trace names them: absolute
ones under DIR/_abs, relative ones under DIR).  Files of the bench before
the faults have no root, no OP and no faults section.
"""

from __future__ import annotations

import dataclasses
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


Access = Tuple[int, str, int, int, str]  # end_ns, op, offset, len, path
SECTIONS = ("root", "sizes", "accesses", "faults")


@dataclasses.dataclass
class Accesses:
    """An accesses.gz: the files at the start, the accesses, the faults."""
    sizes: Dict[str, int] = dataclasses.field(default_factory=dict)
    acc: List[Access] = dataclasses.field(default_factory=list)
    faults: Dict[str, List[int]] = dataclasses.field(default_factory=dict)


def read_accesses(p: Path) -> Accesses:
    """An accesses.gz (ValueError naming the line that is not one)."""
    a = Accesses()
    part, root, cur, with_op = "", "", "", True
    with gzip.open(p, "rt") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            head, _, rest = line[2:].partition(":")
            if line.startswith("# ") and head in SECTIONS:
                part = head
                if part == "root":
                    root = rest.strip()
                if part == "accesses":  # the bench before the op: "end_ns offset len path"
                    with_op = rest.split()[:2] == ["end_ns", "op"]
                continue
            try:
                if part == "sizes":
                    size, path = line.split(" ", 1)
                    a.sizes[path] = int(size)
                elif part == "accesses" and with_op:
                    end, op, off, ln, path = line.split(" ", 4)
                    a.acc.append((int(end), op, int(off), int(ln), path))
                elif part == "accesses":
                    end, off, ln, path = line.split(" ", 3)
                    a.acc.append((int(end), "", int(off), int(ln), path))
                elif part == "faults":
                    if line.startswith("file "):
                        name = line[5:]
                        cur = f"{root}/_abs{name}" if name.startswith("/") else f"{root}/{name}"
                        a.faults[cur] = []
                    elif line and not line.startswith(("#", "ppf-faults")):
                        if not cur:
                            raise ValueError("pages before a file line")
                        a.faults[cur] += [int(x) for x in line.split()]
                else:
                    raise ValueError("before any section")
            except ValueError as e:
                raise ValueError(f"{p}:{n}: not an accesses line ({e}): {line!r}") from None
    return a


def bound_s(hot_elapsed_s: float, a: Accesses, rate: float) -> Tuple[float, int]:
    """The bound above, in seconds, and the bytes B_n it counts."""
    seen: Dict[str, Set[int]] = {}
    total = 0
    worst = hot_elapsed_s
    for end_ns, op, off, ln, path in sorted(a.acc):
        size = a.sizes.get(path)
        if size is None:  # created by the run: no device read
            continue
        off = max(0, off)  # an exec's -1: the file from its start
        end = size if ln <= 0 else min(size, off + ln)
        span = range(off // PAGE, -(-end // PAGE))
        faulted = a.faults.get(path) if op in ("mmap", "exec") else None
        pages = seen.setdefault(path, set())
        for pg in span if faulted is None else [p for p in faulted if p in span]:
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
        out.append(bound_s(hot, read_accesses(p), media_rate(prof)))
    if not out:
        return None
    return {"elapsed_s": sum(b for b, _ in out) / len(out), "runs": len(out),
            "bytes": out[0][1], "media_rate_MB_s": media_rate(prof) / 1e6}
