"""Running strace: the one place that knows its command line."""
import shutil
import subprocess
import sys
from typing import List

# Only the file syscalls the recorder needs (plus fork/dup/seek/chdir to keep
# fd tables, offsets and relative paths right). With --seccomp-bpf every other syscall runs at
# full speed: strace is never woken for it.
TRACED = ("open,openat,openat2,creat,execve,execveat,"
          "read,pread64,readv,preadv,preadv2,"
          "write,pwrite64,writev,pwritev,pwritev2,"
          "copy_file_range,sendfile,mmap,close,lseek,"
          "stat,lstat,newfstatat,statx,"
          "unlink,unlinkat,rmdir,mkdir,mkdirat,rename,renameat,renameat2,"
          "chdir,fchdir,"
          "dup,dup2,dup3,fcntl,clone,clone3,fork,vfork")


def strace_path() -> str:
    p = shutil.which("strace")
    if not p:
        sys.exit("ppf-trace: strace not found; install it with: apt-get install strace")
    return p


def strace_version() -> str:
    out = subprocess.run([strace_path(), "-V"], capture_output=True, text=True).stdout
    return out.splitlines()[0].replace("-- version ", "").replace(" ", "-") if out else "strace"


def strace_argv(prefix: str, trace: str = TRACED) -> List[str]:
    return [strace_path(), "-ff", "-o", prefix, "--seccomp-bpf", "-e", "trace=" + trace,
            "-X", "raw", "-y", "-s", "0", "--timestamps=unix,ns", "--syscall-times=ns"]
