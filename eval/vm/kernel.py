"""Building what a VM boots: the test kernel, the module, the initramfs, disks.

Shape after the kernel's tools/testing/kunit/kunit_kernel.py (the build
half).  Every cache location is a parameter: the kernel tests keep their
module builds under $PPF_CACHE, the evaluation under $PPF_CACHE/eval, so
both can run at once.  The kernel build itself is eval/kernel/build.sh's,
cached by configuration under $PPF_CACHE/build.
"""

from __future__ import annotations

import hashlib
import os
import random
import shutil
import subprocess
from pathlib import Path
from typing import Any, Dict, List, Sequence

from .config import TOP, KernelVariant

CACHE = Path(os.environ.get("PPF_CACHE", "/var/cache/ppf"))
# The module's sources, copied for each kernel it is built against.
MODULE_PARTS = ("Kbuild", "fs", "mm", "models")


def sh(cmd: Sequence[object], **kw: Any) -> "subprocess.CompletedProcess[str]":
    """Run cmd (any argument str()'d), text mode; a failure raises."""
    return subprocess.run([str(c) for c in cmd], check=True, text=True, **kw)


def ensure_packages(pkgs: Sequence[str]) -> None:
    """Install the Debian packages that are missing (scripts/install-deps.sh)."""
    sh([TOP / "scripts" / "install-deps.sh", "--packages", *pkgs])


def build_kernel(variant: KernelVariant) -> Path:
    """The variant's kernel build dir (KDIR) from eval/kernel/build.sh, cached."""
    if variant.debian:
        raise ValueError("the debian variant's kernel comes from apt (debian.prepare)")
    out = sh([TOP / "eval" / "kernel" / "build.sh", *variant.build_flags],
             stdout=subprocess.PIPE).stdout
    return Path(out.strip().splitlines()[-1])


def copy_if_changed(src: str, dst: str) -> str:
    """Copy src to dst unless dst has the same bytes; a copy gets a new mtime.

    Not shutil.copy2: it keeps src's mtime, and a source older than the
    object make built from another checkout's newer copy would not be
    rebuilt (a stale module, seen once: the evaluation ran a module without
    prefetching).  Unchanged files keep theirs, so make rebuilds only what
    changed.
    """
    d = Path(dst)
    data = Path(src).read_bytes()
    if not d.exists() or d.read_bytes() != data:
        d.write_bytes(data)
    return dst


def build_module(kdir: Path, cache_dir: Path) -> Path:
    """Build predictive_prefetch.ko against kdir in cache_dir/module/KDIR-CHECKOUT.

    External modules build in their source directory; a copy per kernel lets
    the test kernels and the developer's own build coexist.  The copy is also
    one per checkout (a hash of its path): two checkouts testing at once
    must not build into, and boot, each other's sources.  A W=1 warning
    fails the build.
    """
    checkout = hashlib.sha256(str(TOP).encode()).hexdigest()[:8]
    dest = cache_dir / "module" / f"{kdir.name}-{checkout}"
    dest.mkdir(parents=True, exist_ok=True)
    for part in MODULE_PARTS:
        src = TOP / part
        if src.is_dir():
            shutil.copytree(src, dest / part, dirs_exist_ok=True,
                            copy_function=copy_if_changed,
                            ignore=shutil.ignore_patterns("*.o", "*.cmd", ".*"))
        else:
            copy_if_changed(str(src), str(dest / part))
    return make_module(kdir, dest, "predictive_prefetch.ko", "kernel-tests: module")


def make_module(kdir: Path, dest: Path, ko: str, what: str) -> Path:
    """`make M=dest W=1 modules` against kdir; dest/ko, or exit with the
    build's output when it failed or printed a warning (W=1 clean)."""
    res = subprocess.run(["make", "-C", str(kdir), f"M={dest}", "W=1", "modules"],
                         text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    warnings = [ln for ln in res.stdout.splitlines() if "warning:" in ln or "error:" in ln]
    if res.returncode or warnings:
        print(res.stdout)
        raise SystemExit(f"{what} build failed or warned (W=1)")
    return dest / ko


def build_simdisk(kdir: Path, cache_dir: Path) -> Path:
    """Build eval/blkdev's ppf_simdisk.ko (the rotational disk model, test
    equipment) against kdir in cache_dir/simdisk/KDIR-CHECKOUT, as
    build_module does the module: a copy per kernel and checkout, W=1 clean."""
    checkout = hashlib.sha256(str(TOP).encode()).hexdigest()[:8]
    dest = cache_dir / "simdisk" / f"{kdir.name}-{checkout}"
    dest.mkdir(parents=True, exist_ok=True)
    for src in sorted((TOP / "eval" / "blkdev").iterdir()):
        if src.suffix in (".c", ".h") or src.name == "Kbuild":
            copy_if_changed(str(src), str(dest / src.name))
    return make_module(kdir, dest, "ppf_simdisk.ko", "simdisk")


def build_static(src: Path, out: Path, more: Sequence[Path] = ()) -> Path:
    """A static guest helper from a C file and more of its own (the guest has
    no libc)."""
    sh(["gcc", "-static", "-O2", "-std=gnu11", "-Wall", "-Wextra", "-Werror",
        "-o", out, src, *more])
    return out


def make_initramfs(out: Path, bins: Sequence[str] = (), options: Sequence[str] = (),
                   quiet: bool = False) -> Path:
    """eval/vm/initramfs.sh's busybox initramfs at out, with the PACKAGE:PATH
    executables of bins (packages installed first) and initramfs.sh options."""
    if bins:
        ensure_packages([b.split(":", 1)[0] for b in bins])
    cmd: List[object] = [TOP / "eval" / "vm" / "initramfs.sh", "-o", out, *options]
    for b in bins:
        cmd += ["--bin", b.split(":", 1)[1]]
    sh(cmd, stdout=subprocess.DEVNULL if quiet else None)
    return out


def make_disk(work: Path, name: str, files: Dict[str, int], size_mb: int) -> Path:
    """An ext4 image work/NAME.img of size_mb MiB holding files (relative
    path -> size) of random bytes seeded by name: the same disk on every
    machine."""
    tree = work / f"{name}-tree"
    rng = random.Random(name)
    tree.mkdir()
    for fname, size in files.items():
        (tree / fname).parent.mkdir(parents=True, exist_ok=True)
        (tree / fname).write_bytes(rng.randbytes(size))
    img = work / f"{name}.img"
    sh(["mkfs.ext4", "-q", "-F", "-b", "4096", "-d", tree, img, f"{size_mb}M"])
    return img
