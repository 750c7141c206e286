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
    """Regular files (with sizes) and directories under root before the run:
    exact 'pre' vs 'new'. Returns (sizes, dirs), or (None, None) if too big."""
    sizes, dirs, count = {}, {root}, 0
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
    return sizes, dirs


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


# What an event says about its path existing at that moment (in call order):
# ACCESS: it existed (opened without O_CREAT, stat-ed, exec-ed, removed, renamed away);
# CREATE: the run made it (O_CREAT open, rename target, mkdir);
# ABSENT: a lookup failed with ENOENT.
ACCESS, CREATE, ABSENT = "access", "create", "absent"
NS_OPS = ("unlink", "rename", "mkdir", "rmdir")
LOOK = "look"  # an ACCESS by open, stat or exec (not a removal)
ENOENT = -2


def _evidence(op, args):
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


def build_files(tracker, root, snap, snapdirs, run_start_ns):
    """Decide which paths go in the file table, with kind, size at start and
    origin. Returns (table, ids, real, dropped, early) where table holds
    (size, origin, path), dropped maps a reason to the paths whose events
    cannot be kept, and early lists 'new' paths the run found existing
    before creating them (the --untraced-run symptom)."""
    real_cache = {}

    def real(p):
        r = real_cache.get(p)
        if r is None:
            r = real_cache[p] = p if p in tracker.nofollow else os.path.realpath(p)
        return r

    first = {}    # rp -> first evidence kind
    seen = {}     # rp -> {kind: index of its first event of that kind}
    ok = set()    # paths with at least one successful event
    order = []    # paths in order of first appearance
    renames = []  # (source rp, target rp)
    nspaths = set()  # paths named by unlink, rename, mkdir, rmdir
    for i, (c, op, path, args) in enumerate(tracker.raw):
        paths = [real(path)]
        if op == "rename":
            paths.append(real(args[0]))
            renames.append((paths[0], paths[1]))
        if op in NS_OPS:
            nspaths.update(paths)
        for rp in paths:
            if rp not in seen:
                seen[rp] = {}
                order.append(rp)
        if op in ("read", "write", "mmap") or args[-1] >= 0:
            ok.update(paths)
        for slot, kind in _evidence(op, args):
            rp = paths[slot]
            first.setdefault(rp, kind)
            seen[rp].setdefault(kind, i)
            if kind == ACCESS and op in ("open", "stat", "exec"):
                seen[rp].setdefault(LOOK, i)
    # A path that only ever failed (ENOENT lookups) is not part of the tree,
    # unless it existed at the start; a rename keeps its target with its source.
    keep = {rp for rp in order if rp in ok or (snap is not None and (rp in snap or rp in snapdirs))}
    for src, dst in renames:
        if src in keep:
            keep.add(dst)

    table, ids, dropped, early = [], {}, {}, []
    prefix = root.rstrip(b"/") + b"/"
    for rp in order:
        if rp not in keep or fdtrack.ignored(rp):
            continue
        try:
            st = os.lstat(rp) if rp in tracker.nofollow else os.stat(rp)
        except OSError:
            st = None
        inside = rp == root or rp.startswith(prefix)
        if inside and snap is not None and (rp in snap or rp in snapdirs):
            is_dir = rp in snapdirs
        elif rp in tracker.dirs:
            is_dir = True
        elif rp in tracker.nonreg:
            continue  # device, fifo, socket...
        elif st is not None and not stat.S_ISREG(st.st_mode):
            if not stat.S_ISDIR(st.st_mode):
                if stat.S_ISLNK(st.st_mode) and rp in tracker.nofollow:
                    is_dir = False  # a symlink unlinked or renamed: a name, like a file
                else:
                    continue
            else:
                is_dir = True
        else:
            is_dir = False
        if is_dir and rp not in nspaths:
            continue  # a directory only opened or read: not part of the table (as in version 1)
        kind = first.get(rp)
        if inside and snap is not None:
            new = rp not in (snapdirs if is_dir else snap)
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
        elif inside and snap is not None:
            size = snap[rp]
        elif st is not None:
            size = st.st_size  # after the run: exact unless the run wrote it (documented)
        else:
            # Existed before the run, no size seen while it was there, and
            # gone after it: its size truly cannot be known.
            dropped.setdefault("size unknown", []).append(rp)
            continue
        if new:
            s = seen[rp]
            made = s.get(CREATE, len(tracker.raw))
            if s.get(LOOK, made) < made:
                early.append((rp, tracker.raw[s[LOOK]][1], True))
            elif s.get(ACCESS, made) < made:
                early.append((rp, tracker.raw[s[ACCESS]][1], False))
        ids[rp] = len(table)
        tpath = os.path.relpath(rp, root) if inside else rp  # the root itself is "."
        origin = ("newdir" if new else "dir") if is_dir else ("new" if new else "pre")
        table.append((size, origin, tpath))
    return table, ids, real, dropped, early


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
    snap, snapdirs = snapshot(root) if not args.no_snapshot else (None, None)
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
    if len(tracker.orphans) > 1:
        print("ppf-trace: warning: %d processes appeared without a traced fork (pids %s): "
              "their inherited fds are not recorded" % (
                  len(tracker.orphans) - 1, " ".join(map(str, tracker.orphans[1:6]))),
              file=sys.stderr)
    files, ids, real, dropped, early = build_files(tracker, root, snap, snapdirs, run_start - 10**9)
    times = correct_times(calls, cal)

    events = []
    ndropped = {}
    why = {}
    for reason, paths in dropped.items():
        for p in paths:
            why[p] = reason
    for c, op, path, a in tracker.raw:
        rp = real(path)
        fid = ids.get(rp)
        if op == "rename":
            nid = ids.get(real(a[0]))
            if fid is not None and nid is None:
                fid = None
                rp = real(a[0])
            a = (nid,) + tuple(a[1:])
        if fid is None:
            if rp in why:  # otherwise a failed-only lookup or a non-file: by design
                ndropped[why[rp]] = ndropped.get(why[rp], 0) + 1
            continue
        if files[fid][1] in ("dir", "newdir") and op not in NS_OPS:
            continue  # opens, stats, closes of directories are not events (as in version 1)
        start, dur = times[c.seq]
        events.append((start, dur, c.pid, op, fid, a))
    # Stable by corrected start, then original call order.
    events.sort(key=lambda e: e[0])

    reason = None
    if ndropped:
        reason = "; ".join("%d events of %d files: %s (e.g. %s)" % (
            n, len(dropped[r]), r, os.fsdecode(dropped[r][0])) for r, n in sorted(ndropped.items()))
        print("ppf-trace: warning: dropped %s" % reason, file=sys.stderr)
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

    corrected_end = max((s + d for s, d in times.values()), default=0)
    tail = max(last - max((c.ts + c.dur for c in calls), default=last), 0)
    meta += [("elapsed_ns", last - first),
             ("corrected_elapsed_ns", corrected_end + tail),
             ("untraced_elapsed_ns", untraced[0] if untraced else None),
             ("compute_ns", untraced[1] if untraced else None),
             ("traced_syscalls", len(calls)),
             ("strace_overhead_ns", cal["total"]),
             ("strace_dur_overhead_ns", cal["dur"]),
             ("strace_gap_overhead_ns", cal["gap"]),
             ("inherited_fd_calls", tracker.inherited_calls),
             ("dropped_events", sum(ndropped.values())),
             ("dropped_events_reason", reason)]
    fmt.write_trace(args.output, meta, files, events)
    print("ppf-trace: wrote %s: %d events, %d files, %d traced syscalls" % (
        args.output, len(events), len(files), len(calls)), file=sys.stderr)
    return 0 if rc == 0 else 1
