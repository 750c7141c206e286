"""Record real commands with ppf-trace, parse with the C checker, compare."""
import os
import shutil
import subprocess
import sys

import pytest

from conftest import PPF_TRACE, HERE
from ppftrace import fmt

PY = os.path.realpath(sys.executable)  # not a pyenv shim script


def record(tmp_path, argv, out="t.trace.gz", extra=()):
    res = subprocess.run([PPF_TRACE, "record", "-o", str(tmp_path / out), "--root", str(tmp_path),
                          "--name", "test", "--calib-calls", "2000", *extra, "--", *argv],
                         cwd=tmp_path, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    return fmt.load_trace(str(tmp_path / out))


@pytest.fixture
def workdir(tmp_path):
    (tmp_path / "data.bin").write_bytes(bytes(range(256)) * 32)  # 8192 bytes
    (tmp_path / "out dir").mkdir()
    return tmp_path


def test_offsets(workdir, check_bin):
    shutil.copy(os.path.join(HERE, "prog_offsets.py"), workdir / "prog.py")
    t = record(workdir, [PY, "prog.py"])
    files = {f[2]: (i, f) for i, f in enumerate(t["files"])}
    did, dfile = files[b"data.bin"]
    assert dfile == (8192, False, b"data.bin", False)
    oid, ofile = files[b"out dir/new file.bin"]
    assert ofile == (0, True, b"out dir/new file.bin", False)
    assert files[b"prog.py"][1][1] is False
    # absolute paths mark files outside the root
    assert any(p.startswith(b"/") and p.endswith(b"libc.so.6") for p in files)

    reads = [(e[5][1], e[5][2], e[5][3]) for e in t["events"] if e[3] == "read" and e[4] == did]
    assert reads == [(0, 100, 100), (1000, 50, 50), (5000, 10, 10), (1050, 20, 20),
                     (1070, 30, 30), (1100, 40, 40), (1140, 1, 1), (8100, 200, 92)]
    pids = {e[2] for e in t["events"] if e[3] == "read" and e[4] == did}
    assert len(pids) == 2  # the forked child's read is its own process
    mm = [e[5] for e in t["events"] if e[3] == "mmap" and e[4] == did]
    assert [(a[1], a[2], a[3]) for a in mm] == [(4096, 4096, 0x1)]
    writes = [e[5] for e in t["events"] if e[3] == "write" and e[4] == oid]
    assert [(a[1], a[2], a[3]) for a in writes] == [(0, 300, 300)]
    opens = [e for e in t["events"] if e[3] == "open" and e[4] == oid]
    assert opens and opens[0][5][0] & os.O_CREAT
    assert any(e[3] == "exec" for e in t["events"])

    c = subprocess.run([check_bin, str(workdir / "t.trace.gz")], capture_output=True, text=True, check=True)
    py = subprocess.run([PPF_TRACE, "info", str(workdir / "t.trace.gz")], capture_output=True,
                        text=True, check=True)
    assert c.stdout == py.stdout


def test_shell_cat(workdir, check_bin):
    for i in range(3):
        (workdir / ("in %d.txt" % i)).write_text("line\n" * (i + 1) * 100)
    t = record(workdir, ["sh", "-c", 'cat in*.txt > "all.txt"; cat all.txt >/dev/null'],
               out="sh.trace", extra=["--untraced-run"])
    m = t["meta"]
    assert m["name"] == b"test" and m["traced_syscalls"] > 0
    assert "untraced_elapsed_ns" in m and "compute_ns" in m
    names = {f[2]: f for f in t["files"]}
    assert names[b"in 0.txt"] == (500, False, b"in 0.txt", False)
    assert names[b"all.txt"][1] is True  # created by the workload, even after the untraced run
    assert not any(p.startswith((b"/dev/", b"/proc/")) for p in names)
    execs = [t["files"][e[4]][2] for e in t["events"] if e[3] == "exec"]
    assert sum(p.endswith(b"/cat") for p in execs) == 2
    c = subprocess.run([check_bin, str(workdir / "sh.trace")], capture_output=True, text=True, check=True)
    py = subprocess.run([PPF_TRACE, "info", str(workdir / "sh.trace")], capture_output=True,
                        text=True, check=True)
    assert c.stdout == py.stdout
    # cat moves data with copy_file_range or read: the bytes must be there either way
    got = {}
    for e in t["events"]:
        if e[3] == "read" and e[5][3] > 0:
            got[t["files"][e[4]][2]] = got.get(t["files"][e[4]][2], 0) + e[5][3]
    assert got[b"in 2.txt"] == 1500 and got[b"all.txt"] == 3000


def test_missing_strace_names_package(tmp_path):
    env = dict(os.environ, PATH=str(tmp_path))
    res = subprocess.run([PY, PPF_TRACE, "record", "-o", str(tmp_path / "x"), "--", "true"],
                         capture_output=True, text=True, env=env)
    assert res.returncode != 0 and "apt-get install strace" in res.stderr


def same_counts(check_bin, path):
    c = subprocess.run([check_bin, str(path)], capture_output=True, text=True, check=True)
    py = subprocess.run([PPF_TRACE, "info", str(path)], capture_output=True, text=True, check=True)
    assert c.stdout == py.stdout
    return dict(line.split(" ", 1) for line in c.stdout.splitlines())


def test_namespace_ops(workdir, check_bin):
    """mkdir -p (relative mkdir after fchdir), mv (renameat2, a failed probe
    into a directory), rm -rf (unlinkat, AT_REMOVEDIR), mkdir/rmdir."""
    t = record(workdir, ["sh", "-c", "mkdir -p d/e && cat data.bin > d/a && mv d/a d/b && "
                         "mv d/b d/e/ && cat d/e/b >/dev/null && ls d >/dev/null && "
                         "cat d 2>/dev/null; rm -rf d && mkdir x && rmdir x"],
               out="ns.trace")
    assert t["version"] == fmt.VERSION == 3
    files = t["files"]
    byname = {f[2]: (i, f) for i, f in enumerate(files)}
    for d in (b"d", b"d/e", b"x"):
        assert byname[d][1] == (0, True, d, True)          # newdir
    for f in (b"d/a", b"d/b", b"d/e/b"):
        assert byname[f][1] == (0, True, f, False)         # new file
    ev = [(e[3], files[e[4]][2]) + tuple(files[a][2] if k == 0 and e[3] == "rename" else a
                                         for k, a in enumerate(e[5])) for e in t["events"]
          if e[3] in ("mkdir", "rmdir", "unlink", "rename")]
    assert ("mkdir", b"d", 0) in ev and ("mkdir", b"d/e", 0) in ev
    ren = [e for e in ev if e[0] == "rename"]
    assert [(e[1], e[2], e[4]) for e in ren] == [(b"d/a", b"d/b", 0), (b"d/b", b"d/e", -17),
                                                 (b"d/b", b"d/e/b", 0)]
    assert ("unlink", b"d/e/b", 0) in ev
    assert [e[1] for e in ev if e[0] == "rmdir"] == [b"d/e", b"d", b"x"]
    assert ev.index(("mkdir", b"x", 0)) > ev.index(("rmdir", b"d", 0))
    # the moved file is read under its new name
    rd = [e for e in t["events"] if e[3] == "read" and e[4] == byname[b"d/e/b"][0]]
    assert sum(e[5][3] for e in rd) == 8192
    # no O_DIRECTORY open is an event (mv probes its target with one, mkdir -p opens dirs),
    # and directories carry only namespace events
    assert not [e for e in t["events"] if e[3] == "open" and e[5][0] & os.O_DIRECTORY]
    assert {e[3] for e in t["events"] if files[e[4]][3]} <= {"mkdir", "rmdir", "rename", "unlink"}
    n = same_counts(check_bin, workdir / "ns.trace")
    assert n["mkdirs"] == "3" and n["renames"] == "3" and n["rmdirs"] == "3" and n["unlinks"] == "1"
    assert n["dirs"] == "3" and n["dropped_events"] == "0"


def test_temp_file_outside_root(workdir, tmp_path_factory, check_bin):
    """A file created, reopened read-only by another process and deleted
    (glimpse's /tmp/zz.PID) is 'new' and keeps all its events."""
    out = tmp_path_factory.mktemp("outside")
    t = record(workdir, ["sh", "-c", 'echo hello-there > "$0/zz.$$"; cat "$0/zz.$$" >/dev/null; '
                         'rm "$0/zz.$$"', str(out)], out="tmp.trace")
    zz = [(i, f) for i, f in enumerate(t["files"]) if f[2].startswith(os.fsencode(str(out)) + b"/zz.")]
    assert len(zz) == 1
    zid, zf = zz[0]
    assert zf[:2] == (0, True) and zf[2].startswith(b"/")
    ops = [(e[3], e[5]) for e in t["events"] if e[4] == zid]
    opens = [a for op, a in ops if op == "open"]
    assert len(opens) == 2 and opens[0][0] & os.O_CREAT and not opens[1][0] & os.O_CREAT
    assert ("write", ) and [a[3] for op, a in ops if op == "write"] == [12]
    assert sum(a[3] for op, a in ops if op == "read") == 12
    assert [a for op, a in ops if op == "unlink"] == [(0,)]
    n = same_counts(check_bin, workdir / "tmp.trace")
    assert n["dropped_events"] == "0"


def test_inherited_stdout_not_recorded(workdir, check_bin):
    """The command's stdout/stderr redirected to a file under the root are not
    workload files: writes to inherited fds are not events."""
    log = workdir / "log.txt"
    with open(log, "wb") as f:
        res = subprocess.run([PPF_TRACE, "record", "-o", str(workdir / "inh.trace"), "--root",
                              str(workdir), "--calib-calls", "2000", "--", "sh", "-c",
                              "echo out; echo err >&2; cat data.bin; cat data.bin > copy.bin"],
                             cwd=workdir, stdout=f, stderr=subprocess.PIPE, text=True)
    assert res.returncode == 0, res.stderr
    assert log.stat().st_size > 8192  # the data did go there
    t = fmt.load_trace(str(workdir / "inh.trace"))
    names = {f[2] for f in t["files"]}
    assert b"log.txt" not in names and b"copy.bin" in names
    data = [i for i, f in enumerate(t["files"]) if f[2] == b"data.bin"][0]
    assert sum(e[5][3] for e in t["events"] if e[3] == "read" and e[4] == data) == 2 * 8192
    assert t["meta"]["inherited_fd_calls"] >= 3
    same_counts(check_bin, workdir / "inh.trace")


def test_untraced_run_leftovers_warned(workdir):
    """A command that does not restore its starting state: the traced run sees
    the untraced run's output before creating it; the recorder names it."""
    res = subprocess.run([PPF_TRACE, "record", "-o", str(workdir / "u.trace"), "--root",
                          str(workdir), "--untraced-run", "--no-calibrate", "--", "sh", "-c",
                          "test -e out.txt && cat out.txt; echo x > out.txt"],
                         cwd=workdir, capture_output=True, text=True)
    assert "out.txt (stat)" in res.stderr and "did not start from" in res.stderr
    t = fmt.load_trace(str(workdir / "u.trace"))
    assert [f for f in t["files"] if f[2] == b"out.txt"][0][:2] == (0, True)
    # a command that removes its outputs first only gets a note
    os.unlink(workdir / "out.txt")
    res = subprocess.run([PPF_TRACE, "record", "-o", str(workdir / "v.trace"), "--root",
                          str(workdir), "--untraced-run", "--no-calibrate", "--", "sh", "-c",
                          "rm -rf o; mkdir o; echo x > o/out2.txt"],
                         cwd=workdir, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert "did not start from" not in res.stderr and "removed by the traced run" in res.stderr


def test_unknown_size_counted(workdir, tmp_path_factory, check_bin):
    """A file outside the root that existed, is only unlinked and is gone
    after the run: its size cannot be known, its event is counted, not lost."""
    out = tmp_path_factory.mktemp("outside2")
    (out / "old.bin").write_bytes(b"x" * 1000)
    res = subprocess.run([PPF_TRACE, "record", "-o", str(workdir / "d.trace"), "--root",
                          str(workdir), "--no-calibrate", "--", PY, "-c",
                          "import os, sys; os.unlink(sys.argv[1])", str(out / "old.bin")],
                         cwd=workdir, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert "dropped 1 events of 1 files: size unknown" in res.stderr
    t = fmt.load_trace(str(workdir / "d.trace"))
    assert t["meta"]["dropped_events"] == 1
    assert b"old.bin" in t["meta"]["dropped_events_reason"]
    assert not [f for f in t["files"] if f[2].endswith(b"/old.bin")]
    assert same_counts(check_bin, workdir / "d.trace")["dropped_events"] == "1"


def test_dup_events(workdir, check_bin):
    """dup, dup2, dup3 and fcntl F_DUPFD[_CLOEXEC] of a traced file are dup
    events (version 3): fd, O_CLOEXEC or 0, the new fd; reads through the
    copies keep the shared offset."""
    shutil.copy(os.path.join(HERE, "prog_dup.py"), workdir / "prog.py")
    t = record(workdir, [PY, "prog.py"], out="dup.trace")
    did = [i for i, f in enumerate(t["files"]) if f[2] == b"data.bin"][0]
    evs = [e for e in t["events"] if e.fid == did]
    opened = [e.args[1] for e in evs if e.op == "open"]
    assert len(opened) == 1
    fd = opened[0]
    a = fd + 1  # the lowest free number after fd
    assert [e.args for e in evs if e.op == "dup"] == [
        (fd, os.O_CLOEXEC, a), (a, 0, 10), (a, os.O_CLOEXEC, 20), (a, 0, 30),
        (a, os.O_CLOEXEC, 31)]
    assert [(e.args[0], e.args[1], e.args[3]) for e in evs if e.op == "read"] == [
        (a, 0, 100), (10, 100, 50), (30, 150, 10)]
    assert sorted(e.args[0] for e in evs if e.op == "close") == sorted([fd, a, 10, 20, 30, 31])
    n = same_counts(check_bin, workdir / "dup.trace")
    assert n["dups"] == "5"


def test_writer_names_oldest_version(tmp_path, check_bin):
    """The writer's header is the oldest version that holds the trace (at
    least 2): a trace without dup events reads as the version 2 it was before."""
    files = [(100, "pre", b"a"), (0, "newdir", b"d")]
    ev = [(0, 10, 3, "open", 0, (0, 5)), (20, 10, 3, "mkdir", 1, (0,))]
    for extra, want in (([], 2), ([(30, 10, 3, "dup", 0, (5, 0, 6))], 3)):
        p = tmp_path / ("w%d.trace" % want)
        fmt.write_trace(p, [("name", "w")], files, ev + extra)
        assert p.read_text().startswith("ppf-trace %d\n" % want)
        assert fmt.load_trace(str(p))["version"] == want
        same_counts(check_bin, p)


def test_reset_before_each_run(workdir):
    """--reset CMD runs (untraced) before the untraced and before the traced
    run: a command that does not clean up after itself starts from the
    snapshot's tree both times, and the reset is not in the trace."""
    res = subprocess.run([PPF_TRACE, "record", "-o", str(workdir / "r.trace"), "--root",
                          str(workdir), "--untraced-run", "--no-calibrate",
                          "--reset", "rm -rf o; echo reset >> resets.log", "--", "sh", "-c",
                          "test -e o/out.txt && cat o/out.txt; mkdir o; echo x > o/out.txt"],
                         cwd=workdir, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert "did not start from" not in res.stderr and "removed by the traced run" not in res.stderr
    assert (workdir / "resets.log").read_text() == "reset\nreset\n"
    t = fmt.load_trace(str(workdir / "r.trace"))
    names = {f.path for f in t["files"]}
    assert b"resets.log" not in names and not any(p.endswith(b"/rm") for p in names)
    out = [i for i, f in enumerate(t["files"]) if f.path == b"o/out.txt"][0]
    assert t["files"][out][:2] == (0, True)
    assert [e.args[-1] for e in t["events"] if e.fid == out and e.op == "stat"] == [-2]
    # a failing reset stops the recording and says which
    res = subprocess.run([PPF_TRACE, "record", "-o", str(workdir / "f.trace"), "--root",
                          str(workdir), "--no-calibrate", "--reset", "exit 3", "--", "true"],
                         cwd=workdir, capture_output=True, text=True)
    assert res.returncode == 1 and not (workdir / "f.trace").exists()
    assert "--reset command failed (exit 3) before the traced run: exit 3" in res.stderr
