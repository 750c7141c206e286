"""ppf-replay run --faults FILE: a mapped range of a file the faults file
names is touched only at its listed pages (docs/replay.md, "Mapped files as
the program faulted them"); other files keep the whole range; a malformed
faults file is refused with FILE:LINE and exit status 1.

Which pages a replay touched: its own count (--json bytes.mapped, one page
per touch) and, after evicting the file (posix_fadvise DONTNEED, no global
cache drop), the page cache (mincore): the listed pages are resident, and
far fewer than the range (the kernel's fault-around and read-around add a
few pages around each touch, not the whole range)."""
from __future__ import annotations

import ctypes
import gzip
import json
import mmap
import os
import re
import subprocess
from pathlib import Path
from typing import Any, Dict, List

import pytest

TOP = Path(__file__).resolve().parents[2]
TOOLS = TOP / "userspace" / "trace-replay"
REPLAY = TOOLS / "replay" / "ppf-replay-dyn"
PAGE = 4096
BIG_PAGES = 4096  # 16 MiB (the page-cache test: 8 read-around windows, window())


@pytest.fixture(scope="module", autouse=True)
def built() -> None:
    subprocess.run(["make", "-s", "-C", str(TOOLS), "libppftrace.a", "replay/ppf-replay-dyn"],
                   check=True)


def write_trace(path: Path, big_pages: int = BIG_PAGES) -> Path:
    """big.so mapped twice (the ld.so pattern: the whole file, then a
    segment), other.so mapped whole, lib.bin executed; a version-2 trace."""
    files = [(0, "dir", "."), (big_pages * PAGE, "pre", "big.so"),
             (64 * PAGE, "pre", "other.so"), (32 * PAGE, "pre", "lib.bin")]
    ev = ["0 1000 5 open 1 0x0 3",
          "2000 1000 5 mmap 1 3 0 %d 0x1" % (big_pages * PAGE),
          "4000 1000 5 mmap 1 3 %d %d 0x5" % (1024 * PAGE, 1024 * PAGE),
          "6000 1000 5 close 1 3 0",
          "7000 1000 5 open 2 0x0 4",
          "8000 1000 5 mmap 2 4 0 %d 0x1" % (64 * PAGE),
          "9000 1000 5 close 2 4 0",
          "10000 1000 5 exec 3 0"]
    lines = ["ppf-trace 2"] + ["file %d %d %s %s" % (i, s, o, p)
                               for i, (s, o, p) in enumerate(files)] + ev
    path.write_text("\n".join(lines) + "\n")
    return path


def write_faults(path: Path, body: str, gz: bool = True) -> Path:
    data = body.encode()
    if gz:
        data = gzip.compress(data)
    path.write_bytes(data)
    return path


def replay(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(REPLAY)] + [str(a) for a in args], capture_output=True,
                          text=True, timeout=120)


def tree(tmp_path: Path, trace: Path) -> Path:
    t = tmp_path / "tree"
    res = replay("build-tree", trace, t)
    assert res.returncode == 0, res.stderr
    return t


def run_json(tmp_path: Path, trace: Path, t: Path, *opts: object) -> Dict[str, Any]:
    out = tmp_path / "r.json"
    res = replay("run", "--quiet", "--no-classify", "--json", out, *opts, trace, t)
    assert res.returncode == 0, res.stderr
    return json.loads(out.read_text())


def evict(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def resident(path: Path) -> List[int]:
    """The file's pages in the page cache (mincore on a mapping of it)."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                          ctypes.c_int, ctypes.c_long]
    libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p]
    libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    size = path.stat().st_size
    fd = os.open(path, os.O_RDONLY)
    try:
        addr = libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
        assert addr not in (None, ctypes.c_void_p(-1).value)
        vec = ctypes.create_string_buffer((size + PAGE - 1) // PAGE)
        assert libc.mincore(addr, size, vec) == 0, ctypes.get_errno()
        libc.munmap(addr, size)
    finally:
        os.close(fd)
    return [i for i, b in enumerate(vec.raw) if b & 1]


def window(tmp_path: Path) -> int:
    """Pages one touch of an evicted mapping brings in here (the kernel's
    mmap read-around: the device's read_ahead_kb, large folios): 0 when
    eviction does not work (tmpfs)."""
    f = tmp_path / "probe"
    f.write_bytes(b"\x5a" * (64 << 20))
    evict(f)
    if resident(f):
        return 0
    with open(f, "rb") as fh, mmap.mmap(fh.fileno(), 0, prot=mmap.PROT_READ) as m:
        m[(32 << 20)]
    n = len(resident(f))
    f.unlink()
    return n


BIG_LISTED = [3000, 7, 1500, 1100, 4095]  # 1100: inside the segment (1024-2047) too
FAULTS = ("ppf-faults 1\n# a test\n\nfile big.so\n%s\n%s\nfile lib.bin\n2 30\n"
          % (" ".join(map(str, BIG_LISTED[:3])), " ".join(map(str, BIG_LISTED[3:]))))


def test_faults_touch_only_the_listed_pages(tmp_path: Path) -> None:
    trace = write_trace(tmp_path / "t.trace")
    t = tree(tmp_path, trace)
    faults = write_faults(tmp_path / "t.faults.gz", FAULTS)
    # the replay's own count: big.so 5 pages in its whole mapping, 2 (1100,
    # 1500) in the segment's; other.so, not named, its whole range
    whole = run_json(tmp_path, trace, t)
    assert whole["bytes"]["mapped"] == (BIG_PAGES + 1024 + 64) * PAGE
    assert "faults" not in whole
    j = run_json(tmp_path, trace, t, "--faults", faults)
    assert j["bytes"]["mapped"] == (5 + 2 + 64) * PAGE
    assert j["faults"]["files"] == 2 and j["faults"]["pages"] == 7
    assert j["faults"]["file"] == str(faults)



def test_faults_in_the_page_cache(tmp_path: Path) -> None:
    """After a replay of evicted files: the listed pages are in the page
    cache, and no more than a read-around window around each, not the range."""
    w = window(tmp_path)
    if not w:
        pytest.skip("%s: posix_fadvise(DONTNEED) does not evict here (tmpfs?)" % tmp_path)
    big_pages = max(BIG_PAGES, 8 * w)
    trace = write_trace(tmp_path / "t.trace", big_pages)
    t = tree(tmp_path, trace)
    listed = [3000, 7, 1500, 1100, big_pages - 1]
    faults = write_faults(tmp_path / "t.faults.gz", "ppf-faults 1\nfile big.so\n%s\n"
                          % " ".join(map(str, listed)))
    for f in ("big.so", "other.so", "lib.bin"):
        evict(t / f)
    run_json(tmp_path, trace, t, "--faults", faults)
    big = set(resident(t / "big.so"))
    assert set(listed) <= big, sorted(big)
    assert len(big) <= len(listed) * w < big_pages, (len(big), w, big_pages)
    assert len(resident(t / "other.so")) == 64  # not named: touched whole
    # without --faults, big.so's whole range comes in
    evict(t / "big.so")
    run_json(tmp_path, trace, t)
    assert len(resident(t / "big.so")) == big_pages


def test_faults_plain_text_and_empty_list(tmp_path: Path) -> None:
    """Not gzip'd is read too; a named file with no pages: nothing touched."""
    trace = write_trace(tmp_path / "t.trace")
    t = tree(tmp_path, trace)
    faults = write_faults(tmp_path / "t.faults", "ppf-faults 1\nfile big.so\nfile other.so\n",
                          gz=False)
    j = run_json(tmp_path, trace, t, "--faults", faults)
    assert j["bytes"]["mapped"] == 0
    assert j["faults"] == {"file": str(faults), "files": 2, "pages": 0}


@pytest.mark.parametrize("body,line,pattern", [
    ("", 1, r"empty: not a faults file \(its first line must be 'ppf-faults 1'\)"),
    ("ppf-faults 2\n", 1, r"not a faults file"),
    ("ppf-faults 1\n1 2 3\n", 2, r"page indexes before any 'file PATH' line"),
    ("ppf-faults 1\nfile big.so\n1 x2\n", 3, r"'x2': not a page index"),
    ("ppf-faults 1\nfile big.so\n1 -2\n", 3, r"'-2': not a page index"),
    ("ppf-faults 1\nfile big.so\n99999999999999999999\n", 3, r".99999999999999999999.: not a page index"),
    ("ppf-faults 1\nfile\n", 2, r"'file' without a PATH"),
    ("ppf-faults 1\nfile nosuch.so\n", 2, r"nosuch.so: not a file of the trace's file table"),
    ("ppf-faults 1\nfile big.so\n1\n# c\nfile big.so\n", 5,
     r"big.so named again \(first on line 2\)"),
    ("ppf-faults 1\nfile big.so\n1 2\n3 1\nfile other.so\n", 2,
     r"page 1 listed twice for big.so"),
    ("ppf-faults 1\nfile big.so\n" + "1" * 9000 + "\n", 3, r"line longer than 8191 bytes"),
])
def test_malformed_faults_file(tmp_path: Path, body: str, line: int, pattern: str) -> None:
    trace = write_trace(tmp_path / "t.trace")
    t = tree(tmp_path, trace)
    faults = write_faults(tmp_path / "bad.faults.gz", body)
    res = replay("run", "--quiet", "--faults", faults, trace, t)
    assert res.returncode == 1, res
    first = res.stderr.splitlines()[0]
    assert re.match(r"^ppf-replay: %s:%d: %s" % (re.escape(str(faults)), line, pattern),
                    first), first
    assert len(res.stderr.splitlines()) == 1, res.stderr


def test_faults_file_missing_and_option_without_value(tmp_path: Path) -> None:
    trace = write_trace(tmp_path / "t.trace")
    t = tree(tmp_path, trace)
    res = replay("run", "--faults", tmp_path / "none.gz", trace, t)
    assert res.returncode == 1
    assert res.stderr.startswith("ppf-replay: %s:0: cannot open: No such file" %
                                 (tmp_path / "none.gz")), res.stderr
    res = replay("run", trace, t, "--faults")
    assert res.returncode == 2 and res.stderr.startswith(
        "ppf-replay run: --faults needs a FILE"), res.stderr


def test_realcheck_writes_what_the_replay_reads(tmp_path: Path) -> None:
    """realcheck.write_faults' file is one ppf-replay reads (the same format)."""
    from eval.harness import realcheck
    trace = write_trace(tmp_path / "t.trace")
    t = tree(tmp_path, trace)
    faults = tmp_path / "t.faults.gz"
    realcheck.write_faults({"big.so": BIG_LISTED, "lib.bin": [2, 30]}, faults, "a test")
    j = run_json(tmp_path, trace, t, "--faults", faults)
    assert j["bytes"]["mapped"] == (5 + 2 + 64) * PAGE
    assert j["faults"]["pages"] == 7
