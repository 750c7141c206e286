"""Recorded think time, as ppf-replay defines it (docs/replay.md, "Think time";
replay/plan.c, plan_think), for anything that needs the total without
running the replay (the evaluation harness scales its spin rate by it).

Each event waits in the replay for the prefix of events that had all ended
when it started in the recording (need: the first earlier event still
running at its start) and for its own process's previous event. Its think
time is the gap from the later of those two ends to its start, 0 if
negative. For a serial trace that is the gap since the end of the previous
call of any process; for a parallel one, calls of other processes that were
still running do not count, so two processes' compute is not summed as if
it were one timeline.
"""
from typing import Dict, Iterable, List, Tuple

from .fmt import Event, Trace


def think_per_event(events: Iterable[Event]) -> List[int]:
    """Think time of every event, in trace order (events sorted by start, as
    the format guarantees)."""
    evs = list(events)
    ends = [e.start + e.dur for e in evs]
    out: List[int] = []
    own_end: Dict[int, int] = {}   # pid -> end of its previous event
    need = 0                       # first event still running (non-decreasing)
    prefix_end = 0                 # latest end among events [0, need)
    for i, e in enumerate(evs):
        while need < i and ends[need] <= e.start:
            prefix_end = max(prefix_end, ends[need])
            need += 1
        ready = max(prefix_end, own_end.get(e.pid, 0))
        out.append(max(e.start - ready, 0))
        own_end[e.pid] = ends[i]
    return out


def think_time(events: Iterable[Event]) -> int:
    """Total recorded think time in ns: ppf-replay's trace.think_recorded_ns."""
    return sum(think_per_event(events))


def think_and_compute(t: Trace) -> Tuple[int, int]:
    """(recorded think time, the untraced run's user+sys compute_ns or 0)."""
    compute = t["meta"].get("compute_ns", 0)
    return think_time(t["events"]), compute if isinstance(compute, int) else 0
