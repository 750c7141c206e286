"""strace overhead correction: corrected gaps shrink and never go negative."""
import os
import subprocess
import sys

from conftest import PPF_TRACE
from ppftrace import calibrate, record as rec, strace_log


def mkcall(ts, dur, pid, seq):
    c = strace_log.Call(ts, dur, pid, "read", [], 0, None, None)
    c.seq = seq
    return c


def test_correct_times_synthetic():
    cal = {"total": 30, "dur": 10, "gap": 20}
    # one process: calls of 15 ns with gaps 100, 5 (smaller than the overhead), 50
    calls = [mkcall(0, 15, 1, 0), mkcall(115, 15, 1, 1), mkcall(135, 15, 1, 2), mkcall(200, 15, 1, 3)]
    t = rec.correct_times(calls, cal)
    assert t[0] == (0, 5)
    assert t[1] == (5 + 80, 5)
    assert t[2] == (90 + 0, 5)      # gap 5 - 20 clamps to 0
    assert t[3] == (95 + 30, 5)


def test_calibration_measures_tracing():
    """The calibration saw the traced loop and measured a cost of tracing.

    (dur >= 0, gap >= 0 and total == dur + gap hold by construction in
    calibrate(), so they are not checked here.)  Each traced call stops the
    task twice and wakes strace twice: at least four context switches,
    well over a microsecond on any machine.
    """
    cal = calibrate.calibrate(2000)
    assert cal["n"] >= 1000, cal  # premise: the loop's calls were seen
    assert cal["total"] >= 1000, cal


def test_recorded_gaps(tmp_path):
    py = os.path.realpath(sys.executable)
    prog = "import os\nfor i in range(300): os.stat('f')\n"
    (tmp_path / "f").write_text("x")
    raw = tmp_path / "raw"
    out = tmp_path / "g.trace"
    subprocess.run([PPF_TRACE, "record", "-o", str(out), "--root", str(tmp_path), "--calib-calls",
                    "2000", "--keep-raw", str(raw), "--", py, "-c", prog], cwd=tmp_path, check=True,
                   capture_output=True)
    from ppftrace import fmt
    t = fmt.load_trace(str(out))
    m = t["meta"]
    assert m["strace_overhead_ns"] > 0
    assert m["corrected_elapsed_ns"] < m["elapsed_ns"]
    fid = [i for i, f in enumerate(t["files"]) if f[2] == b"f"][0]
    ev = [e for e in t["events"] if e[3] == "stat" and e[4] == fid]
    assert len(ev) == 300
    gaps = [b[0] - (a[0] + a[1]) for a, b in zip(ev, ev[1:])]
    calls, _, _ = strace_log.read_logs(str(raw / "log"))
    rawst = [c for c in calls if c.name == "newfstatat" and c.args[1:2] == [b'"f"']]
    assert len(rawst) == 300
    rawgaps = [b.ts - (a.ts + a.dur) for a, b in zip(rawst, rawst[1:])]
    assert all(g >= 0 for g in gaps)
    assert sum(gaps) < sum(rawgaps)
    assert all(g <= r for g, r in zip(gaps, rawgaps))


def test_correct_times_overlapping():
    """Calls of pid 2 during pid 1's long call: pid 1's next call is placed
    after its own call (gap 100 - 20), not after pid 2's calls with their
    corrections carried over (the global walk put it at 1040)."""
    cal = {"total": 30, "dur": 10, "gap": 20}
    calls = [mkcall(0, 1000, 1, 0), mkcall(100, 15, 2, 1), mkcall(200, 15, 2, 2),
             mkcall(1100, 15, 1, 3)]
    t = rec.correct_times(calls, cal)
    assert t[0] == (0, 990)
    assert t[1] == (100, 5)          # nothing had ended: as recorded from the first call
    assert t[2] == (105 + 65, 5)     # after its own call: gap 85 - 20
    assert t[3] == (990 + 80, 5)     # after its own long call: gap 100 - 20
