"""Known I/O pattern for the round-trip test: each step's expected
(op, offset, len, result) is listed in test_roundtrip.py."""
import mmap
import os

fd = os.open("data.bin", os.O_RDONLY)
os.read(fd, 100)             # read   0..100
os.lseek(fd, 1000, os.SEEK_SET)
os.read(fd, 50)              # read   1000..1050
os.pread(fd, 10, 5000)       # pread  5000..5010, file position unchanged
os.read(fd, 20)              # read   1050..1070
fd2 = os.dup(fd)
os.read(fd2, 30)             # dup shares the position: 1070..1100
pid = os.fork()
if pid == 0:
    os.read(fd, 40)          # child shares it too: 1100..1140
    os._exit(0)
os.waitpid(pid, 0)
os.read(fd, 1)               # 1140..1141
os.lseek(fd, -92, os.SEEK_END)
os.read(fd, 200)             # short read at EOF: 8100, len 200, result 92
os.close(fd2)
m = mmap.mmap(fd, 4096, prot=mmap.PROT_READ, offset=4096)
m.close()
os.close(fd)
out = os.open("out dir/new file.bin", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
os.write(out, b"x" * 300)    # write 0..300 to a new file
os.close(out)
