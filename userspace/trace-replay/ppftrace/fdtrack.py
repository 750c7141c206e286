"""Turn merged strace calls into ppf events.

Keeps per-process fd tables of shared open-file descriptions so read()
without an offset gets its absolute offset, as the kernel would compute it
(dup and fork share the offset; CLONE_FILES shares the whole table).
"""
import errno
import os
from typing import Dict, List, NamedTuple, Optional, Set, Tuple, overload

from . import strace_log
from .strace_log import Call, FdArg

O_WRONLY, O_RDWR, O_CREAT, O_TRUNC, O_APPEND = 0o1, 0o2, 0o100, 0o1000, 0o2000
O_DIRECTORY, O_CLOEXEC = 0o200000, 0o2000000
CLONE_FILES = 0x400
AT_FDCWD = -100
AT_REMOVEDIR = 0x200
S_IFMT, S_IFREG, S_IFDIR = 0o170000, 0o100000, 0o040000
IGNORED_PREFIXES = (b"/proc/", b"/sys/", b"/dev/")


class OFD:
    """An open file description: what dup() and fork() share.

    inherited: the fd was open before the traced command started (stdin,
    stdout, stderr, or any other fd its parent left open): the calls on it
    are not the workload's file accesses and are not recorded."""
    __slots__ = ("path", "offset", "append", "inherited", "isdir")

    def __init__(self, path: Optional[bytes], offset: int = 0, append: bool = False,
                 inherited: bool = False) -> None:
        self.path, self.offset, self.append = path, offset, append
        self.inherited = inherited
        self.isdir = False  # opened with O_DIRECTORY: its open and close are not events


class FdEntry(NamedTuple):
    """One slot of a process's fd table."""
    ofd: OFD
    cloexec: bool


FdTable = Dict[int, FdEntry]


class RawEvent(NamedTuple):
    """One file event in call order, before the file table exists.

    args are the event's arguments after the file (fmt.OPS), but for a
    rename, whose target has no file id yet: its args are (flags, result)
    and target holds the target's path."""
    call: Call
    op: str
    path: bytes
    args: Tuple[int, ...]
    target: Optional[bytes] = None


def ignored(path: Optional[bytes]) -> bool:
    if path is None or not path.startswith(b"/"):
        return True  # pipe:[..], socket:[..], anon_inode:...
    return path in (b"/proc", b"/sys", b"/dev") or path.startswith(IGNORED_PREFIXES)


@overload
def clean(path: bytes) -> bytes: ...


@overload
def clean(path: None) -> None: ...


@overload
def clean(path: Optional[bytes]) -> Optional[bytes]: ...


def clean(path: Optional[bytes]) -> Optional[bytes]:
    return path[:-10] if path and path.endswith(b" (deleted)") else path


class Tracker:
    def __init__(self, cwd: bytes) -> None:
        self.fds: Dict[int, FdTable] = {}  # pid -> {fd: (OFD, cloexec)}
        self.cwd: Dict[int, bytes] = {}    # pid -> last known cwd
        self.start_cwd = cwd
        self.raw: List[RawEvent] = []      # in call order
        self.first_size: Dict[bytes, int] = {}  # path -> st_size seen before any write
        self.written: Set[bytes] = set()
        self.nonreg: Set[bytes] = set()    # paths stat showed as neither regular file nor directory
        self.dirs: Set[bytes] = set()      # paths seen to be directories (stat, O_DIRECTORY, mkdir, rmdir)
        self.nofollow: Set[bytes] = set()  # namespace-op paths: final component not resolved
        self.inherited_calls = 0  # read/write/mmap/close on inherited fds (not recorded)
        self.orphans: List[int] = []       # pids whose fd table started empty (no traced fork)

    def _table(self, pid: int) -> FdTable:
        if pid not in self.fds:
            # A process we did not see being forked: the first one (the
            # recorded command) is expected; any other means a missed fork.
            self.orphans.append(pid)
            self.fds[pid] = {}
            self.cwd.setdefault(pid, self.start_cwd)
        return self.fds[pid]

    def _resolve(self, pid: int, dirarg: Optional[FdArg], path: Optional[bytes]) -> Optional[bytes]:
        if path is None:
            return None
        if path.startswith(b"/"):
            return os.path.normpath(path)
        base = None
        if dirarg is not None:
            fd, dpath = dirarg
            if dpath is not None and dpath.startswith(b"/"):
                base = dpath
                if fd == AT_FDCWD:
                    self.cwd[pid] = dpath
        if base is None:
            base = self.cwd.get(pid, self.start_cwd)
        return os.path.normpath(os.path.join(base, path))

    def _ofd(self, pid: int, fd: int, path: Optional[bytes]) -> OFD:
        t = self._table(pid)
        ent = t.get(fd)
        if ent is None:
            # Not opened inside the trace: inherited from outside it (the
            # recorded command's stdin/stdout/stderr or other open fds).
            ent = t[fd] = FdEntry(OFD(path, inherited=True), False)
        elif ent.ofd.path != path:
            # we missed its origin (or a rename we could not follow)
            ent = t[fd] = FdEntry(OFD(path), ent.cloexec)
        return ent.ofd

    def _emit(self, c: Call, op: str, path: Optional[bytes], *args: int,
              target: Optional[bytes] = None) -> None:
        path = clean(path)
        if path is None or ignored(path):
            return
        self.raw.append(RawEvent(c, op, path, args, target))

    def _io(self, c: Call, op: str, fd: int, path: bytes, off: Optional[int],
            length: Optional[int]) -> None:
        path = clean(path)
        if ignored(path):
            return
        ofd = self._ofd(c.pid, fd, path)
        if ofd.inherited:
            self.inherited_calls += 1
            return
        res = c.ret
        if off is None:  # implicit offset: the shared file position
            off = ofd.offset
            if op == "write" and ofd.append:
                off = max(self.first_size.get(path, 0), ofd.offset)
            if res > 0:
                ofd.offset = off + res
        if op == "write" and res >= 0:
            self.written.add(path)
        self._emit(c, op, path, fd, off, length if length is not None else max(res, 0),
                   res if res >= 0 else -errno_num(c.err))

    def feed(self, c: Call) -> bool:
        """Returns False if the call could not be decoded (it is skipped)."""
        try:
            getattr(self, "_sys_" + c.name, self._sys_ignore)(c)
            return True
        except (ValueError, IndexError):
            return False

    def _sys_ignore(self, c: Call) -> None:
        pass

    # --- opens -----------------------------------------------------------
    def _open(self, c: Call, dirarg: Optional[FdArg], patharg: bytes, flags: int) -> None:
        pid = c.pid
        if c.ret >= 0:
            path = clean(c.ret_path)
            t = self._table(pid)
            t[c.ret] = FdEntry(OFD(path, 0, bool(flags & O_APPEND)), bool(flags & O_CLOEXEC))
            if flags & O_DIRECTORY:
                t[c.ret].ofd.isdir = True
                if path:
                    self.dirs.add(path)
                return  # directory opens (getdents, *at bases) are not events
            if path is None or ignored(path):
                return
            if flags & O_TRUNC:
                self.written.add(path)
            self._emit(c, "open", path, flags, c.ret)
        elif not flags & O_DIRECTORY:  # e.g. mv probing its target: not a file access
            path = self._resolve(pid, dirarg, strace_log.string_arg(patharg))
            self._emit(c, "open", path, flags, -errno_num(c.err))

    def _sys_openat(self, c: Call) -> None:
        if len(c.args) >= 3:
            self._open(c, strace_log.fd_path(c.args[0]), c.args[1], strace_log.num(c.args[2]))

    def _sys_open(self, c: Call) -> None:
        if len(c.args) >= 2:
            self._open(c, None, c.args[0], strace_log.num(c.args[1]))

    def _sys_creat(self, c: Call) -> None:
        if c.args:
            self._open(c, None, c.args[0], O_CREAT | O_WRONLY | O_TRUNC)

    def _sys_openat2(self, c: Call) -> None:
        if len(c.args) >= 3:
            fl = 0
            for part in c.args[2].strip(b"{}").split(b", "):
                if part.startswith(b"flags="):
                    fl = strace_log.num(part[6:])
            self._open(c, strace_log.fd_path(c.args[0]), c.args[1], fl)

    # --- exec ------------------------------------------------------------
    def _sys_execve(self, c: Call) -> None:
        if not c.args:
            return
        path = self._resolve(c.pid, None, strace_log.string_arg(c.args[0]))
        if path is not None:
            path = os.path.realpath(path) if c.ret == 0 else path
        self._emit(c, "exec", path, c.ret if c.ret >= 0 else -errno_num(c.err))
        if c.ret == 0:
            t = self._table(c.pid)
            for fd in [fd for fd, ent in t.items() if ent.cloexec]:
                del t[fd]

    def _sys_execveat(self, c: Call) -> None:
        if len(c.args) >= 2:
            path = self._resolve(c.pid, strace_log.fd_path(c.args[0]), strace_log.string_arg(c.args[1]))
            self._emit(c, "exec", path, c.ret if c.ret >= 0 else -errno_num(c.err))

    # --- data ------------------------------------------------------------
    def _fdarg(self, c: Call, i: int = 0) -> FdArg:
        return strace_log.fd_path(c.args[i]) if len(c.args) > i else FdArg(None, None)

    def _rw(self, c: Call, op: str, off_idx: Optional[int] = None, len_idx: Optional[int] = 2) -> None:
        fd, path = self._fdarg(c)
        if fd is None or path is None:
            return
        off = strace_log.num(c.args[off_idx]) if off_idx is not None and len(c.args) > off_idx else None
        if off is not None and off < 0:
            off = None  # preadv2/pwritev2 offset -1: use the file position
        length = strace_log.num(c.args[len_idx]) if len_idx is not None and len(c.args) > len_idx else None
        self._io(c, op, fd, path, off, length)

    def _sys_read(self, c: Call) -> None: self._rw(c, "read")
    def _sys_pread64(self, c: Call) -> None: self._rw(c, "read", 3)
    def _sys_readv(self, c: Call) -> None: self._rw(c, "read", None, None)
    def _sys_preadv(self, c: Call) -> None: self._rw(c, "read", 3, None)
    def _sys_preadv2(self, c: Call) -> None: self._rw(c, "read", 3, None)
    def _sys_write(self, c: Call) -> None: self._rw(c, "write")
    def _sys_pwrite64(self, c: Call) -> None: self._rw(c, "write", 3)
    def _sys_writev(self, c: Call) -> None: self._rw(c, "write", None, None)
    def _sys_pwritev(self, c: Call) -> None: self._rw(c, "write", 3, None)
    def _sys_pwritev2(self, c: Call) -> None: self._rw(c, "write", 3, None)

    def _copy(self, c: Call, in_i: int, in_off_i: Optional[int], out_i: int,
              out_off_i: Optional[int], len_i: int) -> None:
        """copy_file_range/sendfile move data without read(): log both sides."""
        if len(c.args) <= len_i:
            return
        length = strace_log.num(c.args[len_i])
        for op, fi, oi in (("read", in_i, in_off_i), ("write", out_i, out_off_i)):
            fd, path = strace_log.fd_path(c.args[fi])
            if fd is None or path is None:
                continue
            off: Optional[int] = None
            if oi is not None and c.args[oi].startswith(b"["):
                # strace shows the offset after the call; the call started before it
                off = strace_log.num(c.args[oi].strip(b"[]")) - max(c.ret, 0)
            self._io(c, op, fd, path, off, length)

    def _sys_copy_file_range(self, c: Call) -> None: self._copy(c, 0, 1, 2, 3, 4)
    def _sys_sendfile(self, c: Call) -> None: self._copy(c, 1, 2, 0, None, 3)

    def _sys_mmap(self, c: Call) -> None:
        if len(c.args) < 6 or c.ret < 0:
            return
        fd, path = strace_log.fd_path(c.args[4])
        if fd is None or fd < 0 or path is None:
            return
        if not ignored(clean(path)) and self._ofd(c.pid, fd, clean(path)).inherited:
            self.inherited_calls += 1
            return
        self._emit(c, "mmap", clean(path), fd, strace_log.num(c.args[5]), strace_log.num(c.args[1]),
                   strace_log.num(c.args[2]))

    def _sys_lseek(self, c: Call) -> None:
        fd, path = self._fdarg(c)
        if fd is not None and path is not None and c.ret >= 0:
            self._ofd(c.pid, fd, clean(path)).offset = c.ret

    def _sys_close(self, c: Call) -> None:
        fd, path = self._fdarg(c)
        if fd is None:
            return
        ent = self._table(c.pid).pop(fd, None)
        if path is None or ignored(clean(path)):
            return
        if ent is not None and ent.ofd.isdir:
            return
        if ent is None or ent.ofd.inherited:
            self.inherited_calls += 1
            return
        self._emit(c, "close", path, fd, c.ret if c.ret >= 0 else -errno_num(c.err))

    # --- fd table ----------------------------------------------------------
    def _dup(self, c: Call, cloexec: bool = False) -> None:
        """dup, dup2, dup3, fcntl F_DUPFD[_CLOEXEC]: the new fd shares the
        description. On a traced file it is a dup event (version 3), so the
        replay duplicates its fd instead of opening the file again."""
        fd, path = self._fdarg(c)
        if fd is None or c.ret < 0:
            return
        t = self._table(c.pid)
        ofd = t[fd].ofd if fd in t else OFD(clean(path) if path else None, inherited=True)
        t[c.ret] = FdEntry(ofd, cloexec)
        if c.ret == fd or ofd.inherited or ofd.isdir or path is None:
            return  # dup2(fd, fd) changes nothing; inherited fds and directories are not events
        self._emit(c, "dup", path, fd, O_CLOEXEC if cloexec else 0, c.ret)

    def _sys_dup(self, c: Call) -> None: self._dup(c)
    def _sys_dup2(self, c: Call) -> None: self._dup(c)

    def _sys_dup3(self, c: Call) -> None:
        self._dup(c, len(c.args) > 2 and bool(strace_log.num(c.args[2]) & O_CLOEXEC))

    def _sys_fcntl(self, c: Call) -> None:
        if len(c.args) >= 2 and c.args[1] in (b"0", b"0x0", b"0x406", b"1030"):  # F_DUPFD[_CLOEXEC]
            self._dup(c, c.args[1] in (b"0x406", b"1030"))

    def _fork(self, c: Call, flags: int) -> None:
        if c.ret <= 0:
            return
        parent = self._table(c.pid)
        # CLONE_FILES shares the table; otherwise the child gets a copy whose
        # slots share the parent's open file descriptions.
        self.fds[c.ret] = parent if flags & CLONE_FILES else dict(parent)
        self.cwd[c.ret] = self.cwd.get(c.pid, self.start_cwd)

    def _sys_clone(self, c: Call) -> None:
        fl = 0
        for a in c.args:
            if a.startswith(b"flags="):
                fl = strace_log.num(a[6:].split(b"|")[0])
        self._fork(c, fl)

    def _sys_clone3(self, c: Call) -> None:
        fl = 0
        if c.args:
            for part in c.args[0].strip(b"{}").split(b", "):
                if part.startswith(b"flags="):
                    fl = strace_log.num(part[6:].split(b"|")[0])
        self._fork(c, fl)

    def _sys_fork(self, c: Call) -> None: self._fork(c, 0)
    def _sys_vfork(self, c: Call) -> None: self._fork(c, 0)

    # --- stat ------------------------------------------------------------
    def _stat(self, c: Call, dirarg: Optional[FdArg], patharg: bytes, statbuf: Optional[bytes],
              mode_key: bytes, size_key: bytes, empty_ok: bool) -> None:
        sp = strace_log.string_arg(patharg)
        mode: Optional[int] = None
        size: Optional[int] = None
        if statbuf is not None:
            for part in statbuf.strip(b"{}").split(b", "):
                if part.startswith(mode_key):
                    mode = strace_log.num(part[len(mode_key):].split(b"|")[0])
                elif part.startswith(size_key):
                    size = strace_log.num(part[len(size_key):])
        if sp == b"" and empty_ok:  # fstat of an fd: a size sample, not a lookup
            fd, dpath = dirarg if dirarg else FdArg(None, None)
            path = clean(dpath)
            if path and size is not None and mode is not None and mode & S_IFMT == S_IFREG \
                    and path not in self.written:
                self.first_size.setdefault(path, size)
            return
        path = self._resolve(c.pid, dirarg, sp)
        if path is None:
            return
        if c.ret == 0 and mode is not None:
            if mode & S_IFMT != S_IFREG:
                real = os.path.realpath(path)
                (self.dirs if mode & S_IFMT == S_IFDIR else self.nonreg).add(real)
                return
            real = os.path.realpath(path)
            if size is not None and real not in self.written:
                self.first_size.setdefault(real, size)
        self._emit(c, "stat", path, c.ret if c.ret >= 0 else -errno_num(c.err))

    def _sys_newfstatat(self, c: Call) -> None:
        if len(c.args) >= 3:
            self._stat(c, strace_log.fd_path(c.args[0]), c.args[1], c.args[2],
                       b"st_mode=", b"st_size=", True)

    def _sys_stat(self, c: Call) -> None:
        if len(c.args) >= 2:
            self._stat(c, None, c.args[0], c.args[1], b"st_mode=", b"st_size=", False)

    _sys_lstat = _sys_stat

    def _sys_statx(self, c: Call) -> None:
        if len(c.args) >= 5:
            self._stat(c, strace_log.fd_path(c.args[0]), c.args[1], c.args[4],
                       b"stx_mode=", b"stx_size=", True)

    # --- cwd ----------------------------------------------------------------
    def _sys_chdir(self, c: Call) -> None:
        if c.args and c.ret == 0:
            p = self._resolve(c.pid, None, strace_log.string_arg(c.args[0]))
            if p is not None:
                self.cwd[c.pid] = p

    def _sys_fchdir(self, c: Call) -> None:
        fd, path = self._fdarg(c)
        if path is not None and path.startswith(b"/") and c.ret == 0:
            self.cwd[c.pid] = clean(path)

    # --- namespace ----------------------------------------------------------
    def _npath(self, pid: int, dirarg: Optional[FdArg], patharg: bytes) -> Optional[bytes]:
        """Path of a namespace op: the directory part canonical, the final
        component not followed (unlink and rename act on a symlink itself)."""
        p = self._resolve(pid, dirarg, strace_log.string_arg(patharg))
        if p is None or p == b"/":
            return p
        d, b = os.path.split(p)
        p = os.path.join(os.path.realpath(d), b)
        self.nofollow.add(p)
        return p

    def _res(self, c: Call) -> int:
        return c.ret if c.ret >= 0 else -errno_num(c.err)

    def _unlink(self, c: Call, dirarg: Optional[FdArg], patharg: bytes, flags: int) -> None:
        path = self._npath(c.pid, dirarg, patharg)
        if flags & AT_REMOVEDIR:
            if path is not None:
                self.dirs.add(path)
            self._emit(c, "rmdir", path, self._res(c))
        else:
            self._emit(c, "unlink", path, self._res(c))

    def _sys_unlink(self, c: Call) -> None:
        if c.args:
            self._unlink(c, None, c.args[0], 0)

    def _sys_unlinkat(self, c: Call) -> None:
        if len(c.args) >= 3:
            self._unlink(c, strace_log.fd_path(c.args[0]), c.args[1], strace_log.num(c.args[2]))

    def _sys_rmdir(self, c: Call) -> None:
        if c.args:
            self._unlink(c, None, c.args[0], AT_REMOVEDIR)

    def _mkdir(self, c: Call, dirarg: Optional[FdArg], patharg: bytes) -> None:
        path = self._npath(c.pid, dirarg, patharg)
        if path is not None:
            self.dirs.add(path)
        self._emit(c, "mkdir", path, self._res(c))

    def _sys_mkdir(self, c: Call) -> None:
        if c.args:
            self._mkdir(c, None, c.args[0])

    def _sys_mkdirat(self, c: Call) -> None:
        if len(c.args) >= 2:
            self._mkdir(c, strace_log.fd_path(c.args[0]), c.args[1])

    def _rename(self, c: Call, odir: Optional[FdArg], opath: bytes, ndir: Optional[FdArg],
                npath: bytes, flags: int) -> None:
        old = self._npath(c.pid, odir, opath)
        new = self._npath(c.pid, ndir, npath)
        if old is None or new is None or ignored(old) or ignored(new):
            return
        if old in self.dirs:
            self.dirs.add(new)
        if c.ret == 0:
            # Open fds follow the file: strace -y shows the new name from now on.
            pre = old + b"/"
            for t in {id(t): t for t in self.fds.values()}.values():
                for ent in t.values():
                    p = ent.ofd.path
                    if p == old:
                        ent.ofd.path = new
                    elif p and p.startswith(pre):
                        ent.ofd.path = new + p[len(old):]
        self._emit(c, "rename", old, flags, self._res(c), target=new)

    def _sys_rename(self, c: Call) -> None:
        if len(c.args) >= 2:
            self._rename(c, None, c.args[0], None, c.args[1], 0)

    def _sys_renameat(self, c: Call) -> None:
        if len(c.args) >= 4:
            self._rename(c, strace_log.fd_path(c.args[0]), c.args[1],
                         strace_log.fd_path(c.args[2]), c.args[3], 0)

    def _sys_renameat2(self, c: Call) -> None:
        if len(c.args) >= 5:
            self._rename(c, strace_log.fd_path(c.args[0]), c.args[1],
                         strace_log.fd_path(c.args[2]), c.args[3], strace_log.num(c.args[4]))


def errno_num(name: Optional[str]) -> int:
    return getattr(errno, name, errno.EIO) if name else errno.EIO
