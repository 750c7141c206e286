"""A disk image as its non-zero extents, for the initramfs (eval/guest/nbcopy.c reads it).

Why: the image must reach the guest without a host-timed interrupt (a virtio
disk's completions seed the guest's RNG at host-dependent virtual times; see
docs/results.md, "Determinism"), so it travels in the initramfs, and the
initramfs lives in guest memory twice while the kernel unpacks it.  An ext4
image is mostly zeros (gnuld's: 1,344 MiB, of which ~300 MiB data), and
null_blk reads unwritten sectors as zeros, so only the non-zero 4 KiB blocks
need to travel.

Format (little endian):
    "PPFSPRS1"  u64 image size in bytes
    extents:    u64 offset, u64 length (both multiples of 4 KiB), the bytes
    end:        u64 image size, u64 0
Extents are in increasing order and do not overlap.
"""

from __future__ import annotations

import os
import struct
import tempfile
from pathlib import Path
from typing import BinaryIO, Iterator, Tuple

MAGIC = b"PPFSPRS1"
BLOCK = 4096
CHUNK = 1 << 20  # read unit; a multiple of BLOCK
_ZERO_BLOCK = bytes(BLOCK)
_ZERO_CHUNK = bytes(CHUNK)


def extents(f: BinaryIO) -> Iterator[Tuple[int, bytes]]:
    """(offset, data) of every maximal run of non-zero BLOCK-sized blocks."""
    off = 0
    start = -1
    run = bytearray()
    while True:
        chunk = f.read(CHUNK)
        if not chunk:
            break
        # an all-zero chunk (most of an image) is skipped without a block loop
        zero_chunk = chunk == _ZERO_CHUNK[:len(chunk)]
        for i in range(0, len(chunk), CHUNK if zero_chunk else BLOCK):
            b = chunk[i:i + BLOCK]
            if zero_chunk or b == _ZERO_BLOCK[:len(b)]:
                if start >= 0:
                    yield start, bytes(run)
                    start, run = -1, bytearray()
                continue
            if start < 0:
                start = off + i
            run += b
        off += len(chunk)
    if start >= 0:
        yield start, bytes(run)


def write_sparse(img: Path, out: Path) -> Tuple[int, int]:
    """img's non-zero extents in out.  Returns (image bytes, data bytes)."""
    size = img.stat().st_size
    if size % BLOCK:
        raise ValueError(f"{img}: size {size} is not a multiple of {BLOCK}")
    data = 0
    with open(img, "rb") as f, open(out, "wb") as o:
        o.write(MAGIC + struct.pack("<Q", size))
        for off, b in extents(f):
            o.write(struct.pack("<QQ", off, len(b)))
            o.write(b)
            data += len(b)
        o.write(struct.pack("<QQ", size, 0))
    return size, data


def sparse_image(img: Path) -> Path:
    """img.sparse next to img (made when missing or older than img)."""
    out = img.with_suffix(".sparse")
    if out.exists() and out.stat().st_mtime >= img.stat().st_mtime:
        return out
    # a file of its own, renamed into place: two VMs booting at once may both
    # make it, and neither may read the other's half-written copy
    fd, tmp = tempfile.mkstemp(prefix=out.name + ".", dir=out.parent)
    os.close(fd)
    write_sparse(img, Path(tmp))
    os.replace(tmp, out)
    return out


def read_sparse(path: Path) -> bytes:
    """The full image a sparse file describes (for tests and checks)."""
    with open(path, "rb") as f:
        head = f.read(16)
        if head[:8] != MAGIC:
            raise ValueError(f"{path}: not a ppf sparse image (magic {head[:8]!r})")
        (size,) = struct.unpack("<Q", head[8:])
        out = bytearray(size)
        while True:
            off, n = struct.unpack("<QQ", f.read(16))
            if n == 0:
                if off != size:
                    raise ValueError(f"{path}: end marker {off} != size {size}")
                return bytes(out)
            out[off:off + n] = f.read(n)
