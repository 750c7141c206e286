"""Measure what strace adds to each traced syscall.

Under strace every traced call stops the tracee twice (entry and exit) and
strace formats a line: that time is absent in the real run. Part of it lands
inside the duration strace reports, the rest in the gap before the next call.
We time N stat() calls untraced in this process and traced in a child, and
read both parts off the strace log itself.
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time
from typing import List, Tuple, TypedDict

from . import strace_log, strace_run


class Overhead(TypedDict):
    """strace's cost per traced call, ns: total = dur + gap."""
    total: int  # per call
    dur: int    # the part inside the duration strace reports
    gap: int    # the part in the gap before the next call


class Calibration(Overhead):
    """What calibrate() measured (Overhead plus the raw numbers behind it)."""
    untraced_loop: int     # one iteration of the stat loop, untraced
    untraced_syscall: int  # the stat call alone, untraced
    traced_step: int       # median start-to-start of traced stat calls
    traced_dur: int        # median traced stat duration
    n: int                 # traced stat calls seen


MIN_CALLS, MAX_CALLS = 100, 10_000_000  # a median needs some; more is minutes

_LOOP = "import os,sys\np=sys.argv[1]\nfor _ in range(int(sys.argv[2])): os.stat(p)\n"


def _untraced_per_call(path: str, n: int) -> Tuple[float, float]:
    """Per-iteration time of the stat loop, and of the same loop without the
    syscall (so the difference approximates the bare syscall cost)."""
    loops: List[float] = []
    empties: List[float] = []
    for _ in range(5):
        t = time.perf_counter_ns()
        for _ in range(n):
            os.stat(path)
        loop = (time.perf_counter_ns() - t) / n
        t = time.perf_counter_ns()
        for _ in range(n):
            len(path)
        empty = (time.perf_counter_ns() - t) / n
        loops.append(loop)
        empties.append(empty)
    best_loop, best_empty = min(loops), min(empties)
    return best_loop, max(best_loop - best_empty, 0.0)


def calibrate(n: int = 5000) -> Calibration:
    """Returns dict(total, dur, gap, untraced_loop, traced_step, traced_dur, n).
    Raises RuntimeError if the traced loop did not run or was not seen."""
    if not MIN_CALLS <= n <= MAX_CALLS:
        raise ValueError("calibration: %d stat calls, not in %d..%d" % (n, MIN_CALLS, MAX_CALLS))
    with tempfile.TemporaryDirectory(prefix="ppf-calib-") as d:
        target = os.path.join(d, "calib-target")
        open(target, "w").close()
        loop_ns, sys_ns = _untraced_per_call(target, n)
        prefix = os.path.join(d, "log")
        res = subprocess.run(strace_run.strace_argv(prefix)
                             + [sys.executable, "-c", _LOOP, target, str(n)],
                             stdin=subprocess.DEVNULL)
        if res.returncode != 0:
            raise RuntimeError("calibration: the traced stat loop failed (exit %d)"
                               % res.returncode)
        calls, _, _ = strace_log.read_logs(prefix)
    tb = target.encode()
    marks = [c for c in calls if c.name in ("newfstatat", "stat", "statx")
             and any(strace_log.string_arg(a) == tb for a in c.args[:2])]
    if len(marks) < n // 2:
        raise RuntimeError("calibration: only %d of %d stat calls seen" % (len(marks), n))
    steps = [b.ts - a.ts for a, b in zip(marks, marks[1:])]
    step = statistics.median(steps)
    tdur = statistics.median(c.dur for c in marks)
    total = max(step - loop_ns, 0.0)
    dur = min(max(tdur - sys_ns, 0.0), total)
    total, dur = int(round(total)), int(round(dur))
    return {"total": total, "dur": dur, "gap": total - dur,
            "untraced_loop": int(round(loop_ns)), "untraced_syscall": int(round(sys_ns)),
            "traced_step": int(step), "traced_dur": int(tdur), "n": len(marks)}


if __name__ == "__main__":
    print(calibrate(int(sys.argv[1]) if len(sys.argv) > 1 else 5000), file=sys.stderr)
