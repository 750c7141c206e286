"""Every malformed input is refused with the exact line number and reason,
by the C parser (ppf-trace-check) and the Python reader (ppf-trace info)."""
import subprocess

import pytest

from conftest import PPF_TRACE

H = "ppf-trace 1\n"
F = H + "file 0 100 pre a\n"
H2 = "ppf-trace 2\n"
F2 = H2 + "file 0 100 pre a\nfile 1 0 newdir d\n"
F3 = "ppf-trace 3\nfile 0 100 pre a\n"
CASES = [
    # (name, input, line, reason)
    ("empty", "", 1, "missing header 'ppf-trace 3' (empty input)"),
    ("no header", "file 0 1 pre a\n", 1, "missing header 'ppf-trace 3'"),
    ("bad version", "ppf-trace x\n", 1, "bad version in header"),
    ("future version", "ppf-trace 4\n", 1, "unsupported version 4 (this parser reads 1 to 3)"),
    ("version zero", "ppf-trace 0\n", 1, "unsupported version 0 (this parser reads 1 to 3)"),
    ("truncated", F + "1 2 3 open 0 0x0 3", 3, "last line not terminated by newline (truncated?)"),
    ("nul", H + "meta name a\0b\n", 2, "NUL byte in line"),
    ("unknown line", H + "bogus\n", 2, "unknown line type"),
    ("meta no value", H + "meta name\n", 2, "meta: expected 'meta KEY VALUE'"),
    ("meta bad key", H + "meta Name x\n", 2, "meta: bad key"),
    ("meta dup", H + "meta name a\nmeta name b\n", 3, "duplicate meta name"),
    ("meta bad number", H + "meta elapsed_ns -5\n", 2, "meta elapsed_ns: bad number"),
    ("meta after files", F + "meta name a\n", 3, "meta line after the file table"),
    ("file short", H + "file 0 1 pre\n", 2, "file: expected 'file ID SIZE ORIGIN PATH'"),
    ("file id seq", H + "file 1 1 pre a\n", 2, "file: id 1 out of sequence (expected 0)"),
    ("file bad size", H + "file 0 99999999999999999999 pre a\n", 2, "file: bad size"),
    ("file origin", H + "file 0 1 old a\n", 2, "file: origin must be 'pre' or 'new'"),
    ("file new size", H + "file 0 1 new a\n", 2, "file: a new file must have size 0"),
    ("file empty path", H + "file 0 1 pre \n", 2, "file: empty path"),
    ("bad escape", H + "file 0 1 pre a\\q\n", 2, "file: path: unknown escape"),
    ("short octal", H + "file 0 1 pre a\\12\n", 2, "file: path: bad octal escape (need 3 digits)"),
    ("nul escape", H + "file 0 1 pre a\\000\n", 2, "file: path: NUL byte in escaped field"),
    ("raw control", H + "file 0 1 pre a\tb\n", 2, "file: path: unescaped control character"),
    ("trailing backslash", H + "file 0 1 pre a\\\n", 2, "file: path: backslash at end of field"),
    ("event before files", H + "1 2 3 open 0 0x0 3\n", 2, "file id 0 not in file table (0 files)"),
    ("file after event", F + "1 2 3 stat 0 0\nfile 1 1 pre b\n", 4, "file line after the first event"),
    ("file id range", F + "1 2 3 stat 7 0\n", 3, "file id 7 not in file table (1 files)"),
    ("unknown op", F + "1 2 3 unlink 0 0\n", 3, "unknown op 'unlink'"),
    ("double space", F + "1  2 3 stat 0 0\n", 3, "empty field (fields are separated by one space)"),
    ("few fields", F + "1 2 3 stat\n", 3, "event: expected 'START_NS DUR_NS PID OP FILE ...'"),
    ("arg count", F + "1 2 3 read 0 3 0 10\n", 3, "read: expected 4 arguments, got 3"),
    ("start overflow", F + "18446744073709551616 2 3 stat 0 0\n", 3, "bad start time"),
    ("dur overflow", F + "18446744073709551615 1 3 stat 0 0\n", 3, "bad duration"),
    ("pid zero", F + "1 2 0 stat 0 0\n", 3, "bad pid"),
    ("negative pid", F + "1 2 -3 stat 0 0\n", 3, "bad pid"),
    ("backwards", F + "5 2 3 stat 0 0\n4 2 3 stat 0 0\n", 4, "start time goes backwards"),
    ("open flags", F + "1 2 3 open 0 0777 3\n", 3, "open: bad flags"),
    ("open result", F + "1 2 3 open 0 0x0 -5000\n", 3, "open: bad result"),
    ("read neg offset", F + "1 2 3 read 0 3 -1 10 10\n", 3, "read: bad offset"),
    ("read big result", F + "1 2 3 read 0 3 0 10 11\n", 3, "read: result larger than length"),
    ("read overflow", F + "1 2 3 read 0 3 9223372036854775807 1 0\n", 3, "read: offset + length overflows"),
    ("mmap prot", F + "1 2 3 mmap 0 3 0 4096 5\n", 3, "mmap: bad prot"),
    ("close fd", F + "1 2 3 close 0 -1 0\n", 3, "close: bad fd"),
    ("exec result", F + "1 2 3 exec 0 1\n", 3, "exec: bad result"),
    ("leading zero", F + "01 2 3 stat 0 0\n", 3, "bad start time"),
    # version 1 traces keep the version 1 vocabulary
    ("v1 rename", F + "file 1 0 new b\n1 2 3 rename 0 1 0x0 0\n", 4, "unknown op 'rename'"),
    ("v1 dir", H + "file 0 0 dir d\n", 2, "file: origin must be 'pre' or 'new'"),
    # version 2: namespace ops and directories
    ("v2 origin", H2 + "file 0 0 old d\n", 2, "file: origin must be 'pre', 'new', 'dir' or 'newdir'"),
    ("v2 dir size", H2 + "file 0 4096 dir d\n", 2, "file: a directory must have size 0"),
    ("v2 newdir size", H2 + "file 0 1 newdir d\n", 2, "file: a directory must have size 0"),
    ("v2 new size", H2 + "file 0 1 new d\n", 2, "file: a new file must have size 0"),
    ("unlink result", F2 + "1 2 3 unlink 0 1\n", 4, "unlink: bad result"),
    ("unlink args", F2 + "1 2 3 unlink 0\n", 4, "unlink: expected 1 arguments, got 0"),
    ("mkdir result", F2 + "1 2 3 mkdir 1 -4096\n", 4, "mkdir: bad result"),
    ("rmdir args", F2 + "1 2 3 rmdir 1 0 0\n", 4, "rmdir: expected 1 arguments, got 2"),
    ("rename args", F2 + "1 2 3 rename 0 1 0\n", 4, "rename: expected 3 arguments, got 2"),
    ("rename new id", F2 + "1 2 3 rename 0 x 0x0 0\n", 4, "rename: bad new file id"),
    ("rename new id range", F2 + "1 2 3 rename 0 2 0x0 0\n", 4,
     "rename: new file id 2 not in file table (2 files)"),
    ("rename flags", F2 + "1 2 3 rename 0 1 1 0\n", 4, "rename: bad flags"),
    ("rename result", F2 + "1 2 3 rename 0 1 0x1 5\n", 4, "rename: bad result"),
    ("rename old id", F2 + "1 2 3 rename 9 1 0x0 0\n", 4, "file id 9 not in file table (2 files)"),
    ("dropped bad number", H2 + "meta dropped_events x\n", 2, "meta dropped_events: bad number"),
    ("inherited dup", H2 + "meta inherited_fd_calls 1\nmeta inherited_fd_calls 1\n", 3,
     "duplicate meta inherited_fd_calls"),
    # version 3: dup events (only successful ones: RESULT is the new fd)
    ("v2 dup", F2 + "1 2 3 dup 0 3 0x0 4\n", 4, "unknown op 'dup'"),
    ("v1 dup", F + "1 2 3 dup 0 3 0x0 4\n", 3, "unknown op 'dup'"),
    ("dup args", F3 + "1 2 3 dup 0 3 4\n", 3, "dup: expected 3 arguments, got 2"),
    ("dup fd", F3 + "1 2 3 dup 0 -3 0x0 4\n", 3, "dup: bad fd"),
    ("dup flags", F3 + "1 2 3 dup 0 3 0 4\n", 3, "dup: bad flags"),
    ("dup failed", F3 + "1 2 3 dup 0 3 0x0 -9\n", 3, "dup: bad result"),
    ("dup result range", F3 + "1 2 3 dup 0 3 0x0 2147483648\n", 3, "dup: bad result"),
    # A key neither parser knows (a newer writer's) is also allowed only once.
    ("unknown key dup", H2 + "meta future_key a\nmeta name n\nmeta future_key b\n", 4,
     "duplicate meta future_key"),
]


@pytest.mark.parametrize("name,text,line,reason", CASES, ids=[c[0] for c in CASES])
def test_error(tmp_path, check_bin, name, text, line, reason):
    p = tmp_path / "bad.trace"
    p.write_bytes(text.encode("latin-1"))
    want = "%s:%d: %s" % (p, line, reason)
    c = subprocess.run([check_bin, str(p)], capture_output=True, text=True)
    assert c.returncode == 1
    assert c.stderr.strip() == want
    py = subprocess.run([PPF_TRACE, "info", str(p)], capture_output=True, text=True)
    assert py.returncode == 1
    assert py.stderr.strip() == want


def test_valid_escapes_and_comments(tmp_path, check_bin):
    text = (H + "meta name t\\040x\nmeta future_key whatever\n# comment\n\n"
            "file 0 10 pre dir/a b\nfile 1 0 new /tmp/\\303\\251\\n\n"
            "1 2 3 open 0 0x80000 3\n5 1 3 read 0 3 0 4096 10\n"
            "7 1 3 mmap 1 3 0 8192 0x5\n8 0 3 close 0 3 0\n")
    p = tmp_path / "ok.trace"
    p.write_text(text)
    c = subprocess.run([check_bin, str(p)], capture_output=True, text=True, check=True)
    py = subprocess.run([PPF_TRACE, "info", str(p)], capture_output=True, text=True, check=True)
    assert c.stdout == py.stdout
    assert "name t x\n" in c.stdout and "files_outside_root 1\n" in c.stdout
    assert "mapped_bytes 8192\n" in c.stdout and "bytes_read 10\n" in c.stdout
    from ppftrace import fmt
    t = fmt.load_trace(str(p))
    assert t["files"][0][2] == b"dir/a b" and t["files"][1] == (0, True, "/tmp/\u00e9\n".encode(), False)


def test_escape_round_trip():
    from ppftrace import fmt
    raw = bytes(range(1, 256))
    assert fmt.unescape(fmt.escape(raw)) == raw
    assert "\n" not in fmt.escape(raw) and " " in fmt.escape(raw)


def test_v2_ops_and_dirs(tmp_path, check_bin):
    text = (H2 + "meta name v2\nmeta inherited_fd_calls 4\nmeta dropped_events 1\n"
            "meta dropped_events_reason 1 events of 1 files: size unknown (e.g. /x)\n"
            "file 0 0 newdir out\nfile 1 0 new out/t.tmp\nfile 2 0 new out/t\n"
            "file 3 0 dir /tmp\nfile 4 7 pre old.txt\n"
            "1 2 3 mkdir 0 0\n2 1 3 mkdir 0 -17\n3 1 3 open 1 0x241 3\n4 1 3 write 1 3 0 5 5\n"
            "5 1 3 close 1 3 0\n6 1 3 rename 1 2 0x1 0\n7 1 3 rename 1 2 0x0 -2\n"
            "8 1 3 unlink 4 0\n9 1 3 unlink 2 0\n10 1 3 rmdir 0 0\n11 1 3 rmdir 3 -39\n")
    p = tmp_path / "v2.trace"
    p.write_text(text)
    c = subprocess.run([check_bin, str(p)], capture_output=True, text=True, check=True)
    py = subprocess.run([PPF_TRACE, "info", str(p)], capture_output=True, text=True, check=True)
    assert c.stdout == py.stdout
    for line in ("version 2", "files 5", "files_new 3", "dirs 2", "files_outside_root 1",
                 "mkdirs 2", "renames 2", "unlinks 2", "rmdirs 2", "opens 1",
                 "inherited_fd_calls 4", "dropped_events 1"):
        assert line + "\n" in c.stdout
    from ppftrace import fmt
    t = fmt.load_trace(str(p))
    assert t["version"] == 2
    assert t["files"][0] == (0, True, b"out", True) and t["files"][3] == (0, False, b"/tmp", True)
    ren = [e for e in t["events"] if e[3] == "rename"]
    assert [(e[4],) + e[5] for e in ren] == [(1, 2, 1, 0), (1, 2, 0, -2)]
    assert t["meta"]["dropped_events_reason"].startswith(b"1 events")


def test_v1_still_read(tmp_path, check_bin):
    p = tmp_path / "v1.trace"
    p.write_text(F + "1 2 3 open 0 0x0 3\n")
    c = subprocess.run([check_bin, str(p)], capture_output=True, text=True, check=True)
    py = subprocess.run([PPF_TRACE, "info", str(p)], capture_output=True, text=True, check=True)
    assert c.stdout == py.stdout and "version 1\n" in c.stdout and "dropped_events -\n" in c.stdout


def test_v3_dup(tmp_path, check_bin):
    p = tmp_path / "v3.trace"
    p.write_text(F3 + "1 2 3 open 0 0x0 5\n3 1 3 dup 0 5 0x0 6\n4 1 3 close 0 5 0\n"
                 "5 1 3 read 0 6 0 100 100\n6 1 3 dup 0 6 0x80000 9\n7 1 3 close 0 6 0\n")
    c = subprocess.run([check_bin, str(p)], capture_output=True, text=True, check=True)
    py = subprocess.run([PPF_TRACE, "info", str(p)], capture_output=True, text=True, check=True)
    assert c.stdout == py.stdout
    assert "version 3\n" in c.stdout and "dups 2\n" in c.stdout and "closes 2\n" in c.stdout
    from ppftrace import fmt
    t = fmt.load_trace(str(p))
    assert [e.args for e in t["events"] if e.op == "dup"] == [(5, 0, 6), (6, 0x80000, 9)]


@pytest.mark.parametrize("name", ["andrew", "glimpse", "gnuld"])
def test_recorded_v2_workloads_still_read(check_bin, name):
    """The workloads' traces are version 2: both parsers still read them, with
    the version 2 vocabulary (no dup events), and agree."""
    import os
    from conftest import TOOLS
    p = os.path.join(TOOLS, "..", "..", "eval", "workloads", name, name + ".trace.gz")
    c = subprocess.run([check_bin, p], capture_output=True, text=True, check=True)
    py = subprocess.run([PPF_TRACE, "info", p], capture_output=True, text=True, check=True)
    assert c.stdout == py.stdout
    assert "version 2\n" in c.stdout and "dups 0\n" in c.stdout
