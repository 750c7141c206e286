"""ppf-trace record: run a command under strace and write a ppf trace."""
import argparse
import os
import shlex
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import Callable, Dict, Iterable, List, NamedTuple, Optional, Sequence, Set, Tuple, Union

from . import calibrate, cli, fdtrack, fmt, strace_log, strace_run
from .calibrate import Overhead
from .strace_log import Call

SNAPSHOT_LIMIT = 2_000_000  # entries; beyond this the root is too big to walk


class Snapshot(NamedTuple):
    """The tree under the root before the run."""
    sizes: Dict[bytes, int]  # regular file -> size
    dirs: Set[bytes]         # directories, the root included


def snapshot(root: bytes) -> Union[Snapshot, Tuple[None, None]]:
    """Regular files (with sizes) and directories under root before the run:
    exact 'pre' vs 'new'. Returns (sizes, dirs), or (None, None) if too big."""
    sizes: Dict[bytes, int] = {}
    dirs, count = {root}, 0
    for d, subdirs, files in os.walk(root):
        for f in files + subdirs:
            count += 1
            if count > SNAPSHOT_LIMIT:
                return None, None
            p = os.path.join(d, f)
            try:
                st = os.lstat(p)
            except OSError:
                continue
            if stat.S_ISREG(st.st_mode):
                sizes[p] = st.st_size
            elif stat.S_ISDIR(st.st_mode):
                dirs.add(p)
    return Snapshot(sizes, dirs)


class Untraced(NamedTuple):
    """What untraced_run() measured."""
    elapsed_ns: int
    cpu_ns: int      # user + sys
    returncode: int


def untraced_run(argv: List[str]) -> Untraced:
    """Real elapsed and user+sys CPU time, without strace in the way."""
    t = time.perf_counter_ns()
    proc = subprocess.Popen(argv)
    _, status, ru = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter_ns() - t
    proc.returncode = os.waitstatus_to_exitcode(status)
    return Untraced(elapsed, int((ru.ru_utime + ru.ru_stime) * 1e9), proc.returncode)


def reset_tree(cmd: str, when: str) -> None:
    """--reset: put the tree back in its starting state, untraced (sh -c CMD
    in the current directory); a failing reset stops the recording."""
    print("ppf-trace: reset %s: %s" % (when, cmd), file=sys.stderr)
    rc = subprocess.run(["sh", "-c", cmd]).returncode
    if rc != 0:
        sys.exit("ppf-trace record: --reset command failed (exit %d) %s: %s" % (rc, when, cmd))


def correct_times(calls: Iterable[Call], cal: Overhead) -> Dict[int, Tuple[int, int]]:
    """Remove strace's per-call cost from the timeline.

    Each call is placed after what it waited for, as ppf-replay (and
    think.py) define it: its own process's previous call and the prefix of
    calls that had all ended when it started (need: the first earlier call
    still running). The gap since the later of those two ends loses
    cal['gap'] and the duration cal['dur'], both clamped at 0. For calls
    that do not overlap that is the walk in global start order (every gap
    and every duration corrected once); overlapping calls are placed after
    what had ended, not after a call still running. Processes whose calls
    interleave are still corrected as one sequence (right when they took
    turns; over-corrected when they computed at the same time: whether a
    process waited in a gap is not in the trace). Calls are in global start
    order; returns {seq: (start, dur)} relative to the first call.
    """
    out: Dict[int, Tuple[int, int]] = {}
    cs = list(calls)
    raw_end = [c.ts + c.dur for c in cs]
    new_end: List[int] = []
    own: Dict[int, Tuple[int, int]] = {}  # pid -> (raw end, corrected end) of its previous call
    need = 0
    pre: Optional[Tuple[int, int]] = None  # latest (raw, corrected) ends among calls [0, need)
    for i, c in enumerate(cs):
        while need < i and raw_end[need] <= c.ts:
            r, n = raw_end[need], new_end[need]
            pre = (r, n) if pre is None else (max(pre[0], r), max(pre[1], n))
            need += 1
        refs = [x for x in (own.get(c.pid), pre) if x is not None]
        if not refs:
            start = 0 if i == 0 else out[cs[0].seq][0] + max(c.ts - cs[0].ts, 0)
        else:
            r_raw = max(r[0] for r in refs)
            r_new = max(r[1] for r in refs)
            start = r_new + max(c.ts - r_raw - cal["gap"], 0)
        dur = max(c.dur - cal["dur"], 0)
        out[c.seq] = (start, dur)
        new_end.append(start + dur)
        own[c.pid] = (raw_end[i], start + dur)
    return out


# What an event says about its path existing at that moment (in call order):
# ACCESS: it existed (opened without O_CREAT, stat-ed, exec-ed, removed, renamed away);
# CREATE: the run made it (O_CREAT open, rename target, mkdir);
# ABSENT: a lookup failed with ENOENT.
ACCESS, CREATE, ABSENT = "access", "create", "absent"
NS_OPS = ("unlink", "rename", "mkdir", "rmdir")
LOOK = "look"  # an ACCESS by open, stat or exec (not a removal)
ENOENT = -2


def _evidence(op: str, args: Sequence[int]) -> List[Tuple[int, str]]:
    """[(slot, kind)] for one raw event; slot 0 = its path, 1 = rename target."""
    res = args[-1]
    if op == "open":
        if res >= 0:
            return [(0, CREATE if args[0] & fdtrack.O_CREAT else ACCESS)]
    elif op in ("stat", "exec", "unlink", "rmdir"):
        if res >= 0:
            return [(0, ACCESS)]
    elif op == "mkdir":
        if res >= 0:
            return [(0, CREATE)]
        if res == -17:  # EEXIST
            return [(0, ACCESS)]
    elif op == "rename":
        if res >= 0:
            return [(0, ACCESS), (1, CREATE)]
    else:
        return []
    return [(0, ABSENT)] if res == ENOENT else []


class RealPath:
    """realpath() with a cache; namespace-op paths (their final component
    not followed) stay as they are."""

    def __init__(self, nofollow: Set[bytes]) -> None:
        self.nofollow = nofollow
        self.cache: Dict[bytes, bytes] = {}

    def __call__(self, p: bytes) -> bytes:
        r = self.cache.get(p)
        if r is None:
            r = self.cache[p] = p if p in self.nofollow else os.path.realpath(p)
        return r


def _paths(ev: fdtrack.RawEvent, real: Callable[[bytes], bytes]) -> List[bytes]:
    """The real paths an event names: its file, and a rename's target."""
    paths = [real(ev.path)]
    if ev.op == "rename" and ev.target is not None:
        paths.append(real(ev.target))
    return paths


@dataclass
class _Evidence:
    """What the raw events say about each (real) path rp."""
    # rp -> first evidence kind
    first: Dict[bytes, str] = field(default_factory=dict)
    # rp -> {kind: index of its first event of that kind}
    seen: Dict[bytes, Dict[str, int]] = field(default_factory=dict)
    # paths with at least one successful event
    ok: Set[bytes] = field(default_factory=set)
    # paths in order of first appearance
    order: List[bytes] = field(default_factory=list)
    # (source rp, target rp)
    renames: List[Tuple[bytes, bytes]] = field(default_factory=list)
    # paths named by unlink, rename, mkdir, rmdir
    nspaths: Set[bytes] = field(default_factory=set)


def _gather(raw: List[fdtrack.RawEvent], real: Callable[[bytes], bytes]) -> _Evidence:
    ev = _Evidence()
    for i, e in enumerate(raw):
        op, args = e.op, e.args
        paths = _paths(e, real)
        if op == "rename":
            ev.renames.append((paths[0], paths[1]))
        if op in NS_OPS:
            ev.nspaths.update(paths)
        for rp in paths:
            if rp not in ev.seen:
                ev.seen[rp] = {}
                ev.order.append(rp)
        if op in ("read", "write", "mmap") or args[-1] >= 0:
            ev.ok.update(paths)
        for slot, kind in _evidence(op, args):
            rp = paths[slot]
            ev.first.setdefault(rp, kind)
            ev.seen[rp].setdefault(kind, i)
            if kind == ACCESS and op in ("open", "stat", "exec"):
                ev.seen[rp].setdefault(LOOK, i)
    return ev


def _is_dir(rp: bytes, tracker: fdtrack.Tracker, pre: Optional[Snapshot], inside: bool,
            st: Optional[os.stat_result]) -> Optional[bool]:
    """Whether a path is a directory or a file (a name); None if it is neither
    (a device, fifo, socket...) and stays out of the table."""
    if inside and pre is not None and (rp in pre.sizes or rp in pre.dirs):
        return rp in pre.dirs
    if rp in tracker.dirs:
        return True
    if rp in tracker.nonreg:
        return None  # device, fifo, socket...
    if st is not None and not stat.S_ISREG(st.st_mode):
        if not stat.S_ISDIR(st.st_mode):
            if stat.S_ISLNK(st.st_mode) and rp in tracker.nofollow:
                return False  # a symlink unlinked or renamed: a name, like a file
            return None
        return True
    return False


class EarlyAccess(NamedTuple):
    """A 'new' path the run found existing before it created it."""
    path: bytes
    op: str       # the first event that found it
    looked: bool  # found by open, stat or exec (else: removed)


def _early(rp: bytes, ev: _Evidence, raw: List[fdtrack.RawEvent]) -> Optional[EarlyAccess]:
    s = ev.seen[rp]
    made = s.get(CREATE, len(raw))
    if s.get(LOOK, made) < made:
        return EarlyAccess(rp, raw[s[LOOK]].op, True)
    if s.get(ACCESS, made) < made:
        return EarlyAccess(rp, raw[s[ACCESS]].op, False)
    return None


class FileTable(NamedTuple):
    """What build_files() decided."""
    table: List[fmt.FileEntry]
    ids: Dict[bytes, int]              # real path -> file id
    real: Callable[[bytes], bytes]     # the real path of a raw event's path
    dropped: Dict[str, List[bytes]]    # reason -> paths whose events cannot be kept
    early: List[EarlyAccess]


def build_files(tracker: fdtrack.Tracker, root: bytes, snap: Optional[Dict[bytes, int]],
                snapdirs: Optional[Set[bytes]], run_start_ns: int) -> FileTable:
    """Decide which paths go in the file table, with kind, size at start and
    origin. Returns (table, ids, real, dropped, early) where table holds
    (size, origin, path), dropped maps a reason to the paths whose events
    cannot be kept, and early lists 'new' paths the run found existing
    before creating them (the --untraced-run symptom)."""
    pre = Snapshot(snap, snapdirs) if snap is not None and snapdirs is not None else None
    real = RealPath(tracker.nofollow)
    ev = _gather(tracker.raw, real)
    # A path that only ever failed (ENOENT lookups) is not part of the tree,
    # unless it existed at the start; a rename keeps its target with its source.
    keep = {rp for rp in ev.order
            if rp in ev.ok or (pre is not None and (rp in pre.sizes or rp in pre.dirs))}
    for src, dst in ev.renames:
        if src in keep:
            keep.add(dst)

    ft = FileTable([], {}, real, {}, [])
    prefix = root.rstrip(b"/") + b"/"
    for rp in ev.order:
        if rp not in keep or fdtrack.ignored(rp):
            continue
        st: Optional[os.stat_result]
        try:
            st = os.lstat(rp) if rp in tracker.nofollow else os.stat(rp)
        except OSError:
            st = None
        inside = rp == root or rp.startswith(prefix)
        is_dir = _is_dir(rp, tracker, pre, inside, st)
        if is_dir is None:
            continue
        if is_dir and rp not in ev.nspaths:
            continue  # a directory only opened or read: not part of the table (as in version 1)
        kind = ev.first.get(rp)
        if inside and pre is not None:
            new = rp not in (pre.dirs if is_dir else pre.sizes)
        elif kind in (CREATE, ABSENT):
            # Created by this run (whatever it did to the file later), unless
            # it is still there with an mtime from before the run.
            new = is_dir or st is None or st.st_mtime_ns >= run_start_ns
        else:
            new = False
        if new or is_dir:
            size = 0
        elif rp in tracker.first_size:
            size = tracker.first_size[rp]
        elif inside and pre is not None:
            size = pre.sizes[rp]
        elif st is not None:
            size = st.st_size  # after the run: exact unless the run wrote it (documented)
        else:
            # Existed before the run, no size seen while it was there, and
            # gone after it: its size truly cannot be known.
            ft.dropped.setdefault("size unknown", []).append(rp)
            continue
        if new:
            early = _early(rp, ev, tracker.raw)
            if early is not None:
                ft.early.append(early)
        ft.ids[rp] = len(ft.table)
        tpath = os.path.relpath(rp, root) if inside else rp  # the root itself is "."
        origin = ("newdir" if new else "dir") if is_dir else ("new" if new else "pre")
        ft.table.append(fmt.FileEntry(size, origin, tpath))
    return ft


class TracedRun(NamedTuple):
    """The command's run under strace."""
    returncode: int
    start_ns: int  # wall clock just before it started
    logs: strace_log.Logs


def _run_traced(argv: List[str], keep_raw: Optional[str]) -> TracedRun:
    """Run the command under strace; keep_raw: a directory for strace's logs."""
    with tempfile.TemporaryDirectory(prefix="ppf-trace-") as tmp:
        prefix = os.path.join(tmp, "log")
        run_start = time.time_ns()
        rc = subprocess.run(strace_run.strace_argv(prefix) + argv).returncode
        logs = strace_log.read_logs(prefix)
        if keep_raw:
            os.makedirs(keep_raw, exist_ok=True)
            for f in os.listdir(tmp):
                os.replace(os.path.join(tmp, f), os.path.join(keep_raw, f))
    return TracedRun(rc, run_start, logs)


def _track(calls: List[Call]) -> fdtrack.Tracker:
    """Feed the calls to a Tracker, warning about what it could not follow."""
    tracker = fdtrack.Tracker(os.fsencode(os.getcwd()))
    bad = sum(1 for c in calls if not tracker.feed(c))
    if bad:
        print("ppf-trace: warning: %d strace lines could not be decoded" % bad, file=sys.stderr)
    if len(tracker.orphans) > 1:
        print("ppf-trace: warning: %d processes appeared without a traced fork (pids %s): "
              "their inherited fds are not recorded" % (
                  len(tracker.orphans) - 1, " ".join(map(str, tracker.orphans[1:6]))),
              file=sys.stderr)
    return tracker


def _events(tracker: fdtrack.Tracker, ft: FileTable,
            times: Dict[int, Tuple[int, int]]) -> Tuple[List[fmt.Event], Dict[str, int]]:
    """The trace's events, sorted, and how many were dropped for each reason."""
    events: List[fmt.Event] = []
    ndropped: Dict[str, int] = {}
    why: Dict[bytes, str] = {}
    for reason, paths in ft.dropped.items():
        for p in paths:
            why[p] = reason
    real, ids = ft.real, ft.ids
    for ev in tracker.raw:
        c, op, a = ev.call, ev.op, ev.args
        rp = real(ev.path)
        fid = ids.get(rp)
        nid = None
        if op == "rename" and ev.target is not None:
            nid = ids.get(real(ev.target))
            if fid is not None and nid is None:
                fid = None
                rp = real(ev.target)
        if fid is None:
            if rp in why:  # otherwise a failed-only lookup or a non-file: by design
                ndropped[why[rp]] = ndropped.get(why[rp], 0) + 1
            continue
        if ft.table[fid].origin in ("dir", "newdir") and op not in NS_OPS:
            continue  # opens, stats, closes of directories are not events (as in version 1)
        if nid is not None:
            a = (nid,) + a  # the rename's target, now a file id
        start, dur = times[c.seq]
        events.append(fmt.Event(start, dur, c.pid, op, fid, a))
    # Stable by corrected start, then original call order.
    events.sort(key=lambda e: e.start)
    return events, ndropped


def _warn_early(early: List[EarlyAccess]) -> None:
    looked = [(rp, op) for rp, op, look in early if look]
    removed = [rp for rp, op, look in early if not look]
    if looked:
        print("ppf-trace: warning: %d files/dirs absent at the start (origin new) were opened or "
              "stat-ed by the traced run before it created them: the traced run did not start from "
              "the tree the file table describes (with --untraced-run the command must restore its "
              "own starting state; see docs/trace-format.md):" % len(looked), file=sys.stderr)
        for rp, op in looked[:20]:
            print("ppf-trace:   %s (%s)" % (os.fsdecode(rp), op), file=sys.stderr)
        if len(looked) > 20:
            print("ppf-trace:   ... and %d more" % (len(looked) - 20), file=sys.stderr)
    if removed:
        print("ppf-trace: note: %d files/dirs absent at the start (origin new) were removed by the "
              "traced run before it created them (e.g. %s): the command cleaning up what an earlier "
              "run (--untraced-run) left; replayed from the file table these removals find nothing"
              % (len(removed), os.fsdecode(removed[0])), file=sys.stderr)


def command_status(rc: int) -> int:
    """The command's exit status as a shell gives it (128+N: killed by signal N)."""
    return 128 - rc if rc < 0 else rc


def check_args(args: argparse.Namespace) -> None:
    """Everything that can be wrong with the command line, before any work,
    in one line: exit 2 for a malformed command line, 1 for what it names
    that cannot be used (an output not writable, a missing --root, strace
    missing), 127/126 for a COMMAND not found / not executable (as env(1))."""
    argv: List[str] = args.command
    if not argv:
        cli.usage_error("ppf-trace record: no command given (use: -- COMMAND ARGS...)")
    why = cli.unwritable(args.output)
    if why:
        cli.fail("ppf-trace record: -o %s: cannot write: %s" % (args.output, why))
    if args.root is not None and not os.path.isdir(args.root):
        cli.fail("ppf-trace record: --root %s: %s" % (
            args.root, "not a directory" if os.path.exists(args.root) else "no such directory"))
    if args.keep_raw is not None:
        d = args.keep_raw
        if os.path.exists(d) and not os.path.isdir(d):
            cli.fail("ppf-trace record: --keep-raw %s: not a directory" % d)
        probe = os.path.join(d, "x") if os.path.isdir(d) else d
        why = cli.unwritable(probe)
        if why:
            cli.fail("ppf-trace record: --keep-raw %s: cannot write: %s" % (d, why))
    if args.name is not None and not args.name:
        cli.usage_error("ppf-trace record: --name: empty")
    strace_run.strace_path()
    cmd = argv[0]
    found = shutil.which(cmd) if "/" not in cmd else cmd
    if found is None or not os.path.exists(found):
        print("ppf-trace record: %s: command not found" % cmd, file=sys.stderr)
        sys.exit(127)
    if os.path.isdir(found) or not os.access(found, os.X_OK):
        print("ppf-trace record: %s: not executable" % cmd, file=sys.stderr)
        sys.exit(126)


def record(args: argparse.Namespace) -> int:
    check_args(args)
    argv: List[str] = args.command
    root = os.path.realpath(os.fsencode(args.root or os.getcwd()))
    name = args.name or os.path.basename(argv[0])
    meta: List[Tuple[str, object]] = [("name", name), ("command", shlex.join(argv)), ("root", root),
                                      ("tracer", strace_run.strace_version())]

    # --reset before each run (the snapshot describes the reset tree), so the
    # command need not clean up after the untraced run itself.
    if args.reset is not None:
        reset_tree(args.reset, "before the %s run" % ("untraced" if args.untraced_run else "traced"))
    # Snapshot first: the file table describes the tree the workload starts
    # from, even if --untraced-run leaves its outputs behind.
    snap, snapdirs = snapshot(root) if not args.no_snapshot else (None, None)
    untraced = None
    if args.untraced_run:
        untraced = untraced_run(argv)
        print("ppf-trace: untraced run: %.3f s elapsed, %.3f s user+sys (exit %d)" % (
            untraced.elapsed_ns / 1e9, untraced.cpu_ns / 1e9, untraced.returncode), file=sys.stderr)
        if args.reset is not None:
            reset_tree(args.reset, "before the traced run")

    cal: Overhead = {"total": 0, "dur": 0, "gap": 0}
    if not args.no_calibrate:
        try:
            cal = calibrate.calibrate(args.calib_calls)
        except (RuntimeError, ValueError, OSError) as e:
            cli.fail("ppf-trace record: %s (--no-calibrate records without it)" % e)
        print("ppf-trace: strace overhead %d ns/call (%d in duration, %d in gap)" % (
            cal["total"], cal["dur"], cal["gap"]), file=sys.stderr)

    rc, run_start, (calls, first, last) = _run_traced(argv, args.keep_raw)
    rc = command_status(rc)
    if rc != 0:
        print("ppf-trace: warning: command exited with %d" % rc, file=sys.stderr)

    tracker = _track(calls)
    ft = build_files(tracker, root, snap, snapdirs, run_start - 10**9)
    times = correct_times(calls, cal)
    events, ndropped = _events(tracker, ft, times)

    reason = None
    if ndropped:
        reason = "; ".join("%d events of %d files: %s (e.g. %s)" % (
            n, len(ft.dropped[r]), r, os.fsdecode(ft.dropped[r][0]))
            for r, n in sorted(ndropped.items()))
        print("ppf-trace: warning: dropped %s" % reason, file=sys.stderr)
    _warn_early(ft.early)

    corrected_end = max((s + d for s, d in times.values()), default=0)
    tail = max(last - max((c.ts + c.dur for c in calls), default=last), 0)
    meta += [("elapsed_ns", last - first),
             ("corrected_elapsed_ns", corrected_end + tail),
             ("untraced_elapsed_ns", untraced.elapsed_ns if untraced else None),
             ("compute_ns", untraced.cpu_ns if untraced else None),
             ("traced_syscalls", len(calls)),
             ("strace_overhead_ns", cal["total"]),
             ("strace_dur_overhead_ns", cal["dur"]),
             ("strace_gap_overhead_ns", cal["gap"]),
             ("inherited_fd_calls", tracker.inherited_calls),
             ("dropped_events", sum(ndropped.values())),
             ("dropped_events_reason", reason)]
    try:
        fmt.write_trace(args.output, meta, ft.table, events)
    except OSError as e:
        cli.fail("ppf-trace record: cannot write %s: %s" % (args.output, e.strerror or e))
    print("ppf-trace: wrote %s: %d events, %d files, %d traced syscalls" % (
        args.output, len(events), len(ft.table), len(calls)), file=sys.stderr)
    return rc
