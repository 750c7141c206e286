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
    assert dfile == (8192, False, b"data.bin")
    oid, ofile = files[b"out dir/new file.bin"]
    assert ofile == (0, True, b"out dir/new file.bin")
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
    assert names[b"in 0.txt"] == (500, False, b"in 0.txt")
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
