"""ppf-trace record: run a command under strace and write a ppf trace."""
import os
import resource
import shlex
import stat
import subprocess
import sys
import tempfile
import time

from . import calibrate, fdtrack, fmt, strace_log, strace_run

SNAPSHOT_LIMIT = 2_000_000  # entries; beyond this the root is too big to walk


def snapshot(root: bytes):
    """Sizes of regular files under root before the run: exact 'pre' vs 'new'."""
    sizes, count = {}, 0
    for d, dirs, files in os.walk(root):
        for f in files:
            count += 1
            if count > SNAPSHOT_LIMIT:
                return None
            p = os.path.join(d, f)
            try:
                st = os.lstat(p)
            except OSError:
                continue
            if stat.S_ISREG(st.st_mode):
                sizes[p] = st.st_size
    return sizes


def untraced_run(argv):
    """Real elapsed and user+sys CPU time, without strace in the way."""
    t = time.perf_counter_ns()
    proc = subprocess.Popen(argv)
    _, status, ru = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter_ns() - t
    proc.returncode = os.waitstatus_to_exitcode(status)
    return elapsed, int((ru.ru_utime + ru.ru_stime) * 1e9), proc.returncode


def correct_times(calls, cal):
    """Remove strace's per-call cost from the timeline.

    Walk all traced calls in global start order (the workloads we target run
    one process at a time, so wall clock is one sequence of calls and gaps).
    Each duration loses cal['dur'], each gap before a call loses cal['gap'],
    both clamped at 0; overlapping calls of parallel processes keep their
    relative overlap. Returns {seq: (start, dur)} relative to the first call.
    """
    out = {}
    prev = None
    last_end = {}  # pid -> corrected end of its previous call
    for c in calls:
        dur = max(c.dur - cal["dur"], 0)
        if prev is None:
            start = 0
        else:
            pc, ps, pd = prev
            gap = c.ts - (pc.ts + pc.dur)
            if gap >= 0:
                start = ps + pd + max(gap - cal["gap"], 0)
            else:
                start = ps + min(c.ts - pc.ts, pd)
        start = max(start, last_end.get(c.pid, 0))
        last_end[c.pid] = start + dur
        out[c.seq] = (start, dur)
        prev = (c, start, dur)
    return out


def build_files(tracker, root, snap, run_start_ns):
    """Decide which paths go in the file table, with size at start and origin."""
    real_cache = {}

    def real(p):
        r = real_cache.get(p)
        if r is None:
            r = real_cache[p] = os.path.realpath(p)
        return r

    # A path that only ever failed (ENOENT lookups) is not part of the tree.
    ok = {real(p) for _, op, p, a in tracker.raw if op in ("read", "write", "mmap") or a[-1] >= 0}
    table, ids = [], {}
    for c, op, path, args in tracker.raw:
        rp = real(path)
        if rp not in ok and not (snap and rp in snap):
            continue
        if rp in ids or fdtrack.ignored(rp) or rp in tracker.nonreg:
            continue
        try:
            st = os.stat(rp)
            exists = True
            if not stat.S_ISREG(st.st_mode):
                continue
        except OSError:
            exists = False
            st = None
        inside = rp == root or rp.startswith(root.rstrip(b"/") + b"/")
        if inside and snap is not None:
            new = rp not in snap
            size = 0 if new else snap[rp]
        else:
            new = tracker.created_open.get(rp, False) and rp not in tracker.seen_existing and (
                not exists or st.st_mtime_ns >= run_start_ns)
            if new:
                size = 0
            elif rp in tracker.first_size:
                size = tracker.first_size[rp]
            elif exists:
                size = st.st_size
            else:
                size = None
        if size is None:
            continue  # never existed as a file we could see: a failed lookup
        ids[rp] = len(table)
        tpath = os.path.relpath(rp, root) if inside and rp != root else rp
        table.append((size, new, tpath))
    return table, ids, real


def record(args):
    argv = args.command
    if not argv:
        sys.exit("ppf-trace record: no command given (use: -- COMMAND ARGS...)")
    strace_run.strace_path()
    root = os.path.realpath(os.fsencode(args.root or os.getcwd()))
    name = args.name or os.path.basename(argv[0])
    meta = [("name", name), ("command", shlex.join(argv)), ("root", root),
            ("tracer", strace_run.strace_version())]

    # Snapshot first: the file table describes the tree the workload starts
    # from, even if --untraced-run leaves its outputs behind.
    snap = snapshot(root) if not args.no_snapshot else None
    untraced = None
    if args.untraced_run:
        untraced = untraced_run(argv)
        print("ppf-trace: untraced run: %.3f s elapsed, %.3f s user+sys (exit %d)" % (
            untraced[0] / 1e9, untraced[1] / 1e9, untraced[2]), file=sys.stderr)

    cal = {"total": 0, "dur": 0, "gap": 0}
    if not args.no_calibrate:
        cal = calibrate.calibrate(args.calib_calls)
        print("ppf-trace: strace overhead %d ns/call (%d in duration, %d in gap)" % (
            cal["total"], cal["dur"], cal["gap"]), file=sys.stderr)

    with tempfile.TemporaryDirectory(prefix="ppf-trace-") as tmp:
        prefix = os.path.join(tmp, "log")
        run_start = time.time_ns()
        rc = subprocess.run(strace_run.strace_argv(prefix) + argv).returncode
        calls, first, last = strace_log.read_logs(prefix)
        if args.keep_raw:
            os.makedirs(args.keep_raw, exist_ok=True)
            for f in os.listdir(tmp):
                os.replace(os.path.join(tmp, f), os.path.join(args.keep_raw, f))
    if rc != 0:
        print("ppf-trace: warning: command exited with %d" % rc, file=sys.stderr)

    tracker = fdtrack.Tracker(os.fsencode(os.getcwd()))
    bad = sum(1 for c in calls if not tracker.feed(c))
    if bad:
        print("ppf-trace: warning: %d strace lines could not be decoded" % bad, file=sys.stderr)
    files, ids, real = build_files(tracker, root, snap, run_start - 10**9)
    times = correct_times(calls, cal)

    events = []
    for c, op, path, a in tracker.raw:
        fid = ids.get(real(path))
        if fid is None:
            continue
        start, dur = times[c.seq]
        events.append((start, dur, c.pid, op, fid, a))
    # Stable by corrected start, then original call order.
    events.sort(key=lambda e: e[0])

    corrected_end = max((s + d for s, d in times.values()), default=0)
    tail = max(last - max((c.ts + c.dur for c in calls), default=last), 0)
    meta += [("elapsed_ns", last - first),
             ("corrected_elapsed_ns", corrected_end + tail),
             ("untraced_elapsed_ns", untraced[0] if untraced else None),
             ("compute_ns", untraced[1] if untraced else None),
             ("traced_syscalls", len(calls)),
             ("strace_overhead_ns", cal["total"]),
             ("strace_dur_overhead_ns", cal["dur"]),
             ("strace_gap_overhead_ns", cal["gap"])]
    fmt.write_trace(args.output, meta, files, events)
    print("ppf-trace: wrote %s: %d events, %d files, %d traced syscalls" % (
        args.output, len(events), len(files), len(calls)), file=sys.stderr)
    return 0 if rc == 0 else 1
