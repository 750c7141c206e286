"""Every malformed input is refused with the exact line number and reason,
by the C parser (ppf-trace-check) and the Python reader (ppf-trace info)."""
import subprocess

import pytest

from conftest import PPF_TRACE

H = "ppf-trace 1\n"
F = H + "file 0 100 pre a\n"
CASES = [
    # (name, input, line, reason)
    ("empty", "", 1, "missing header 'ppf-trace 1' (empty input)"),
    ("no header", "file 0 1 pre a\n", 1, "missing header 'ppf-trace 1'"),
    ("bad version", "ppf-trace x\n", 1, "bad version in header"),
    ("future version", "ppf-trace 2\n", 1, "unsupported version 2 (this parser reads 1)"),
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
    assert t["files"][0][2] == b"dir/a b" and t["files"][1] == (0, True, "/tmp/\u00e9\n".encode())


def test_escape_round_trip():
    from ppftrace import fmt
    raw = bytes(range(1, 256))
    assert fmt.unescape(fmt.escape(raw)) == raw
    assert "\n" not in fmt.escape(raw) and " " in fmt.escape(raw)
