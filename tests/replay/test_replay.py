"""ppf-replay: build-tree, run, think time, hit/miss classification, bad input."""
import csv
import json
import os
import shutil
import subprocess
import time

import pytest

from conftest import (ANDREW, CHECK, PPF_TRACE, REPLAY, fs_type, is_root, replay, run_json,
                      write_trace)
from ppftrace import fmt, think

OPS = {"open": "opens", "exec": "execs", "read": "reads", "write": "writes", "mmap": "mmaps",
       "close": "closes", "stat": "stats", "unlink": "unlinks", "rename": "renames",
       "mkdir": "mkdirs", "rmdir": "rmdirs", "dup": "dups"}


def table_trace(tmp_path):
    files = [(0, "dir", "."),
             (10000, "pre", "a/b/data.bin"),
             (4096, "pre", "page.bin"),
             (1, "pre", "one byte"),
             (0, "pre", "empty"),
             (12345, "pre", "/opt/ppf-test/lib.so"),
             (0, "new", "a/out.o"),
             (0, "newdir", "gen"),
             (0, "dir", "d")]
    return write_trace(tmp_path / "t.trace", files, [])


# ---------------------------------------------------------------- build-tree

def test_build_tree_sizes_no_holes(tmp_path):
    t = table_trace(tmp_path)
    tree = tmp_path / "tree"
    replay("build-tree", t, tree)
    want = {"a/b/data.bin": 10000, "page.bin": 4096, "one byte": 1, "empty": 0,
            "_abs/opt/ppf-test/lib.so": 12345}
    for rel, size in want.items():
        st = os.stat(tree / rel)
        assert st.st_size == size, rel
        assert st.st_blocks * 512 >= size, "%s is sparse" % rel
        data = (tree / rel).read_bytes()
        assert b"\0" not in data, "%s has zero bytes (mkfs.ext4 -d would make holes)" % rel
    assert not (tree / "a/out.o").exists(), "a 'new' file must not be created"
    assert not (tree / "gen").exists(), "a 'newdir' must not be created"
    assert (tree / "d").is_dir()
    assert not os.path.exists("/opt/ppf-test"), "outside-root files go under DIR/_abs"


def test_build_tree_list_and_idempotent(tmp_path):
    t = table_trace(tmp_path)
    tree = tmp_path / "tree"
    res = replay("build-tree", "--list", t, tree)
    assert not tree.exists(), "--list creates nothing"
    assert "total: 5 files, 2 dirs, %d bytes" % (10000 + 4096 + 1 + 12345) in res.stdout
    assert str(tree / "_abs/opt/ppf-test/lib.so") in res.stdout
    replay("build-tree", t, tree)
    # a replay left outputs behind, and shrank an input
    (tree / "a/out.o").write_text("x")
    (tree / "gen").mkdir()
    (tree / "gen/f").write_text("y")
    os.truncate(tree / "page.bin", 10)
    res = replay("build-tree", t, tree)
    assert "1 written, 4 kept" in res.stdout, res.stdout
    assert "2 leftovers removed" in res.stdout, res.stdout
    assert os.path.getsize(tree / "page.bin") == 4096
    assert not (tree / "a/out.o").exists() and not (tree / "gen").exists()


def test_build_tree_sparse_file_rewritten(tmp_path):
    t = table_trace(tmp_path)
    tree = tmp_path / "tree"
    replay("build-tree", t, tree)
    p = tree / "a/b/data.bin"
    p.unlink()
    with open(p, "wb") as f:
        f.truncate(10000)   # right size, but a hole
    if os.stat(p).st_blocks != 0:
        pytest.skip("this file system does not make holes")
    replay("build-tree", t, tree)
    assert os.stat(p).st_blocks * 512 >= 10000


# ---------------------------------------------------------------- bad input

@pytest.mark.parametrize("cmd", ["build-tree", "run"])
def test_bad_trace_names_line(tmp_path, cmd):
    t = write_trace(tmp_path / "bad.trace", [(10, "pre", "x")],
                    ["0 10 1 open 0 0x0 3", "20 10 1 frobnicate 0 3 0"])
    (tmp_path / "tree").mkdir()
    res = replay(cmd, t, tmp_path / "tree", check=False)
    assert res.returncode == 1, res
    assert "bad.trace:4:" in res.stderr, res.stderr


def test_missing_trace(tmp_path):
    (tmp_path / "tree").mkdir()
    res = replay("run", tmp_path / "nope.trace", tmp_path / "tree", check=False)
    assert res.returncode == 1 and "nope.trace:0:" in res.stderr


# ---------------------------------------------------------------- run

def test_errors_counted_not_fatal(tmp_path):
    files = [(8192, "pre", "a"), (8192, "pre", "b"), (0, "new", "c")]
    ev = ["0 1000 7 open 0 0x0 3", "2000 1000 7 read 0 3 0 4096 4096", "4000 1000 7 close 0 3 0",
          "5000 1000 7 open 1 0x0 3", "7000 1000 7 read 1 3 0 4096 4096",
          "9000 1000 7 close 1 3 0",
          "10000 1000 7 unlink 2 0",          # cleanup of an output: expected ENOENT
          "11000 1000 7 stat 2 -2"]           # failed then, fails now: fine
    t = write_trace(tmp_path / "e.trace", files, ev)
    tree = tmp_path / "tree"
    replay("build-tree", t, tree)
    (tree / "b").unlink()
    res = replay("run", "--quiet", t, tree, check=False)
    assert res.returncode == 1 and "does not hold" in res.stderr and "/b:" in res.stderr, res
    d = run_json(t, tree, tmp_path, "--no-tree-check")
    assert d["errors"]["unexpected"] == 1, d["errors"]
    assert d["errors"]["first"][0]["op"] == "open"
    assert d["errors"]["first"][0]["errno"] == 2
    assert d["errors"]["no_fd"] == 2          # the read and close of b
    assert d["errors"]["expected"] == 1
    assert d["ops"]["read"]["count"] == 2 and d["ops"]["read"]["ok"] == 1


def check_counts(trace, d):
    out = subprocess.run([CHECK, str(trace)], capture_output=True, text=True, check=True).stdout
    counts = dict(line.split(None, 1) for line in out.splitlines() if " " in line)
    for op, key in OPS.items():
        want = int(counts.get(key, "0"))
        got = d["ops"].get(op, {"count": 0})["count"]
        assert got == want, (op, got, want)


def test_recorded_workload(tmp_path):
    if subprocess.run(["which", "strace"], capture_output=True).returncode:
        pytest.skip("strace is not installed")
    work = tmp_path / "work"
    work.mkdir()
    (work / "in.txt").write_text("hello\n" * 5000)
    (work / "sub").mkdir()
    (work / "sub" / "x.txt").write_text("x" * 10000)
    trace = tmp_path / "w.trace.gz"
    cmd = ("cat in.txt sub/x.txt > out.txt; mkdir d; mv out.txt d/o.txt; "
           "cat d/o.txt > /dev/null; ls -l sub > /dev/null; rm d/o.txt; rmdir d")
    subprocess.run([PPF_TRACE, "record", "-o", str(trace), "--root", str(work), "--", "sh",
                    "-c", cmd], cwd=work, check=True, capture_output=True)
    tree = tmp_path / "tree"
    replay("build-tree", trace, tree)
    d = run_json(trace, tree, tmp_path, "--think=sleep")
    assert d["errors"]["unexpected"] == 0, d["errors"]
    assert d["errors"]["unexpected_successes"] == 0, d["errors"]
    assert d["errors"]["no_fd"] == 0, d["errors"]
    check_counts(trace, d)
    assert d["ops"]["rename"]["ok"] == 1 and d["ops"]["mkdir"]["ok"] == 1
    assert d["ops"]["exec"]["count"] >= 4          # sh, cat, cat, mv, ...
    assert not (tree / "d").exists(), "the replay removed what it created"
    assert d["read"]["hits"] + d["read"]["partial"] + d["read"]["misses"] == \
        d["ops"]["read"]["count"] - d["ops"]["read"]["skipped"]


def test_andrew_replay(tmp_path):
    tree = tmp_path / "tree"
    replay("build-tree", ANDREW, tree)
    d = run_json(ANDREW, tree, tmp_path, "--think=sleep", "--no-classify")
    assert d["errors"]["unexpected"] == 0, d["errors"]["first"]
    assert d["errors"]["unexpected_successes"] == 0, d["errors"]["first"]
    assert d["errors"]["no_fd"] == 0
    # phase 0's rm -rf of tree/ and tmp/ finds nothing on a fresh tree
    assert d["errors"]["expected"] == d["ops"]["unlink"]["expected_errors"] + \
        d["ops"]["rmdir"]["expected_errors"] > 0
    check_counts(ANDREW, d)
    assert d["trace"]["pids"] == 173 and d["trace"]["overlapping_calls"] == 0
    # a version 2 trace: no dup events, so ranlib's and ld's dup'ed archive fds are
    # still opened on demand (docs/replay.md), as before version 3
    assert d["fds"] == {"descriptions": 2920, "dups": 0, "inherited_uses": 7,
                        "opened_on_demand": 15}
    # the harness's think time (ppftrace.think) is the replay's
    assert d["trace"]["think_recorded_ns"] == think.think_time(fmt.load_trace(ANDREW)["events"])
    # a second run starts from what the first left: its cleanup now succeeds
    d2 = run_json(ANDREW, tree, tmp_path, "--think=sleep", "--no-classify", name="r2.json")
    assert d2["errors"]["unexpected"] == 0 and d2["errors"]["expected"] == 0


# ---------------------------------------------------------------- think time

GAP = 50_000_000
RUNS = 3  # replays per think-time check (test_think_time)


def gap_trace(tmp_path):
    files = [(65536, "pre", "f")]
    ev = ["0 1000 9 open 0 0x0 3",
          "2000 1000 9 read 0 3 0 4096 4096",
          "%d 1000 9 read 0 3 4096 4096 4096" % (3000 + GAP),
          "%d 1000 9 close 0 3 0" % (4000 + GAP)]
    t = write_trace(tmp_path / "g.trace", files, ev)
    replay("build-tree", t, tmp_path / "tree")
    return t


@pytest.mark.parametrize("mode", ["sleep", "spin"])
def test_think_time(tmp_path, mode):
    """The recorded think time is replayed, measured over RUNS replays.

    The host's scheduler only ever adds to a replay's time (a preempted
    sleeper wakes late, a preempted spinner or the calls behind it take
    longer), so what the replay itself does is judged on the run it
    disturbed least: the shortest.  A systematic fault (a sleep taken twice,
    a spin not calibrated) shows in every run, so in the shortest too.  The
    spin's calibration is itself timed on the host and can come out short
    when the host slowed the 100 ms calibration (seen once in a quiet make
    test on a shared VM host: 32 ms for 50): its bounds hold for the median.
    """
    t = gap_trace(tmp_path)
    runs = [run_json(t, tmp_path / "tree", tmp_path, "--think=" + mode) for _ in range(RUNS)]
    for d in runs:
        assert d["trace"]["think_recorded_ns"] == GAP + 1000   # 1000 before the first read
        assert d["calibration"]["iterations_per_us"] > 0
        assert d["think_ns"] <= d["elapsed_ns"], d
    thinks = sorted(d["think_ns"] for d in runs)
    if mode == "sleep":
        # a sleep is never short of its time (timer slack aside), in any run
        assert thinks[0] >= 0.98 * GAP, thinks
        assert thinks[0] <= 1.3 * GAP, thinks
    else:
        assert 0.7 * GAP <= thinks[RUNS // 2] <= 3 * GAP, thinks
    # elapsed is think plus four calls on a cached 64 KiB file
    calls = min(d["elapsed_ns"] - d["think_ns"] for d in runs)
    assert calls <= 20_000_000, [(d["think_ns"], d["elapsed_ns"]) for d in runs]


def test_order_follows_recording_across_pids(tmp_path):
    """Two pids, serial in the recording (parent, child, parent): replayed in that order,
    each pid's think time measured from the previous call of either."""
    files = [(8192, "pre", "f"), (8192, "pre", "g")]
    ev = ["0 1000 10 open 0 0x0 3",
          "10000000 1000 11 open 1 0x0 3",
          "10002000 1000 11 read 1 3 0 100 100",
          "20000000 1000 11 close 1 3 0",
          "30000000 1000 10 read 0 3 0 100 100",
          "30002000 1000 10 close 0 3 0"]
    t = write_trace(tmp_path / "o.trace", files, ev)
    replay("build-tree", t, tmp_path / "tree")
    evf = tmp_path / "ev.tsv"
    replay("run", "--quiet", "--think=sleep", "--events", evf, t, tmp_path / "tree")
    rows = list(csv.DictReader(open(evf), delimiter="\t"))
    ready = [int(r["ready_ns"]) for r in rows]
    assert ready == sorted(ready)
    assert [int(r["think_ns"]) for r in rows] == [0, 9999000, 1000, 9997000, 9999000, 1000]
    assert all(r["outcome"] == "ok" for r in rows)


# ---------------------------------------------------------------- hit / miss

def hitmiss_trace(tmp_path):
    files = [(4 << 20, "pre", "big")]
    ev = ["0 1000 5 open 0 0x0 3",
          "2000 1000 5 read 0 3 0 16384 16384",        # cold: miss
          "4000 1000 5 read 0 3 0 16384 16384",        # same range again: hit
          "6000 1000 5 read 0 3 3145728 4096 4096",    # far beyond readahead: miss
          "8000 1000 5 close 0 3 0"]
    t = write_trace(tmp_path / "h.trace", files, ev)
    replay("build-tree", t, tmp_path / "tree")
    return t


def classes(tmp_path, t, *opts):
    evf = tmp_path / "ev.tsv"
    replay("run", "--quiet", "--events", evf, *opts, t, tmp_path / "tree")
    return [r["class"] for r in csv.DictReader(open(evf), delimiter="\t") if r["op"] == "read"]


def test_hit_miss_cold_then_hot(tmp_path):
    if not is_root():
        pytest.skip("needs root (drop_caches)")
    if fs_type(tmp_path) in ("tmpfs", "ramfs"):
        pytest.skip("%s is on tmpfs: drop_caches cannot empty it" % tmp_path)
    t = hitmiss_trace(tmp_path)
    assert classes(tmp_path, t, "--cold") == ["miss", "hit", "miss"]
    assert classes(tmp_path, t) == ["hit", "hit", "hit"]


def test_probes_in_think_classify_alike(tmp_path):
    """--probes=think probes at the end of the think time: the same classes."""
    if not is_root():
        pytest.skip("needs root (drop_caches)")
    if fs_type(tmp_path) in ("tmpfs", "ramfs"):
        pytest.skip("%s is on tmpfs: drop_caches cannot empty it" % tmp_path)
    t = hitmiss_trace(tmp_path)
    assert classes(tmp_path, t, "--cold", "--probes=think") == ["miss", "hit", "miss"]
    assert classes(tmp_path, t, "--probes=think") == ["hit", "hit", "hit"]


def probe_trace(tmp_path, think_ns, reads=400):
    """@reads reads of a 4 MiB cached range, each after @think_ns of think."""
    files = [(4 << 20, "pre", "big")]
    ev = ["0 1000 5 open 0 0x0 3"]
    t = 2000
    for _ in range(reads):
        t += think_ns
        ev.append("%d 1000 5 read 0 3 0 4194304 4194304" % t)
        t += 1000
    ev.append("%d 1000 5 close 0 3 0" % (t + 1000))
    tr = write_trace(tmp_path / "probe.trace", files, ev)
    replay("build-tree", tr, tmp_path / "tree")
    return tr


def test_probes_in_think_leave_the_timed_part(tmp_path):
    """With think enough to hold them, the probes' time moves out of the
    timed part into the think they replace; with no think, it stays."""
    t = probe_trace(tmp_path, 1000000)
    timed = run_json(t, tmp_path / "tree", tmp_path, "--spin-rate=1000", name="t.json")
    think = run_json(t, tmp_path / "tree", tmp_path, "--spin-rate=1000", "--probes=think",
                     name="k.json")
    assert timed["probes"] == "timed" and think["probes"] == "think"
    # the premise: the probes of 400 cached 4 MiB ranges take measurable time
    assert timed["probe_ns"] > 4000000, timed["probe_ns"]
    assert timed["probe_hidden_ns"] == 0
    assert think["probe_hidden_ns"] > 0
    # the first probe has no estimate and stays timed, and a probe dearer
    # than twice its estimate leaks the excess; the rest fit their 1 ms.  The
    # timed part was 3.0-11.7 % of the hidden one over 16 runs here, 4.1-16.9 %
    # over 8 with both cores busy (100 reads: 7-23 % here, 27.5 % once in CI,
    # as the leak is a few probes' worth).  A third keeps twice that margin.
    assert think["probe_ns"] < think["probe_hidden_ns"] / 3, think
    (tmp_path / "z").mkdir()
    t0 = probe_trace(tmp_path / "z", 0, reads=100)
    zero = run_json(t0, tmp_path / "z" / "tree", tmp_path, "--spin-rate=1000",
                    "--probes=think", name="z.json")
    assert zero["probe_hidden_ns"] == 0 and zero["probe_ns"] > 0


def test_probes_in_think_class_a_mapping_by_presence(tmp_path):
    """A mapping whose pages are all cached is a hit, probed or not by
    mincore; one whose pages are all gone, a miss (the cold case: root)."""
    files = [(1 << 20, "pre", "lib")]
    ev = ["0 1000 5 open 0 0x0 3",
          "1000000 1000 5 mmap 0 3 0 1048576 0x1",
          "2000000 1000 5 close 0 3 0"]
    t = write_trace(tmp_path / "m.trace", files, ev)
    replay("build-tree", t, tmp_path / "tree")
    replay("run", "--quiet", t, tmp_path / "tree")          # cached
    for opts in ((), ("--probes=think",)):
        d = run_json(t, tmp_path / "tree", tmp_path, "--spin-rate=1000", *opts)
        assert d["mmap"]["hits"] == 1 and d["mmap"]["misses"] == 0, (opts, d["mmap"])
    if is_root() and fs_type(tmp_path) not in ("tmpfs", "ramfs"):
        d = run_json(t, tmp_path / "tree", tmp_path, "--spin-rate=1000", "--cold",
                     "--probes=think")
        assert d["mmap"]["misses"] == 1, d["mmap"]


def test_probes_in_think_need_spin(tmp_path):
    t = gap_trace(tmp_path)
    res = replay("run", "--think=sleep", "--probes=think", t, tmp_path / "tree", check=False)
    assert res.returncode == 2 and "--probes=think needs --think=spin" in res.stderr
    res = replay("run", "--probes=later", t, tmp_path / "tree", check=False)
    assert res.returncode == 2 and "--probes=later: not timed or think" in res.stderr


def test_partial_hit(tmp_path):
    if not is_root():
        pytest.skip("needs root (drop_caches)")
    if fs_type(tmp_path) in ("tmpfs", "ramfs"):
        pytest.skip("%s is on tmpfs" % tmp_path)
    files = [(4 << 20, "pre", "big")]
    ev = ["0 1000 5 open 0 0x0 3",
          "2000 1000 5 read 0 3 2097152 4096 4096",     # one page in the middle
          "4000 1000 5 read 0 3 1048576 2097152 2097152",  # a range around it: partial
          "8000 1000 5 close 0 3 0"]
    t = write_trace(tmp_path / "p.trace", files, ev)
    replay("build-tree", t, tmp_path / "tree")
    got = classes(tmp_path, t, "--cold")
    assert got == ["miss", "partial"], got


def test_cold_needs_root(tmp_path):
    t = gap_trace(tmp_path)
    if is_root():
        cmd = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
        if subprocess.run(["which", "setpriv"], capture_output=True).returncode:
            pytest.skip("setpriv not available")
        os.chmod(tmp_path, 0o755)
        for p in (t, tmp_path / "tree"):
            os.chmod(p, 0o755)
        cmd += [REPLAY]
    else:
        cmd = [REPLAY]
    res = subprocess.run(cmd + ["run", "--cold", str(t), str(tmp_path / "tree")],
                         capture_output=True, text=True)
    assert res.returncode == 1 and "--cold needs root" in res.stderr, res


def test_redirected_fd_opened_on_demand(tmp_path):
    """sh: open out fd 3, dup2(3, 1), close 3, exec cat; cat writes to fd 1 (the dup2 is not
    an event), its first call failing in the recording (copy_file_range, EBADF)."""
    files = [(300000, "pre", "src"), (0, "new", "out/idx")]
    ev = ["0 1000 20 open 1 0x441 3",
          "2000 1000 20 close 1 3 0",
          "3000 1000 20 open 0 0x0 3",
          "5000 1000 20 read 0 3 0 9223372035781033984 -9",
          "5000 1000 20 write 1 1 0 9223372035781033984 -9",
          "7000 1000 20 read 0 3 0 131072 131072",
          "9000 1000 20 write 1 1 0 131072 131072",
          "11000 1000 20 read 0 3 131072 262144 168928",
          "13000 1000 20 write 1 1 131072 168928 168928",
          "15000 1000 20 close 0 3 0",
          "16000 1000 20 close 1 1 0"]
    t = write_trace(tmp_path / "r.trace", files, ev)
    replay("build-tree", t, tmp_path / "tree")
    d = run_json(t, tmp_path / "tree", tmp_path)
    e = d["errors"]
    assert (e["unexpected"], e["no_fd"], e["unexpected_successes"], e["skipped"]) == (0, 0, 0, 2), e
    assert d["fds"]["opened_on_demand"] == 1
    assert os.path.getsize(tmp_path / "tree/out/idx") == 300000
    assert d["bytes"]["read"] == 300000 and d["bytes"]["written"] == 300000


def test_fixed_spin_rate(tmp_path):
    t = gap_trace(tmp_path)
    d = run_json(t, tmp_path / "tree", tmp_path, "--spin-rate=1000")
    assert d["calibration"]["used_iterations_per_us"] == 1000.0
    assert d["calibration"]["iterations_per_us"] > 0


def test_drop_mark(tmp_path):
    """--drop-mark FILE appears when the timed part starts; a mark that cannot
    be made stops the run with a message naming it, before any replayed call."""
    t = gap_trace(tmp_path)
    mark = tmp_path / "started"
    run_json(t, tmp_path / "tree", tmp_path, "--spin-rate=1000", "--drop-mark", mark)
    assert mark.is_file() and mark.stat().st_size == 0
    bad = tmp_path / "no-such-dir" / "started"
    res = replay("run", "--quiet", "--spin-rate=1000", "--json", tmp_path / "bad.json",
                 "--drop-mark", bad, t, tmp_path / "tree", check=False)
    assert res.returncode == 1
    assert "--drop-mark %s" % bad in res.stderr
    assert not (tmp_path / "bad.json").exists()


def test_phase_before_the_timed_part(tmp_path):
    """--phase-us=N sleeps N us before the timed part, not in it; a value
    out of 0..1000000 is refused before anything runs."""
    t = gap_trace(tmp_path)
    base = run_json(t, tmp_path / "tree", tmp_path, "--spin-rate=1000")
    start = time.monotonic()
    d = run_json(t, tmp_path / "tree", tmp_path, "--spin-rate=1000", "--phase-us=400000",
                 name="p.json")
    assert time.monotonic() - start >= 0.4
    assert d["elapsed_ns"] < base["elapsed_ns"] + 200_000_000, (base["elapsed_ns"],
                                                                d["elapsed_ns"])
    for bad in ("--phase-us=-1", "--phase-us=1000001", "--phase-us=1ms"):
        res = replay("run", "--quiet", bad, t, tmp_path / "tree", check=False)
        assert res.returncode == 2 and bad in res.stderr, res.stderr


def meminfo_kb(key):
    for line in open("/proc/meminfo"):
        if line.startswith(key + ":"):
            return int(line.split()[1])
    raise AssertionError("no %s in /proc/meminfo" % key)


def test_a_hot_run_starts_with_nothing_dirty(tmp_path):
    """Every run syncs before its timed part (hot runs too): an earlier run's
    writeback is not timed in the next.  --no-sync leaves it; --cold syncs
    anyway, so the two are refused together."""
    if fs_type(tmp_path) in ("tmpfs", "ramfs"):
        pytest.skip("%s is on tmpfs: its pages are never dirty for writeback" % tmp_path)
    t = gap_trace(tmp_path)
    before = meminfo_kb("Dirty")
    with open(tmp_path / "left-dirty", "wb") as f:
        f.write(b"x" * (64 << 20))
    dirty = meminfo_kb("Dirty")
    assert dirty - before >= 32 << 10, "premise: 64 MiB written left at least 32 MiB dirty"
    d = run_json(t, tmp_path / "tree", tmp_path, "--spin-rate=1000")
    assert d["options"]["synced"] is True
    assert meminfo_kb("Dirty") < dirty - (32 << 10), "the run did not write back what was dirty"
    d = run_json(t, tmp_path / "tree", tmp_path, "--spin-rate=1000", "--no-sync")
    assert d["options"]["synced"] is False
    res = replay("run", "--quiet", "--cold", "--no-sync", t, tmp_path / "tree", check=False)
    assert res.returncode == 2 and "not with --no-sync" in res.stderr


def test_redirected_fd_version3_is_a_dup(tmp_path):
    """The same shell redirection recorded by a version 3 recorder: the dup2 is
    an event, replayed as a real dup; nothing is opened on demand."""
    files = [(300000, "pre", "src"), (0, "new", "out/idx")]
    ev = ["0 1000 20 open 1 0x441 3",
          "1000 500 20 dup 1 3 0x0 1",
          "2000 1000 20 close 1 3 0",
          "3000 1000 20 open 0 0x0 3",
          "7000 1000 20 read 0 3 0 131072 131072",
          "9000 1000 20 write 1 1 0 131072 131072",
          "15000 1000 20 close 0 3 0",
          "16000 1000 20 close 1 1 0"]
    t = write_trace(tmp_path / "r3.trace", files, ev, version=3)
    replay("build-tree", t, tmp_path / "tree")
    d = run_json(t, tmp_path / "tree", tmp_path)
    e = d["errors"]
    assert (e["unexpected"], e["no_fd"], e["unexpected_successes"]) == (0, 0, 0), e
    assert d["fds"] == {"descriptions": 2, "dups": 1, "inherited_uses": 0,
                        "opened_on_demand": 0}
    assert d["ops"]["dup"]["ok"] == 1
    assert os.path.getsize(tmp_path / "tree/out/idx") == 131072


def two_linkers(version):
    """Two processes (pids 31, 32, overlapping) each open the archive, dup the
    fd to 6, close the original and read through fd 6; pid 32 starts first."""
    dup = version >= 3
    ev = ["0 1000 32 open 0 0x80000 5",
          "1000 1000 31 open 0 0x80000 5"]
    ev += ["2000 100 31 dup 0 5 0x0 6", "2100 100 32 dup 0 5 0x0 6"] if dup else []
    ev += ["3000 100 31 close 0 5 0",
           "3100 100 32 close 0 5 0",
           "4000 3000000 31 read 0 6 0 4096 4096",      # long: 32's calls overlap it
           "4100 1000 32 read 0 6 4096 4096 4096",
           "6000 1000 32 close 0 6 0",
           "3005000 1000 31 read 0 6 8192 4096 4096",
           "3007000 1000 31 close 0 6 0"]
    return [(65536, "pre", "lib.a")], ev


@pytest.mark.parametrize("version", [2, 3])
def test_fd_of_another_process_not_attached(tmp_path, version):
    """An fd a process never opened is not attached to the description another,
    overlapping process made with that number (which closed it while the other
    still read: no_fd): pid 32 started before pid 31's fd 6 existed, so it
    cannot have inherited it."""
    files, ev = two_linkers(version)
    t = write_trace(tmp_path / "l.trace", files, ev, version=version)
    replay("build-tree", t, tmp_path / "tree")
    d = run_json(t, tmp_path / "tree", tmp_path, "--think=sleep")
    e = d["errors"]
    assert (e["unexpected"], e["no_fd"], e["unexpected_successes"]) == (0, 0, 0), e
    assert d["fds"]["inherited_uses"] == 0
    if version >= 3:
        assert d["fds"]["opened_on_demand"] == 0 and d["fds"]["dups"] == 2
    else:
        assert d["fds"]["opened_on_demand"] == 2    # one per process, as before version 3
    assert d["trace"]["overlapping_calls"] == d["trace"]["overlapping_calls_kept"] > 0


def test_open_waits_for_its_creator_only(tmp_path):
    """Pid 41's long read overlaps pids 42 and 43. 42's open, read and close may
    overlap it (an open no longer waits for every earlier event); 43's open of
    the file 42 created waits for that creation (its dep), and its creation of
    a file in the directory 42 made waits for that mkdir, nothing else."""
    files = [(1 << 20, "pre", "big"), (8192, "pre", "in"), (0, "new", "made"),
             (0, "newdir", "gen"), (0, "new", "gen/x")]
    ev = ["0 20000000 41 read 0 0 0 1048576 1048576",
          "1000 1000 42 open 2 0x241 3",
          "3000 1000 42 write 2 3 0 100 100",
          "5000 1000 42 close 2 3 0",
          "7000 1000 43 open 2 0x0 3",
          "9000 1000 43 read 2 3 0 100 100",
          "11000 1000 43 close 2 3 0",
          "12000 1000 42 open 1 0x0 4",
          "14000 1000 42 read 1 4 0 8192 8192",
          "16000 1000 42 close 1 4 0",
          "17000 1000 42 mkdir 3 0",
          "19000 1000 43 open 4 0x241 3",
          "21000 1000 43 close 4 3 0"]
    t = write_trace(tmp_path / "c.trace", files, ev)
    replay("build-tree", t, tmp_path / "tree")
    # (pid 41's fd 0 never opened in the trace: opened on demand)
    d = run_json(t, tmp_path / "tree", tmp_path, "--think=sleep")
    e = d["errors"]
    assert (e["unexpected"], e["no_fd"], e["unexpected_successes"]) == (0, 0, 0), e
    tr = d["trace"]
    assert tr["overlapping_calls"] == 12 and tr["overlapping_calls_kept"] == 12
    assert tr["dependencies"] == 2       # 43's opens on 42's creating open and mkdir
    assert d["ops"]["read"]["count"] == 3 and d["bytes"]["read"] == 1048576 + 100 + 8192


def test_removal_waits_for_an_open_it_overlapped(tmp_path):
    """Pid 42 makes a file, pid 43 opens and reads it, pid 42 removes it; the
    unlink is recorded as starting while 43's open was still running (how
    strace's timestamps can come out under load). The unlink waits for that
    open (its dep), so the open finds the file and the read has its fd."""
    files = [(0, "new", "tmpf")]
    ev = ["0 1000 42 open 0 0x241 3",
          "2000 1000 42 write 0 3 0 100 100",
          "4000 1000 42 close 0 3 0",
          "6000 3000 43 open 0 0x0 3",
          "7000 500 42 unlink 0 0",
          "10000 1000 43 read 0 3 0 100 100",
          "12000 1000 43 close 0 3 0"]
    t = write_trace(tmp_path / "u.trace", files, ev)
    replay("build-tree", t, tmp_path / "tree")
    for _ in range(5):
        d = run_json(t, tmp_path / "tree", tmp_path, "--think=sleep")
        e = d["errors"]
        assert (e["unexpected"], e["no_fd"], e["unexpected_successes"]) == (0, 0, 0), e
        assert d["trace"]["dependencies"] == 1      # the unlink on 43's open
        assert d["ops"]["read"]["count"] == 1 and d["bytes"]["read"] == 100


def c_project(root):
    """A small C project: eight objects in an archive (ar, ranlib: they dup the
    archive's fd) and a program linked against it."""
    root.mkdir()
    for i in range(1, 9):
        (root / ("m%d.c" % i)).write_text(
            "#include <stdio.h>\nint f%d(int x) { char b[32]; return snprintf(b, sizeof b, "
            "\"%%d\", x * %d); }\n" % (i, i))
    (root / "main.c").write_text(
        "".join("int f%d(int);\n" % i for i in range(1, 9)) +
        "int main(void) { return (%s) == 0; }\n" % " + ".join("f%d(%d)" % (i, i)
                                                             for i in range(1, 9)))
    objs = " ".join("m%d.o" % i for i in range(1, 9))
    (root / "Makefile").write_text(
        "prog: main.o libm8.a\n\tgcc -o $@ main.o -L. -lm8\n"
        "libm8.a: %s\n\tar rc $@ %s\n\tranlib $@\n"
        "%%.o: %%.c\n\tgcc -O1 -c -o $@ $<\n"
        "clean:\n\trm -f *.o libm8.a prog\n" % (objs, objs))


def test_recorded_parallel_build(tmp_path):
    """make -j2 of a real C project recorded with ppf-trace (--reset 'make
    clean' before each run): the archive's dups are events, the replay opens
    nothing on demand, every recorded overlap that is not a dependency can
    overlap, and the harness's think time is the replay's."""
    for tool in ("strace", "gcc", "make", "ar", "ranlib"):
        if shutil.which(tool) is None:
            pytest.skip("%s is not installed" % tool)
    work = tmp_path / "proj"
    c_project(work)
    trace = tmp_path / "par.trace.gz"
    res = subprocess.run([PPF_TRACE, "record", "-o", str(trace), "--root", str(work),
                          "--calib-calls", "2000", "--untraced-run", "--reset", "make -s clean",
                          "--", "make", "-s", "-j2"], cwd=work, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert "did not start from" not in res.stderr and "removed by the traced run" not in res.stderr
    assert res.stderr.count("ppf-trace: reset before the") == 2
    t = fmt.load_trace(str(trace))
    assert t["version"] == 3
    assert sum(1 for e in t["events"] if e.op == "dup") > 0
    tree = tmp_path / "tree"
    replay("build-tree", trace, tree)
    d = run_json(trace, tree, tmp_path, "--think=sleep")
    e = d["errors"]
    assert (e["unexpected"], e["no_fd"], e["unexpected_successes"]) == (0, 0, 0), e["first"]
    assert d["fds"]["opened_on_demand"] == 0 and d["fds"]["dups"] > 0
    check_counts(trace, d)
    tr = d["trace"]
    assert tr["overlapping_calls"] > 0
    assert tr["overlapping_calls_kept"] >= tr["overlapping_calls"] - tr["dependencies"]
    assert tr["think_recorded_ns"] == think.think_time(t["events"])
    # the same recording read as version 2 (dups left out): today's on-demand opens
    v2 = tmp_path / "par-v2.trace"
    with open(v2, "w") as f:
        lines = subprocess.run(["zcat", str(trace)], capture_output=True, text=True,
                               check=True).stdout.splitlines()
        f.write("\n".join(["ppf-trace 2"] + [ln for ln in lines[1:] if " dup " not in ln]) + "\n")
    d2 = run_json(v2, tree, tmp_path, "--think=sleep", name="v2.json")
    assert d2["fds"]["opened_on_demand"] > 0 and d2["fds"]["dups"] == 0
    assert (d2["errors"]["unexpected"], d2["errors"]["no_fd"]) == (0, 0), d2["errors"]["first"]
