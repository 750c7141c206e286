"""Recorded by test_roundtrip.test_dup_events: every way to duplicate an fd,
the original closed and the data read through the copies (they share one
file offset, as binutils' ar/ranlib/ld do with an archive)."""
import fcntl
import os

fd = os.open("data.bin", os.O_RDONLY)
a = os.dup(fd)                                   # fcntl F_DUPFD_CLOEXEC (os.dup is non-inheritable)
os.close(fd)
os.read(a, 100)                                  # offset 0
b = fcntl.fcntl(a, fcntl.F_DUPFD, 10)            # fcntl F_DUPFD
c = fcntl.fcntl(a, fcntl.F_DUPFD_CLOEXEC, 20)    # fcntl F_DUPFD_CLOEXEC
os.dup2(a, 30)                                   # dup2
os.dup2(a, 31, inheritable=False)                # dup3(O_CLOEXEC)
os.read(b, 50)                                   # offset 100: shared with a
os.read(30, 10)                                  # offset 150
for x in (a, b, c, 30, 31):
    os.close(x)
