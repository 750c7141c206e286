"""Turn merged strace calls into ppf events.

Keeps per-process fd tables of shared open-file descriptions so read()
without an offset gets its absolute offset, as the kernel would compute it
(dup and fork share the offset; CLONE_FILES shares the whole table).
"""
import errno
import os

O_WRONLY, O_RDWR, O_CREAT, O_TRUNC, O_APPEND = 0o1, 0o2, 0o100, 0o1000, 0o2000
O_DIRECTORY, O_CLOEXEC = 0o200000, 0o2000000
CLONE_FILES = 0x400
AT_FDCWD = -100
S_IFMT, S_IFREG = 0o170000, 0o100000
IGNORED_PREFIXES = (b"/proc/", b"/sys/", b"/dev/")


class OFD:
    """An open file description: what dup() and fork() share."""
    __slots__ = ("path", "offset", "append")

    def __init__(self, path, offset=0, append=False):
        self.path, self.offset, self.append = path, offset, append


def ignored(path):
    if path is None or not path.startswith(b"/"):
        return True  # pipe:[..], socket:[..], anon_inode:...
    return path in (b"/proc", b"/sys", b"/dev") or path.startswith(IGNORED_PREFIXES)


def clean(path):
    return path[:-10] if path and path.endswith(b" (deleted)") else path


class Tracker:
    def __init__(self, cwd: bytes):
        self.fds = {}      # pid -> {fd: [OFD, cloexec]}
        self.cwd = {}      # pid -> last known cwd
        self.start_cwd = cwd
        self.raw = []      # (call, op, abspath, args) in call order
        self.first_size = {}   # path -> st_size seen before any write
        self.written = set()
        self.created_open = {}  # path -> first successful open had O_CREAT
        self.seen_existing = set()
        self.nonreg = set()
        self.dirs = set()

    def _table(self, pid):
        if pid not in self.fds:
            self.fds[pid] = {}
            self.cwd.setdefault(pid, self.start_cwd)
        return self.fds[pid]

    def _resolve(self, pid, dirarg, path):
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

    def _ofd(self, pid, fd, path):
        t = self._table(pid)
        ent = t.get(fd)
        if ent is None or ent[0].path != path:
            # fd inherited from outside the trace, or we missed its origin
            ent = t[fd] = [OFD(path), False]
        return ent[0]

    def _emit(self, c, op, path, *args):
        path = clean(path)
        if ignored(path):
            return
        self.raw.append((c, op, path, args))

    def _io(self, c, op, fd, path, off, length):
        path = clean(path)
        if ignored(path):
            return
        ofd = self._ofd(c.pid, fd, path)
        res = c.ret
        if off is None:  # implicit offset: the shared file position
            off = ofd.offset
            if op == "write" and ofd.append:
                off = max(self.first_size.get(path, 0), ofd.offset)
            if res > 0:
                ofd.offset = off + res
        if op == "write" and res >= 0:
            self.written.add(path)
        elif op == "read" and res > 0 and path not in self.written:
            self.seen_existing.add(path)
        self._emit(c, op, path, fd, off, length if length is not None else max(res, 0),
                   res if res >= 0 else -errno_num(c.err))

    def feed(self, c):
        """Returns False if the call could not be decoded (it is skipped)."""
        try:
            getattr(self, "_sys_" + c.name, self._sys_ignore)(c)
            return True
        except (ValueError, IndexError):
            return False

    def _sys_ignore(self, c):
        pass

    # --- opens -----------------------------------------------------------
    def _open(self, c, dirarg, patharg, flags):
        pid = c.pid
        if c.ret >= 0:
            path = clean(c.ret_path)
            t = self._table(pid)
            t[c.ret] = [OFD(path, 0, bool(flags & O_APPEND)), bool(flags & O_CLOEXEC)]
            if flags & O_DIRECTORY or ignored(path):
                return
            self.created_open.setdefault(path, bool(flags & O_CREAT))
            if not flags & O_CREAT:
                self.seen_existing.add(path)
            if flags & O_TRUNC:
                self.written.add(path)
            self._emit(c, "open", path, flags, c.ret)
        else:
            path = self._resolve(pid, dirarg, strace_log.string_arg(patharg))
            self._emit(c, "open", path, flags, -errno_num(c.err))

    def _sys_openat(self, c):
        if len(c.args) >= 3:
            self._open(c, strace_log.fd_path(c.args[0]), c.args[1], strace_log.num(c.args[2]))

    def _sys_open(self, c):
        if len(c.args) >= 2:
            self._open(c, None, c.args[0], strace_log.num(c.args[1]))

    def _sys_creat(self, c):
        if c.args:
            self._open(c, None, c.args[0], O_CREAT | O_WRONLY | O_TRUNC)

    def _sys_openat2(self, c):
        if len(c.args) >= 3:
            fl = 0
            for part in c.args[2].strip(b"{}").split(b", "):
                if part.startswith(b"flags="):
                    fl = strace_log.num(part[6:])
            self._open(c, strace_log.fd_path(c.args[0]), c.args[1], fl)

    # --- exec ------------------------------------------------------------
    def _sys_execve(self, c):
        if not c.args:
            return
        path = self._resolve(c.pid, None, strace_log.string_arg(c.args[0]))
        if path is not None:
            path = os.path.realpath(path) if c.ret == 0 else path
        self._emit(c, "exec", path, c.ret if c.ret >= 0 else -errno_num(c.err))
        if c.ret == 0:
            t = self._table(c.pid)
            for fd in [fd for fd, ent in t.items() if ent[1]]:
                del t[fd]

    def _sys_execveat(self, c):
        if len(c.args) >= 2:
            path = self._resolve(c.pid, strace_log.fd_path(c.args[0]), strace_log.string_arg(c.args[1]))
            self._emit(c, "exec", path, c.ret if c.ret >= 0 else -errno_num(c.err))

    # --- data ------------------------------------------------------------
    def _fdarg(self, c, i=0):
        return strace_log.fd_path(c.args[i]) if len(c.args) > i else (None, None)

    def _rw(self, c, op, off_idx=None, len_idx=2):
        fd, path = self._fdarg(c)
        if fd is None or path is None:
            return
        off = strace_log.num(c.args[off_idx]) if off_idx is not None and len(c.args) > off_idx else None
        if off is not None and off < 0:
            off = None  # preadv2/pwritev2 offset -1: use the file position
        length = strace_log.num(c.args[len_idx]) if len_idx is not None and len(c.args) > len_idx else None
        self._io(c, op, fd, path, off, length)

    def _sys_read(self, c): self._rw(c, "read")
    def _sys_pread64(self, c): self._rw(c, "read", 3)
    def _sys_readv(self, c): self._rw(c, "read", None, None)
    def _sys_preadv(self, c): self._rw(c, "read", 3, None)
    def _sys_preadv2(self, c): self._rw(c, "read", 3, None)
    def _sys_write(self, c): self._rw(c, "write")
    def _sys_pwrite64(self, c): self._rw(c, "write", 3)
    def _sys_writev(self, c): self._rw(c, "write", None, None)
    def _sys_pwritev(self, c): self._rw(c, "write", 3, None)
    def _sys_pwritev2(self, c): self._rw(c, "write", 3, None)

    def _copy(self, c, in_i, in_off_i, out_i, out_off_i, len_i):
        """copy_file_range/sendfile move data without read(): log both sides."""
        if len(c.args) <= len_i:
            return
        length = strace_log.num(c.args[len_i])
        for op, fi, oi in (("read", in_i, in_off_i), ("write", out_i, out_off_i)):
            fd, path = strace_log.fd_path(c.args[fi])
            if fd is None or path is None:
                continue
            off = None
            if oi is not None and c.args[oi].startswith(b"["):
                # strace shows the offset after the call; the call started before it
                off = strace_log.num(c.args[oi].strip(b"[]")) - max(c.ret, 0)
            self._io(c, op, fd, path, off, length)

    def _sys_copy_file_range(self, c): self._copy(c, 0, 1, 2, 3, 4)
    def _sys_sendfile(self, c): self._copy(c, 1, 2, 0, None, 3)

    def _sys_mmap(self, c):
        if len(c.args) < 6 or c.ret < 0:
            return
        fd, path = strace_log.fd_path(c.args[4])
        if fd is None or fd < 0 or path is None:
            return
        self._emit(c, "mmap", clean(path), fd, strace_log.num(c.args[5]), strace_log.num(c.args[1]),
                   strace_log.num(c.args[2]))

    def _sys_lseek(self, c):
        fd, path = self._fdarg(c)
        if fd is not None and path is not None and c.ret >= 0:
            self._ofd(c.pid, fd, clean(path)).offset = c.ret

    def _sys_close(self, c):
        fd, path = self._fdarg(c)
        if fd is None:
            return
        self._table(c.pid).pop(fd, None)
        if path is not None:
            self._emit(c, "close", path, fd, c.ret if c.ret >= 0 else -errno_num(c.err))

    # --- fd table ----------------------------------------------------------
    def _dup(self, c, cloexec=False):
        fd, path = self._fdarg(c)
        if fd is None or c.ret < 0:
            return
        t = self._table(c.pid)
        ofd = t[fd][0] if fd in t else OFD(clean(path) if path else None)
        t[c.ret] = [ofd, cloexec]

    def _sys_dup(self, c): self._dup(c)
    def _sys_dup2(self, c): self._dup(c)

    def _sys_dup3(self, c):
        self._dup(c, len(c.args) > 2 and bool(strace_log.num(c.args[2]) & O_CLOEXEC))

    def _sys_fcntl(self, c):
        if len(c.args) >= 2 and c.args[1] in (b"0", b"0x0", b"0x406", b"1030"):  # F_DUPFD[_CLOEXEC]
            self._dup(c, c.args[1] in (b"0x406", b"1030"))

    def _fork(self, c, flags):
        if c.ret <= 0:
            return
        parent = self._table(c.pid)
        self.fds[c.ret] = parent if flags & CLONE_FILES else {
            fd: [ent[0], ent[1]] for fd, ent in parent.items()}
        self.cwd[c.ret] = self.cwd.get(c.pid, self.start_cwd)

    def _sys_clone(self, c):
        fl = 0
        for a in c.args:
            if a.startswith(b"flags="):
                fl = strace_log.num(a[6:].split(b"|")[0])
        self._fork(c, fl)

    def _sys_clone3(self, c):
        fl = 0
        if c.args:
            for part in c.args[0].strip(b"{}").split(b", "):
                if part.startswith(b"flags="):
                    fl = strace_log.num(part[6:].split(b"|")[0])
        self._fork(c, fl)

    def _sys_fork(self, c): self._fork(c, 0)
    def _sys_vfork(self, c): self._fork(c, 0)

    # --- stat ------------------------------------------------------------
    def _stat(self, c, dirarg, patharg, statbuf, mode_key, size_key, empty_ok):
        sp = strace_log.string_arg(patharg)
        mode = size = None
        if statbuf is not None:
            for part in statbuf.strip(b"{}").split(b", "):
                if part.startswith(mode_key):
                    mode = strace_log.num(part[len(mode_key):].split(b"|")[0])
                elif part.startswith(size_key):
                    size = strace_log.num(part[len(size_key):])
        if sp == b"" and empty_ok:  # fstat of an fd: a size sample, not a lookup
            fd, path = dirarg if dirarg else (None, None)
            path = clean(path)
            if path and size is not None and mode is not None and mode & S_IFMT == S_IFREG \
                    and path not in self.written:
                self.first_size.setdefault(path, size)
            return
        path = self._resolve(c.pid, dirarg, sp)
        if path is None:
            return
        if c.ret == 0 and mode is not None:
            if mode & S_IFMT != S_IFREG:
                self.nonreg.add(path)
                return
            real = os.path.realpath(path)
            if size is not None and real not in self.written:
                self.first_size.setdefault(real, size)
                self.seen_existing.add(real)
        self._emit(c, "stat", path, c.ret if c.ret >= 0 else -errno_num(c.err))

    def _sys_newfstatat(self, c):
        if len(c.args) >= 3:
            self._stat(c, strace_log.fd_path(c.args[0]), c.args[1], c.args[2],
                       b"st_mode=", b"st_size=", True)

    def _sys_stat(self, c):
        if len(c.args) >= 2:
            self._stat(c, None, c.args[0], c.args[1], b"st_mode=", b"st_size=", False)

    _sys_lstat = _sys_stat

    def _sys_statx(self, c):
        if len(c.args) >= 5:
            self._stat(c, strace_log.fd_path(c.args[0]), c.args[1], c.args[4],
                       b"stx_mode=", b"stx_size=", True)


def errno_num(name):
    return getattr(errno, name, errno.EIO) if name else errno.EIO

from . import strace_log  # noqa: E402  (after class to keep the import cycle-free)
