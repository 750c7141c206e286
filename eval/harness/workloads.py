"""Workloads: a trace and the VM it needs (image room, guest RAM, timeout).

Every trace eval/workloads/DIR/NAME.trace.gz is the workload NAME (a recipe
directory may hold several recordings); no list in code.  What its VM needs
is derived from the trace (derive()): the room for the files a run creates
from the bytes it writes, the guest's RAM from the size of the image that
holds the tree, the timeout from how long the recorded run took.  An optional eval/workloads/DIR/workload.json overrides
any of them ({"room_mb": 900, "memory_mb": 3584, "timeout_s": 5400}); an
experiment file, or `run --trace`'s options, can override them again.
A trace outside eval/workloads/ (`run --trace FILE`) gets the same derivation.
"""

from __future__ import annotations

import dataclasses
import functools
import json
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Set, Tuple

from .. import tracefmt

TOP = Path(__file__).resolve().parents[2]
WORKLOAD_DIR = TOP / "eval" / "workloads"
OVERRIDES = ("room_mb", "memory_mb", "timeout_s")

MIB = 1 << 20
# Room: what the run writes, with a quarter more for ext4's metadata and
# allocation slack, plus 64 MiB (the journal and a floor for tiny traces).
ROOM_FACTOR = 1.25
ROOM_FLOOR_MB = 64
# RAM: null_blk's copy of the image plus the page cache of the tree (at most
# the image again), plus 512 MiB for the kernel, the replay and its trace,
# /tmp's results.  An image in the initramfs needs more: the initrd holds it
# while the kernel unpacks it into rootfs, a tmpfs limited to half the RAM
# then free, so RAM >= 3 x (image + the initramfs's own ~16 MiB) + 128 MiB for
# the kernel (measured: andrew's 448 MiB image unpacks in 1,536 MiB, glimpse's
# 512 MiB does not: "Initramfs unpacking failed: write error").
BASE_MEMORY_MB = 512
INITRAMFS_MB = 16
KERNEL_MB = 128
# Timeout (host seconds for one VM): the boot and the image copy, then each
# replay at most REPLAY_FACTOR times the recorded run's duration (measured:
# 0.5-4 host seconds per recorded second with -icount, docs/results.md "Host
# time"), at least MIN_REPLAY_S.
BOOT_S = 300
REPLAY_FACTOR = 8
MIN_REPLAY_S = 60


@dataclasses.dataclass(frozen=True)
class TraceStats:
    """What the derivation needs from a trace (ppf-trace info's counts)."""
    tree_bytes: int       # pre-existing regular files: what build-tree writes
    files: int            # file-table entries (inodes in the image)
    bytes_written: int
    duration_ns: int      # the recorded run: elapsed_ns, else first to last event
    working_set_bytes: int  # distinct bytes read, mapped or written (hot cache)
    compute_ns: int       # the untraced run's user+sys time (0: not measured)
    events: int = 0       # events in the trace


@functools.lru_cache(maxsize=None)
def trace_stats(trace: Path) -> TraceStats:
    t = tracefmt.load_trace(trace)
    files = t["files"]
    ev = t["events"]
    span = ev[-1].start + ev[-1].dur - ev[0].start if ev else 0
    elapsed = t["meta"].get("elapsed_ns", 0)
    compute = t["meta"].get("compute_ns", 0)
    return TraceStats(
        tree_bytes=sum(f.size for f in files if not f.new and not f.is_dir),
        files=len(files),
        bytes_written=sum(max(e.args[3], 0) for e in ev if e.op == "write"),
        duration_ns=max(span, elapsed if isinstance(elapsed, int) else 0),
        working_set_bytes=working_set(t),
        compute_ns=compute if isinstance(compute, int) else 0,
        events=len(ev))


def working_set(t: Mapping[str, Any]) -> int:
    """Distinct bytes the run needs in the page cache: the union of the ranges
    read and written in each file, and whole files for exec and mmap (the
    replay's default --exec=map --mmap=map pages them in whole)."""
    ranges: Dict[int, List[Tuple[int, int]]] = {}
    whole: Set[int] = set()
    for e in t["events"]:
        if e.op in ("read", "write") and e.args[3] > 0:
            ranges.setdefault(e.fid, []).append((e.args[1], e.args[1] + e.args[3]))
        elif e.op in ("exec", "mmap"):
            whole.add(e.fid)
    total = sum(t["files"][f].size for f in whole)
    for fid, rs in ranges.items():
        if fid in whole:
            continue
        rs.sort()
        end = 0
        for a, b in rs:
            total += max(0, b - max(a, end))
            end = max(end, b)
    return total


def _round_up(x: float, step: int) -> int:
    return int(-(-x // step) * step)


@dataclasses.dataclass(frozen=True)
class Workload:
    """A trace and its VM's needs.  overrides: OVERRIDES keys (MiB, seconds)."""
    name: str
    trace: Path
    overrides: Mapping[str, int] = dataclasses.field(default_factory=dict)

    def __hash__(self) -> int:
        return hash((self.name, self.trace, tuple(sorted(self.overrides.items()))))

    @property
    def stats(self) -> TraceStats:
        return trace_stats(self.trace)

    @property
    def room_mb(self) -> int:
        """Free space for the files a run creates."""
        if "room_mb" in self.overrides:
            return self.overrides["room_mb"]
        return _round_up(self.stats.bytes_written * ROOM_FACTOR / MIB + ROOM_FLOOR_MB, 32)

    @property
    def image_mb(self) -> int:
        """The image's size as build.workload_image() computes it (same formula,
        with the trace's sizes instead of du's: directories not counted)."""
        s = self.stats
        return _round_up(int(s.tree_bytes / MIB * 1.10) + s.files * 8 // 1024
                         + self.room_mb + 64, 64)

    def memory_mb(self, in_initramfs: bool) -> int:
        """Guest RAM in MiB, for the image in the initramfs or on a virtio disk."""
        if "memory_mb" in self.overrides:
            return self.overrides["memory_mb"]
        need = 2 * self.image_mb + BASE_MEMORY_MB
        if in_initramfs:
            need = max(need, 3 * (self.image_mb + INITRAMFS_MB) + KERNEL_MB)
        return _round_up(need, 512)

    def memory(self, in_initramfs: bool) -> str:
        """Guest RAM as QEMU's -m takes it."""
        return f"{self.memory_mb(in_initramfs)}M"

    def timeout(self, replays: int) -> int:
        """Host seconds for one VM that replays the trace `replays` times."""
        if "timeout_s" in self.overrides:
            return self.overrides["timeout_s"]
        per = max(MIN_REPLAY_S, REPLAY_FACTOR * self.stats.duration_ns / 1e9)
        return _round_up(BOOT_S + self.image_mb / 4 + replays * per, 60)

    def with_overrides(self, more: Mapping[str, int]) -> "Workload":
        return dataclasses.replace(self, overrides={**self.overrides, **more})

    def derived(self, replays: int, in_initramfs: bool = True) -> Dict[str, Any]:
        """What the VM gets, for a report (and for the reader of the derivation)."""
        return {"trace": str(self.trace), "room_mb": self.room_mb, "image_mb": self.image_mb,
                "memory_mb": self.memory_mb(in_initramfs), "in_initramfs": in_initramfs,
                "timeout_s": self.timeout(replays),
                "overrides": dict(self.overrides), **dataclasses.asdict(self.stats)}


def check_overrides(where: str, spec: Mapping[str, Any]) -> Dict[str, int]:
    """The OVERRIDES keys of spec, each a positive integer, or a clear error."""
    out: Dict[str, int] = {}
    for k in OVERRIDES:
        if k not in spec:
            continue
        v = spec[k]
        if not isinstance(v, int) or isinstance(v, bool) or v <= 0:
            raise SystemExit(f"harness: {where}: {k} must be a positive integer, not {v!r}")
        out[k] = v
    return out


def trace_name(trace: Path) -> str:
    """FILE.trace.gz, FILE.trace or FILE.gz -> FILE."""
    n = trace.name
    for suffix in (".gz", ".trace"):
        if n.endswith(suffix) and len(n) > len(suffix):
            n = n[:-len(suffix)]
    return n


def dir_overrides(d: Path) -> Dict[str, int]:
    """eval/workloads/DIR/workload.json's overrides (none when absent)."""
    conf = d / "workload.json"
    if not conf.exists():
        return {}
    try:
        spec = json.loads(conf.read_text())
    except json.JSONDecodeError as e:
        raise SystemExit(f"harness: {conf}: not JSON: {e}")
    if not isinstance(spec, dict):
        raise SystemExit(f"harness: {conf}: expected an object")
    unknown = sorted(set(spec) - set(OVERRIDES) - {"why"})
    if unknown:
        raise SystemExit(f"harness: {conf}: unknown keys {unknown} "
                         f"(known: {', '.join(OVERRIDES)}, why)")
    return check_overrides(str(conf), spec)


def load_workloads(d: Path) -> Dict[str, Workload]:
    """eval/workloads/DIR/: every NAME.trace.gz there is the workload NAME
    (andrew/andrew.trace.gz; pbuild/pbuild-j2-1.trace.gz ... several
    recordings of one recipe), with DIR/workload.json's overrides."""
    over = dir_overrides(d)
    return {trace_name(t): Workload(trace_name(t), t, over)
            for t in sorted(d.glob("*.trace.gz")) if t.is_file()}


def discover(root: Path = WORKLOAD_DIR) -> Dict[str, Workload]:
    """Every trace root/DIR/NAME.trace.gz as the workload NAME (sorted).  Two
    traces of one name are an error."""
    if not root.is_dir():
        return {}
    out: Dict[str, Workload] = {}
    for d in sorted(x for x in root.iterdir() if x.is_dir()):
        for name, w in load_workloads(d).items():
            if name in out:
                raise SystemExit(f"harness: two workloads named {name!r}: "
                                 f"{out[name].trace} and {w.trace}")
            out[name] = w
    return dict(sorted(out.items()))


WORKLOADS: Dict[str, Workload] = discover()


def workload(name: str) -> Workload:
    """The discovered workload NAME, or an error listing the ones there are."""
    w = WORKLOADS.get(name)
    if w is None:
        raise SystemExit(f"harness: no workload {name!r} (eval/workloads/*/NAME.trace.gz; "
                         f"found: {', '.join(WORKLOADS) or 'none'})")
    return w


def from_trace(trace: Path, name: Optional[str] = None) -> Workload:
    """A workload for any trace file, its needs derived."""
    if not trace.is_file():
        raise SystemExit(f"harness: trace {trace}: no such file")
    try:
        events = trace_stats(trace).events
    except (tracefmt.TraceError, OSError) as e:
        raise SystemExit(f"harness: trace {trace}: not a ppf trace: {e}")
    if not events:
        raise SystemExit(f"harness: trace {trace}: no events (nothing to replay; "
                         "was the recorded command found?)")
    return Workload(name or trace_name(trace), trace)
