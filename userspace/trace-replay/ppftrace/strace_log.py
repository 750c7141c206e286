"""Parse strace -ff -X raw -y -s 0 --timestamps=unix,ns --syscall-times=ns logs.

One log file per process (strace -ff), so lines never interleave and no
"<unfinished ...>" splitting happens; the pid is the file name suffix.
"""
import os
import re
from dataclasses import dataclass
from typing import List, NamedTuple, Optional, Tuple, Union

_DUR = re.compile(rb" <(\d+)\.(\d{9})>$")
_HEAD = re.compile(rb"^(\d+)\.(\d{9}) ")
_NAME = re.compile(rb"([a-z0-9_]+)\(")


@dataclass(slots=True, eq=False)
class Call:
    """One completed syscall of one process, as strace logged it."""
    ts: int                  # start, ns since the epoch
    dur: int                 # duration, ns
    pid: int
    name: str                # syscall name
    args: List[bytes]        # raw argument texts
    ret: int                 # return value
    ret_path: Optional[bytes]  # -y path after the return value (fd-returning calls)
    err: Optional[str]       # errno name (ENOENT...) of a failed call
    seq: int = 0             # index in global start order (read_logs)


class FdArg(NamedTuple):
    """An fd argument as strace -y shows it: '3</a/b>'."""
    fd: Optional[int]
    path: Optional[bytes]


class Mark(NamedTuple):
    """A '+++ exited' / '--- SIG' line: a process still ran at ts."""
    kind: str  # always "mark"
    ts: int


class Logs(NamedTuple):
    """All calls of a run, in start order, and the time span it covered."""
    calls: List[Call]
    first: int
    last: int


def num(b: bytes) -> int:
    """strace -X raw number: decimal, 0x hex, or C octal (st_mode=0100644)."""
    b = b.strip()
    neg = b.startswith(b"-")
    d = b[1:] if neg else b
    if len(d) > 1 and d[:1] == b"0" and d[1:2] not in (b"x", b"X"):
        v = int(d, 8)
    else:
        v = int(d, 0)
    return -v if neg else v


def unquote(s: bytes) -> bytes:
    """Decode a strace string literal body (escapes \\n, \\ooo, \\xhh...)."""
    out = bytearray()
    i, n = 0, len(s)
    simple = {ord("n"): 10, ord("t"): 9, ord("r"): 13, ord("v"): 11, ord("f"): 12,
              ord("\\"): 92, ord('"'): 34, ord("'"): 39, ord("a"): 7, ord("b"): 8}
    while i < n:
        c = s[i]
        i += 1
        if c != 0x5C or i >= n:
            out.append(c)
            continue
        c = s[i]
        if c in simple:
            out.append(simple[c])
            i += 1
        elif 0x30 <= c <= 0x37:
            j = i
            while j < n and j < i + 3 and 0x30 <= s[j] <= 0x37:
                j += 1
            out.append(int(s[i:j], 8) & 0xFF)
            i = j
        elif c == ord("x"):
            out.append(int(s[i + 1:i + 3], 16))
            i += 3
        else:
            out.append(c)
            i += 1
    return bytes(out)


def split_args(s: bytes, i: int) -> Tuple[List[bytes], int]:
    """Split the argument list starting after '(' at s[i]; returns (args, end)
    where s[end] is the closing ')'. Respects "...", <...>, (), [], {}."""
    args: List[bytes] = []
    depth, start = 0, i
    n = len(s)
    while i < n:
        c = s[i]
        if c == 0x22:  # '"': skip string, honouring backslash escapes
            i += 1
            while i < n and s[i] != 0x22:
                i += 2 if s[i] == 0x5C else 1
        elif c == 0x3C:  # '<': -y path; '>' inside is escaped as \76
            i = s.find(b">", i)
            if i < 0:
                raise ValueError("unterminated <path>")
        elif c in b"([{":
            depth += 1
        elif c in b")]}":
            if depth == 0:
                if s[start:i].strip():
                    args.append(s[start:i].strip())
                return args, i
            depth -= 1
        elif c == 0x2C and depth == 0:
            args.append(s[start:i].strip())
            start = i + 1
        i += 1
    raise ValueError("unterminated argument list")


def fd_path(arg: bytes) -> FdArg:
    """'3</a/b>' -> (3, b'/a/b'); '-100</cwd>' -> (-100, b'/cwd'); '3' -> (3, None)."""
    lt = arg.find(b"<")
    if lt < 0 or not arg.endswith(b">"):
        try:
            return FdArg(num(arg), None)
        except ValueError:
            return FdArg(None, None)
    fd: Optional[int]
    try:
        fd = num(arg[:lt])
    except ValueError:
        fd = None
    return FdArg(fd, unquote(arg[lt + 1:-1]))


def string_arg(arg: bytes) -> Optional[bytes]:
    if arg.startswith(b'"'):
        end = arg.rfind(b'"')
        return unquote(arg[1:end])
    return None


def parse_line(line: bytes, pid: int) -> Union[Call, Mark, None]:
    """A Call, ('exit', ts) for +++/--- lines, or None for lines we skip."""
    m = _HEAD.match(line)
    if not m:
        return None
    ts = int(m.group(1)) * 10**9 + int(m.group(2))
    rest = line[m.end():]
    if rest.startswith(b"+++") or rest.startswith(b"---"):
        return Mark("mark", ts)
    nm = _NAME.match(rest)
    d = _DUR.search(rest)
    if not nm or not d:
        return None  # e.g. "= ?" of exit_group, resumed or killed calls
    dur = int(d.group(1)) * 10**9 + int(d.group(2))
    body = rest[:d.start()]
    try:
        args, end = split_args(body, nm.end())
    except ValueError:
        return None
    tail = body[end + 1:].lstrip(b" ")  # strace pads short calls to column 40
    if not tail.startswith(b"= "):
        return None
    tail = tail[2:]
    sp = tail.find(b" ")
    tok = tail if sp < 0 else tail[:sp]
    err = None
    if sp >= 0 and tail[sp + 1:sp + 2] == b"E":
        err = tail[sp + 1:].split(b" ", 1)[0].decode()
    ret_path = None
    lt = tok.find(b"<")
    if lt >= 0:
        # the resolved path may contain spaces: it runs to the last '>'
        full = tail
        ret_path = unquote(full[lt + 1:full.rfind(b">")])
        tok = tok[:lt]
    try:
        ret = num(tok)
    except ValueError:
        return None
    return Call(ts, dur, pid, nm.group(1).decode(), args, ret, ret_path, err)


def read_logs(prefix: str) -> Logs:
    """All calls of all processes, merged by start time, plus the time span."""
    d, base = os.path.split(prefix)
    calls: List[Call] = []
    first: Optional[int] = None
    last: Optional[int] = None
    for fn in os.listdir(d or "."):
        if not fn.startswith(base + "."):
            continue
        try:
            pid = int(fn[len(base) + 1:])
        except ValueError:
            continue
        with open(os.path.join(d, fn), "rb") as f:
            for line in f.read().split(b"\n"):
                c = parse_line(line, pid)
                if c is None:
                    continue
                if isinstance(c, Mark):
                    ts, end = c.ts, c.ts
                else:
                    ts, end = c.ts, c.ts + c.dur
                    calls.append(c)
                first = ts if first is None else min(first, ts)
                last = end if last is None else max(last, end)
    calls.sort(key=lambda c: (c.ts, c.pid))
    for i, c in enumerate(calls):
        c.seq = i
    return Logs(calls, first or 0, last or 0)
