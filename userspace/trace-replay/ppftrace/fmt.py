"""Writer and strict reader of the ppf trace format (docs/trace-format.md).

The reader applies the same rules as the C parser (trace.c) so that a trace
accepted by one is accepted by the other; errors name the line number.
"""
import gzip
import os
from typing import Dict, Iterable, List, NamedTuple, NoReturn, Sequence, Tuple, TypedDict, Union

VERSION = 3           # the newest version: what the writer writes when a trace needs it
READ_VERSIONS = (1, 2, 3)  # what the reader accepts
OPS = {  # op -> names of the arguments after "START DUR PID OP FILE"
    "open": ("flags", "result"),
    "exec": ("result",),
    "read": ("fd", "offset", "len", "result"),
    "write": ("fd", "offset", "len", "result"),
    "mmap": ("fd", "offset", "len", "prot"),
    "close": ("fd", "result"),
    "stat": ("result",),
    # version 2
    "unlink": ("result",),
    "rename": ("newfile", "flags", "result"),
    "mkdir": ("result",),
    "rmdir": ("result",),
    # version 3: only successful dups; result is the new fd
    "dup": ("fd", "flags", "result"),
}
V1_OPS = ("open", "exec", "read", "write", "mmap", "close", "stat")
V2_OPS = V1_OPS + ("unlink", "rename", "mkdir", "rmdir")
OPS_BY_VERSION = {1: V1_OPS, 2: V2_OPS, 3: tuple(OPS)}
ORIGINS = {1: ("pre", "new"), 2: ("pre", "new", "dir", "newdir"),
           3: ("pre", "new", "dir", "newdir")}
HEX_ARGS = {"flags", "prot"}
META_NUMS = ("elapsed_ns", "corrected_elapsed_ns", "untraced_elapsed_ns",
             "compute_ns", "traced_syscalls", "strace_overhead_ns",
             "strace_dur_overhead_ns", "strace_gap_overhead_ns",
             "inherited_fd_calls", "dropped_events")


class TraceError(Exception):
    pass


MetaValue = Union[int, bytes]  # int for the keys in META_NUMS, bytes for the others


class ParsedFile(NamedTuple):
    """A file table row as parse_trace() returns it."""
    size: int
    new: bool       # origin new or newdir: absent when the run started
    path: bytes
    is_dir: bool    # origin dir or newdir


class Event(NamedTuple):
    """An event line. args follow OPS[op]; for rename the first is the target's file id."""
    start: int
    dur: int
    pid: int
    op: str
    fid: int
    args: Tuple[int, ...]


class Trace(TypedDict):
    """What parse_trace() returns."""
    version: int
    meta: Dict[str, MetaValue]
    files: List[ParsedFile]
    events: List[Event]


class FileEntry(NamedTuple):
    """A file table row as write_trace() takes it."""
    size: int
    origin: str     # one of ORIGINS[VERSION]
    path: bytes


StrPath = Union[str, "os.PathLike[str]"]


def escape(raw: bytes) -> str:
    """C-escape a path/value: keeps the trace ASCII, one record per line."""
    out = []
    for b in raw:
        if b == 0x5C:
            out.append("\\\\")
        elif b == 0x0A:
            out.append("\\n")
        elif b == 0x09:
            out.append("\\t")
        elif b == 0x0D:
            out.append("\\r")
        elif b < 0x20 or b >= 0x7F:
            out.append("\\%03o" % b)
        else:
            out.append(chr(b))
    return "".join(out)


def unescape(s: str) -> bytes:
    out = bytearray()
    i, n = 0, len(s)
    while i < n:
        c = s[i]
        i += 1
        if c != "\\":
            if ord(c) < 0x20 or ord(c) == 0x7F:
                raise ValueError("unescaped control character")
            out += c.encode("utf-8", "surrogateescape")
            continue
        if i >= n:
            raise ValueError("backslash at end of field")
        c = s[i]
        i += 1
        if c in "\\ntr":
            out.append({"\\": 0x5C, "n": 0x0A, "t": 0x09, "r": 0x0D}[c])
        elif c in "0123":
            d = s[i - 1:i + 2]
            if len(d) != 3 or any(x not in "01234567" for x in d):
                raise ValueError("bad octal escape (need 3 digits)")
            v = int(d, 8)
            if v == 0:
                raise ValueError("NUL byte in escaped field")
            out.append(v)
            i += 2
        else:
            raise ValueError("unknown escape")
    return bytes(out)


def oldest_version(origins: Iterable[str], ops: Iterable[str]) -> int:
    """The oldest format version whose vocabulary holds these origins and ops."""
    need = 1
    for o in origins:
        need = max(need, min(v for v in READ_VERSIONS if o in ORIGINS[v]))
    for op in ops:
        need = max(need, min(v for v in READ_VERSIONS if op in OPS_BY_VERSION[v]))
    return need


def write_trace(path: StrPath, meta: Iterable[Tuple[str, object]],
                files: Iterable[Tuple[int, str, bytes]],
                events: Iterable[Tuple[int, int, int, str, int, Sequence[int]]]) -> None:
    """meta: list of (key, value); files: list of (size, origin, pathbytes)
    with origin one of pre/new/dir/newdir; events: list of
    (start, dur, pid, op, fid, args) sorted by start.

    The header names the oldest version that holds the trace, at least 2: a
    recording with dup events is version 3, one without is the version 2 it
    would have been before (same bytes, so traces derived from version 2
    ones, e.g. eval/harness/synth.py's, do not change; older parsers read
    them)."""
    files, events = list(files), list(events)
    version = max(2, oldest_version((f[1] for f in files), (e[3] for e in events)))
    lines = ["ppf-trace %d" % version]
    for k, v in meta:
        if v is None:
            continue
        raw = v if isinstance(v, bytes) else str(v).encode()
        lines.append("meta %s %s" % (k, escape(raw)))
    for i, (size, origin, p) in enumerate(files):
        assert origin in ORIGINS[version]
        lines.append("file %d %d %s %s" % (i, size, origin, escape(p)))
    for start, dur, pid, op, fid, args in events:
        parts = [str(start), str(dur), str(pid), op, str(fid)]
        for name, v in zip(OPS[op], args):
            parts.append("0x%x" % v if name in HEX_ARGS else str(v))
        lines.append(" ".join(parts))
    data = ("\n".join(lines) + "\n").encode("ascii")
    if str(path).endswith(".gz"):
        # mtime=0: identical runs give identical bytes.
        with open(path, "wb") as f, gzip.GzipFile(fileobj=f, mode="wb", mtime=0) as g:
            g.write(data)
    else:
        with open(path, "wb") as f:
            f.write(data)


def _uint(s: str, maxv: int) -> int:
    if not s or len(s) > 20 or not s.isdigit() or not s.isascii() or (len(s) > 1 and s[0] == "0"):
        raise ValueError
    v = int(s)
    if v > maxv:
        raise ValueError
    return v


def _int(s: str, lo: int, hi: int) -> int:
    neg = s.startswith("-")
    v = _uint(s[1:] if neg else s, 2**63 if neg else 2**63 - 1)
    if neg and v == 0:
        raise ValueError
    v = -v if neg else v
    if not lo <= v <= hi:
        raise ValueError
    return v


def _hex32(s: str) -> int:
    if not (3 <= len(s) <= 10 and s.startswith("0x")) or any(
            c not in "0123456789abcdefABCDEF" for c in s[2:]):
        raise ValueError
    return int(s[2:], 16)


ARG_RANGES = {
    "fd": (0, 2**31 - 1), "offset": (0, 2**63 - 1), "len": (0, 2**63 - 1),
}


class _Reader:
    """parse_trace()'s state: the sections read so far and the line number
    errors name."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.lineno = 0
        self.ver = VERSION
        self.sec = 0  # 0 header, 1 meta, 2 files, 3 events
        self.last = 0  # start of the previous event
        self.meta: Dict[str, MetaValue] = {}
        self.files: List[ParsedFile] = []
        self.events: List[Event] = []

    def fail(self, msg: str) -> NoReturn:
        raise TraceError("%s:%d: %s" % (self.name, self.lineno, msg))

    def line(self, line: str) -> None:
        """One line (without its newline) after the header."""
        if not line or line.startswith("#"):
            return
        if line.startswith("meta "):
            self.meta_line(line)
        elif line.startswith("file "):
            self.file_line(line)
        else:
            self.event_line(line)

    def header(self, line: str) -> None:
        if not line.startswith("ppf-trace "):
            self.fail("missing header 'ppf-trace %d'" % VERSION)
        try:
            self.ver = _uint(line[10:], 1000)
        except ValueError:
            self.fail("bad version in header")
        if self.ver not in READ_VERSIONS:
            self.fail("unsupported version %d (this parser reads %d to %d)" % (
                self.ver, READ_VERSIONS[0], READ_VERSIONS[-1]))
        self.sec = 1

    def meta_line(self, line: str) -> None:
        if self.sec > 1:
            self.fail("meta line after the file table")
        f = line.split(" ", 2)
        if len(f) != 3 or not f[1]:
            self.fail("meta: expected 'meta KEY VALUE'")
        if any(c not in "abcdefghijklmnopqrstuvwxyz0123456789_" for c in f[1]):
            self.fail("meta: bad key")
        if f[1] in self.meta:
            self.fail("duplicate meta %s" % f[1])
        if f[1] in META_NUMS:
            try:
                self.meta[f[1]] = _uint(f[2], 2**64 - 2)
            except ValueError:
                self.fail("meta %s: bad number" % f[1])
        else:
            try:
                self.meta[f[1]] = unescape(f[2])
            except ValueError as e:
                self.fail("meta value: %s" % e)

    def file_line(self, line: str) -> None:
        if self.sec > 2:
            self.fail("file line after the first event")
        self.sec = 2
        f = line.split(" ", 4)
        if len(f) != 5 or "" in f[1:4]:
            self.fail("file: expected 'file ID SIZE ORIGIN PATH'")
        try:
            fid = _uint(f[1], 2**32 - 2)
        except ValueError:
            self.fail("file: bad id")
        if fid != len(self.files):
            self.fail("file: id %d out of sequence (expected %d)" % (fid, len(self.files)))
        try:
            size = _uint(f[2], 2**63 - 1)
        except ValueError:
            self.fail("file: bad size")
        origins = ORIGINS[self.ver]
        if f[3] not in origins:
            self.fail("file: origin must be %s" % " or ".join(
                ", ".join("'%s'" % o for o in origins).rsplit(", ", 1)))
        if f[3] == "new" and size:
            self.fail("file: a new file must have size 0")
        if f[3] in ("dir", "newdir") and size:
            self.fail("file: a directory must have size 0")
        if not f[4]:
            self.fail("file: empty path")
        try:
            p = unescape(f[4])
        except ValueError as e:
            self.fail("file: path: %s" % e)
        self.files.append(ParsedFile(size, f[3] in ("new", "newdir"), p, f[3] in ("dir", "newdir")))

    def event_line(self, line: str) -> None:
        if not line[:1].isdigit():
            self.fail("unknown line type")
        self.sec = 3
        f = line.split(" ")
        if "" in f:
            self.fail("empty field (fields are separated by one space)")
        if len(f) < 5:
            self.fail("event: expected 'START_NS DUR_NS PID OP FILE ...'")
        try:
            start = _uint(f[0], 2**64 - 1)
        except ValueError:
            self.fail("bad start time")
        try:
            dur = _uint(f[1], 2**64 - 1 - start)
        except ValueError:
            self.fail("bad duration")
        try:
            pid = _uint(f[2], 2**31 - 1)
            if pid == 0:
                raise ValueError
        except ValueError:
            self.fail("bad pid")
        op = f[3]
        if op not in OPS_BY_VERSION[self.ver]:
            self.fail("unknown op '%s'" % op[:32])
        try:
            fid = _uint(f[4], 2**32 - 1)
        except ValueError:
            self.fail("bad file id")
        if fid >= len(self.files):
            self.fail("file id %d not in file table (%d files)" % (fid, len(self.files)))
        names = OPS[op]
        if len(f) != 5 + len(names):
            self.fail("%s: expected %d arguments, got %d" % (op, len(names), len(f) - 5))
        if start < self.last:
            self.fail("start time goes backwards")
        args = self.event_args(op, names, f[5:])
        self.last = start
        self.events.append(Event(start, dur, pid, op, fid, args))

    def event_args(self, op: str, names: Tuple[str, ...], fields: List[str]) -> Tuple[int, ...]:
        """The arguments after FILE, checked one by one and then together."""
        args = []
        for nm, s in zip(names, fields):
            try:
                if nm in HEX_ARGS:
                    v = _hex32(s)
                elif nm == "newfile":
                    v = _uint(s, 2**32 - 1)
                elif nm == "result":
                    hi = 2**63 - 1 if op in ("read", "write") else 2**31 - 1 if op == "open" else 0
                    v = _int(s, 0, 2**31 - 1) if op == "dup" else _int(s, -4095, hi)
                else:
                    v = _int(s, *ARG_RANGES[nm])
            except ValueError:
                what = {"len": "length", "newfile": "new file id"}.get(nm, nm)
                self.fail("%s: bad %s" % (op, what))
            if nm == "newfile" and v >= len(self.files):
                self.fail("%s: new file id %d not in file table (%d files)" % (op, v, len(self.files)))
            args.append(v)
        a = dict(zip(names, args))
        if "offset" in a and a["offset"] > 2**63 - 1 - a["len"]:
            self.fail("%s: offset + length overflows" % op)
        if op in ("read", "write") and a["result"] > a["len"]:
            self.fail("%s: result larger than length" % op)
        return tuple(args)


def parse_trace(data: bytes, name: str = "<buffer>") -> Trace:
    """Returns dict(version=N, meta=..., files=[(size, new, path, is_dir)], events=[...]):
    a Trace whose files are ParsedFile and events Event tuples.
    For rename the first argument is the target's file id."""
    r = _Reader(name)
    pos = 0
    while pos < len(data):
        nl = data.find(b"\n", pos)
        r.lineno += 1
        if nl < 0:
            r.fail("last line not terminated by newline (truncated?)")
        raw = data[pos:nl]
        pos = nl + 1
        if b"\0" in raw:
            r.fail("NUL byte in line")
        line = raw.decode("latin-1")
        if r.sec == 0:
            r.header(line)
        else:
            r.line(line)
    if r.sec == 0:
        r.lineno = 1
        r.fail("missing header 'ppf-trace %d' (empty input)" % VERSION)
    return {"version": r.ver, "meta": r.meta, "files": r.files, "events": r.events}


def load_trace(path: StrPath) -> Trace:
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as e:
            raise TraceError("%s:0: read error: %s" % (path, e))
    return parse_trace(data, str(path))


def stats(t: Trace) -> Dict[str, int]:
    """Same counts, names and order as ppf-trace-check (trace_stats.c)."""
    s = dict.fromkeys(("opens", "failed_opens", "execs", "reads", "bytes_read",
                       "writes", "bytes_written", "mmaps", "mapped_bytes",
                       "closes", "stats", "unlinks", "renames", "mkdirs", "rmdirs", "dups"), 0)
    for _, _, _, op, _, a in t["events"]:
        if op == "open":
            s["opens"] += 1
            s["failed_opens"] += a[1] < 0
        elif op == "exec":
            s["execs"] += 1
        elif op in ("read", "write"):
            k = "reads" if op == "read" else "writes"
            s[k] += 1
            s["bytes_" + ("read" if op == "read" else "written")] += max(a[3], 0)
        elif op == "mmap":
            s["mmaps"] += 1
            s["mapped_bytes"] += a[2]
        elif op == "close":
            s["closes"] += 1
        elif op in ("stat", "unlink", "rename", "mkdir", "rmdir", "dup"):
            s[op + "s"] += 1
    return s


def info_lines(t: Trace) -> List[str]:
    m, files = t["meta"], t["files"]
    s = stats(t)
    name = m.get("name")  # bytes: not in META_NUMS
    out = ["name %s" % (name.decode("utf-8", "replace") if isinstance(name, bytes) else "-"),
           "version %d" % t["version"],
           "events %d" % len(t["events"]),
           "files %d" % len(files),
           "files_new %d" % sum(1 for f in files if f[1]),
           "files_outside_root %d" % sum(1 for f in files if f[2][:1] == b"/"),
           "dirs %d" % sum(1 for f in files if f[3])]
    out += ["%s %d" % kv for kv in s.items()]
    for k in ("elapsed_ns", "corrected_elapsed_ns", "untraced_elapsed_ns",
              "compute_ns", "strace_overhead_ns", "inherited_fd_calls", "dropped_events"):
        out.append("%s %s" % (k, str(m[k]) if k in m else "-"))  # ints: in META_NUMS
    return out
