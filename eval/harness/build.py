"""Cached builds: test kernel, module, ppf-replay, guest helpers, initramfs,
the workload's ext4 image.  Everything big lives under $PPF_CACHE/eval."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, Sequence, Tuple

from ..vm import kernel
from ..vm.config import BASE
from ..vm.kernel import sh
from .workloads import TOP, Workload

# A cache of the evaluation's own (module build dir included): the kernel
# tests may build the module at the same time.
CACHE = kernel.CACHE / "eval"
GUEST = TOP / "eval" / "guest"
REPLAY = TOP / "userspace" / "trace-replay" / "replay" / "ppf-replay"

PACKAGES = ["e2fsprogs", "gcc", "libc6-dev", "make", "python3", "qemu-system-x86",
            "zlib1g-dev", "busybox-static", "python3-matplotlib", "blktrace"]


def log(msg: str) -> None:
    print(f"harness: {msg}", file=sys.stderr, flush=True)


def ensure_packages(extra: Sequence[str] = ()) -> None:
    """Install what is missing (scripts/install-deps.sh says what it does)."""
    kernel.ensure_packages([*PACKAGES, *extra])


def build_replay() -> Path:
    """ppf-replay, static, built from this checkout (make: only if changed)."""
    log("building ppf-replay (static)")
    sh(["make", "-s", "-C", TOP / "userspace" / "trace-replay", "replay"])
    return REPLAY


class Built:
    """Paths of everything a VM needs, built once per process."""

    def __init__(self, fio: bool = False) -> None:
        t0 = time.monotonic()
        CACHE.mkdir(parents=True, exist_ok=True)
        log("building the test kernel (cached)")
        self.kdir = kernel.build_kernel(BASE)
        log(f"building the module against {self.kdir}")
        self.ko = kernel.build_module(self.kdir, CACHE)
        self.replay = build_replay()
        self.helpers = self._helpers()
        self.initrd = self._initramfs(fio)
        self.seconds = time.monotonic() - t0

    # The cache is shared by every checkout on the machine: what is built
    # there is named by the digest of its sources, not judged by mtimes (a
    # fresh clone's older source once kept, another's newer one replaced, the
    # binary the other checkout needed).

    def _helpers(self) -> Dict[str, Path]:
        out = {}
        d = CACHE / "bin"
        d.mkdir(parents=True, exist_ok=True)
        for name in ("bootlist", "oracle", "nbcopy"):
            src = GUEST / f"{name}.c"
            # named by the digest of the source and of the headers it may include
            digest = (sha(src) if name == "nbcopy" else
                      sha(src, GUEST / "start_mark.h", GUEST / "range_list.h"))
            dst = d / f"{name}-{digest}"
            if not dst.exists():
                tmp = d / f".{dst.name}.{os.getpid()}"
                kernel.build_static(src, tmp)
                tmp.rename(dst)
            out[name] = dst
        return out

    def _initramfs(self, fio: bool) -> Path:
        vm = TOP / "eval" / "vm"
        digest = hashlib.sha256(b"".join(sha(vm / f).encode() for f in
                                         ("initramfs.sh", "init", "ppf-clock.c")))
        kind = "fio" if fio else "blktrace"
        out = CACHE / f"initramfs-{kind}-{digest.hexdigest()[:12]}.cpio"
        if not out.exists():
            kernel.make_initramfs(out, options=[f"--{kind}"], quiet=True)
        return out

    def identity(self) -> Dict[str, str]:
        def git(*a: str) -> str:
            r = subprocess.run(["git", "-C", str(TOP), *a], text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
            return r.stdout.strip()
        return {"git": git("rev-parse", "--short", "HEAD"),
                "dirty": "yes" if git("status", "--porcelain", "--", "fs", "mm", "models",
                                      "Kbuild") else "no",
                "kdir": self.kdir.name, "module_sha256": sha(self.ko),
                "replay_sha256": sha(self.replay)}


def sha(path: Path, *more: Path) -> str:
    """The first 12 hex digits of path's SHA-256 (of path and more, in turn)."""
    h = hashlib.sha256(path.read_bytes())
    for p in more:
        h.update(p.read_bytes())
    return h.hexdigest()[:12]


def workload_image(w: Workload, trace: Path, others: Sequence[Path] = ()) -> Tuple[Path, int]:
    """The workload's file tree (ppf-replay build-tree) as an ext4 image,
    tree under /t.  Returns (image, size in MiB).  Cached by trace digest.
    others: traces with other file tables (other recorded runs the warm-ups
    replay), built into the tree first, so the image holds their files too."""
    key = f"{w.name}-{sha(trace)}-{w.room_mb}-v2" + "".join(f"+{sha(o)}" for o in others)
    img = CACHE / "images" / f"{key}.img"
    if img.exists():
        return img, img.stat().st_size >> 20
    t0 = time.monotonic()
    img.parent.mkdir(parents=True, exist_ok=True)
    stage = CACHE / "trees" / key
    if stage.exists():
        shutil.rmtree(stage)
    (stage / "t").mkdir(parents=True)
    log(f"building {w.name}'s file tree (ppf-replay build-tree)")
    for o in (*others, trace):
        sh([REPLAY, "build-tree", o, stage / "t"], stdout=subprocess.DEVNULL)
    size_mb = mkfs_image(stage, img, w.room_mb)
    shutil.rmtree(stage)
    log(f"image {img} ({size_mb} MiB) in {time.monotonic() - t0:.0f} s")
    return img, size_mb


def mkfs_image(stage: Path, img: Path, room_mb: int) -> int:
    """stage's contents as an ext4 image at img (written to a .tmp first),
    with room_mb MiB free for the files the run creates.  Returns its size
    in MiB.  The same for every machine: fixed UUID, hash seed and time."""
    du = int(sh(["du", "-sm", "--apparent-size", stage], stdout=subprocess.PIPE)
             .stdout.split()[0])
    nfiles = int(sh(["sh", "-c", f"find {stage} | wc -l"], stdout=subprocess.PIPE).stdout)
    size_mb = int(du * 1.10) + nfiles * 8 // 1024 + room_mb + 64
    size_mb = (size_mb + 63) // 64 * 64
    tmp = img.with_suffix(".tmp")
    # fixed UUID and directory hash seed: the same image on every machine
    # lazy_itable_init=0: inode tables zeroed now, so the kernel's ext4lazyinit
    # thread has nothing to do in the guest (it wrote to the disk during the
    # runs after a random start delay: a source of run-to-run differences)
    sh(["mkfs.ext4", "-q", "-F", "-b", "4096", "-U", "5eed0000-0000-4000-8000-00000000ee74",
        "-E", "hash_seed=5eed0000-0000-4000-8000-00000000ee75,"
        "lazy_itable_init=0,lazy_journal_init=0", "-d", stage, tmp,
        f"{size_mb}M"], env={**os.environ, "E2FSPROGS_FAKE_TIME": "1735689600"})
    tmp.rename(img)
    log(f"{img.name}: tree {du} MiB, {nfiles} entries")
    return size_mb
