"""ppf-sim: scoring worked by hand, determinism, and refusal of bad input."""
import json
import os
import subprocess
from pathlib import Path
from typing import Any, Dict, List, Tuple

import pytest

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.environ.get("BUILD", os.path.join(TOP, "build"))
SIM = os.path.join(BUILD, "ppf-sim")
GLIMPSE = os.path.join(TOP, "eval", "workloads", "glimpse", "glimpse.trace.gz")


def write_trace(tmp_path: Path, files: List[str], name: str = "hand") -> str:
    """A trace whose only events are successful opens of `files` in order."""
    ids = {f: i for i, f in enumerate(sorted(set(files)))}
    lines = ["ppf-trace 1", "meta name %s" % name]
    lines += ["file %d 4096 pre %s" % (i, f) for f, i in sorted(ids.items(), key=lambda x: x[1])]
    t = 0
    for f in files:
        lines.append("%d 1000 1 open %d 0x0 3" % (t, ids[f]))
        t += 1000000  # 1 ms apart
    p = tmp_path / ("%s.trace" % name)
    p.write_text("\n".join(lines) + "\n")
    return str(p)


def sim(*args: str, check: bool = True) -> "subprocess.CompletedProcess[str]":
    r = subprocess.run([SIM, *args], capture_output=True, text=True)
    if check:
        assert r.returncode == 0, r.stderr
    return r


def rows(tmp_path: Path, *args: str) -> List[Dict[str, Any]]:
    out = tmp_path / "out.json"
    sim("--json", str(out), *args)
    results: List[Dict[str, Any]] = json.loads(out.read_text())["results"]
    return results


def test_last_successor_scoring_by_hand(tmp_path: Path) -> None:
    # A B A B A B, no training, window 1: predictions at events 2..5
    # (A->B, B->A, A->B, B->A); the last has no next event to come true.
    tr = write_trace(tmp_path, list("ABABAB"))
    [r] = rows(tmp_path, "-m", "last_successor", "--passes", "0", "--window", "1", tr)
    assert (r["events"], r["distinct_files"]) == (6, 2)
    assert (r["predictions"], r["correct"], r["wasted"]) == (4, 3, 1)
    assert r["covered"] == 3 and r["coverage"] == pytest.approx(0.5)
    assert r["lead_events_mean"] == pytest.approx(1.0)
    assert r["lead_ms_mean"] == pytest.approx(1.0)


def test_training_passes_help(tmp_path: Path) -> None:
    tr = write_trace(tmp_path, list("ABCDEFGH") * 8)
    cold = rows(tmp_path, "-m", "epcm", "-p", "16", "--passes", "0", tr)[0]
    warm = rows(tmp_path, "-m", "epcm", "-p", "16", "--passes", "3", tr)[0]
    assert cold["covered"] < warm["covered"]
    # After 3 passes EPCM knows the cycle: every open is predicted, from
    # well ahead; only predictions that would come true after the end of
    # the pass are wrong.
    # (The first event of the pass has no earlier event to be predicted at.)
    assert warm["covered"] == warm["events"] - 1
    assert warm["precision"] > 0.8
    assert warm["lead_events_mean"] > 8


def test_oracle_bounds_everything(tmp_path: Path) -> None:
    results = rows(tmp_path, "--sweep", "--sizes", "4,8", "--orders", "1,2", GLIMPSE)
    models = {r["model"] for r in results}
    assert models == {"last_successor", "pcm", "epcm", "oracle"}
    oracle = [r for r in results if r["model"] == "oracle"][0]
    assert oracle["precision"] == 1.0
    for r in results:
        assert r["coverage"] <= oracle["coverage"]
        assert r["events"] == oracle["events"]


def test_deterministic(tmp_path: Path) -> None:
    a = sim("-m", "pcm", GLIMPSE).stdout
    b = sim("-m", "pcm", GLIMPSE).stdout
    assert a == b and "pcm" in a


@pytest.mark.parametrize("args, message", [
    (["-p", "1"], "--partition-size 1: not a number in 2..4096"),
    (["-p", "-3"], "--partition-size needs a non-negative number"),
    (["-t", "0"], "--threshold 0: not a number in 1..100"),
    (["-t", "abc"], "--threshold abc: not a number"),
    (["-p", "8", "-o", "8"], "order must be below the partition size"),
    (["-m", "ppm"], "--model ppm: not last_successor, pcm, epcm or oracle"),
    (["-n", "99999999999"], "--max-nodes 99999999999: not a number"),
])
def test_bad_options_refused(args: List[str], message: str) -> None:
    r = sim(*args, GLIMPSE, check=False)
    assert r.returncode == 2
    assert message in r.stderr


def test_malformed_trace_names_the_line(tmp_path: Path) -> None:
    p = tmp_path / "bad.trace"
    p.write_text("ppf-trace 1\nfile 0 10 pre a\n0 5 1 open 7 0x0 3\n")
    r = sim(str(p), check=False)
    assert r.returncode == 1
    assert "bad.trace:3:" in r.stderr


def write_procs_trace(tmp_path: Path, events: List[Tuple[int, str]], name: str,
                      numbering: int = 1) -> str:
    """A trace of successful opens by several processes: events are
    (pid, path); file ids follow the paths' sorted order times `numbering`
    (so that two traces can number the same files differently)."""
    paths = sorted({p for _, p in events})
    order = paths if numbering == 1 else list(reversed(paths))
    ids = {f: i for i, f in enumerate(order)}
    lines = ["ppf-trace 1", "meta name %s" % name]
    lines += ["file %d 4096 pre %s" % (ids[f], f) for f in order]
    t = 0
    for pid, f in events:
        lines.append("%d 1000 %d open %d 0x0 3" % (t, pid, ids[f]))
        t += 1000000
    p = tmp_path / ("%s.trace" % name)
    p.write_text("\n".join(lines) + "\n")
    return str(p)


def interleaved(seed: int, rounds: int = 12) -> List[Tuple[int, str]]:
    """Two processes, each opening its own cycle of files, their opens
    interleaved at random (a different interleaving for each seed)."""
    import random
    rng = random.Random(seed)
    one = ["a%02d" % i for i in range(40)]
    two = ["b%02d" % i for i in range(40)]
    events = []
    for _ in range(rounds):
        i = j = 0
        while i < len(one) or j < len(two):
            if j == len(two) or (i < len(one) and rng.random() < 0.5):
                events.append((100, one[i]))
                i += 1
            else:
                events.append((200, two[j]))
                j += 1
    return events


def test_contexts_per_pid_keep_interleaved_processes_apart(tmp_path: Path) -> None:
    # Trained on two interleavings, measured on a third: as one stream
    # the order of the two processes' opens is new each time; per pid
    # each keeps its cycle.  One prediction per event, good for 4 events,
    # so that a model cannot cover both streams by naming many files.
    train = [write_procs_trace(tmp_path, interleaved(s), "train%d" % s) for s in (1, 2)]
    test = write_procs_trace(tmp_path, interleaved(3), "test")
    for model, gain in (("last_successor", 0.3), ("epcm", 0.1)):
        args = ["-m", model, "--passes", "2", "-P", "1", "-w", "4",
                "--train", train[0], "--train", train[1], test]
        [glob] = rows(tmp_path, "--contexts", "global", *args)
        [pid] = rows(tmp_path, "--contexts", "pid", *args)
        assert (glob["contexts"], pid["contexts"]) == ("global", "pid")
        assert pid["coverage"] > glob["coverage"] + gain, model
        assert pid["coverage"] > 0.9, model


def test_train_matches_files_by_path(tmp_path: Path) -> None:
    # The training run numbers its files the other way round: matched by
    # path, it teaches the cycle all the same.
    cycle = [(1, f) for f in "ABCDEFGH" * 6]
    train = write_procs_trace(tmp_path, cycle, "train", numbering=-1)
    test = write_procs_trace(tmp_path, cycle, "test")
    [cold] = rows(tmp_path, "-m", "epcm", "-p", "16", "--passes", "0", test)
    [warm] = rows(tmp_path, "-m", "epcm", "-p", "16", "--passes", "1", "--train", train, test)
    assert warm["covered"] == warm["events"] - 1
    assert warm["covered"] > cold["covered"]


def test_sweep_reports_both_context_modes(tmp_path: Path) -> None:
    results = rows(tmp_path, "--sweep", "--sizes", "4", "--orders", "1", GLIMPSE)
    epcm = {r["contexts"] for r in results if r["model"] == "epcm"}
    assert epcm == {"global", "pid"}


def test_bad_contexts_and_train_refused(tmp_path: Path) -> None:
    r = sim("--contexts", "thread", GLIMPSE, check=False)
    assert r.returncode == 2 and "--contexts thread: not global or pid" in r.stderr
    r = sim("--train", str(tmp_path / "missing.trace"), GLIMPSE, check=False)
    assert r.returncode == 1 and "missing.trace" in r.stderr
    r = sim("--interleave", "seven", GLIMPSE, check=False)
    assert r.returncode == 2 and "--interleave seven: not a number" in r.stderr


def test_interleave_runs_traces_at_once(tmp_path: Path) -> None:
    # Two programs recorded apart, run at once: a new interleaving each
    # pass.  As one stream last successor learns little; per pid (each
    # trace's processes kept apart) each program keeps its cycle.
    one = write_procs_trace(tmp_path, [(1, "a%02d" % i) for i in range(40)] * 6, "one")
    two = write_procs_trace(tmp_path, [(1, "b%02d" % i) for i in range(40)] * 6, "two")
    args = ["-m", "last_successor", "-P", "1", "-w", "4", "--interleave", "7", one, two]
    [glob] = rows(tmp_path, "--contexts", "global", *args)
    [pid] = rows(tmp_path, "--contexts", "pid", *args)
    assert glob["events"] == pid["events"] == 480
    assert glob["distinct_files"] == 80
    assert pid["coverage"] > glob["coverage"] + 0.3
    assert sim(*args).stdout == sim(*args).stdout
    assert sim(*args[:-4], "--interleave", "8", one, two).stdout != sim(*args).stdout
    r = sim("--interleave", "1", "--train", one, two, check=False)
    assert r.returncode == 2 and "no --train" in r.stderr
