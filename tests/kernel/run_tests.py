#!/usr/bin/env python3
"""Kernel tests: build the test kernel and the module, boot each guest test.

usage: tests/kernel/run_tests.py [--only NAME] [--list] [-v]

Each test is a busybox shell script under tests/kernel/guest/ that runs as
/init's command in the project's 6.12 test kernel under QEMU (eval/vm/run.py),
with the module, a static mincore tool and ext4 disk images made here.  A
test passes when its script passes every check and the kernel log has no
splat (oops, BUG, KASAN, lockdep, WARNING, hung task, kmemleak report): run.py
fails the boot otherwise.  The kernel build and the module build are cached
under ${PPF_CACHE:-/var/cache/ppf}.  The last line is "N passed, N failed",
counting the checks of every test (a test whose boot failed counts as one
failure more).  Tests of the debian variant boot Debian's own 6.12 kernel
instead, with the module built against its headers (tests/kernel/debian/).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from debian import variant as debian  # tests/kernel/debian/: Debian's own kernel

TOP = Path(__file__).resolve().parents[2]
GUEST = TOP / "tests" / "kernel" / "guest"
CACHE = Path(os.environ.get("PPF_CACHE", "/var/cache/ppf"))
KIB = 1024

# The files of the data disk: name -> size.  Contents are random bytes from a
# fixed seed, so the disk is the same on every machine.
DATA_FILES: Dict[str, int] = {
    **{name: 256 * KIB for name in "ABCDXPQ"},
    "E": 1024 * KIB,
    "G": 1024 * KIB,
}


@dataclasses.dataclass
class Test:
    name: str
    script: str
    variant: str = "base"       # test kernel: base, debug or debian
    disks: Tuple[str, ...] = ()  # names of disks from make_disks()
    timeout: int = 600
    memory: str = "512M"
    smp: int = 2
    by_name: bool = False        # run only when named (--only): benchmarks, quick checks
    # Kernel parameters: a memory-backed null_blk device the data disk is
    # copied to (see mount_data in guest/lib.sh), 1 GiB, no added latency.
    append: Tuple[str, ...] = ("null_blk.memory_backed=1", "null_blk.gb=1")
    bins: Tuple[str, ...] = ()   # PACKAGE:PATH executables (with libraries) in the initramfs


TESTS: List[Test] = [
    Test("predict", "test_predict.sh", disks=("data",)),
    Test("sysctl", "test_sysctl.sh"),
    Test("predict-debian", "test_predict.sh", variant=debian.VARIANT, disks=("data",)),
    Test("sysctl-debian", "test_sysctl.sh", variant=debian.VARIANT),
    # One virtual CPU: QEMU runs the virtual CPUs of an -icount guest in
    # turn, so with two a hook's clock would also count the other CPU's
    # slices (the worker's, above all).
    Test("hooks-bench", "bench_hooks.sh", disks=("data",), by_name=True, smp=1),
    # The robustness scenarios, under the debug kernel (KASAN, lockdep,
    # kmemleak, atomic-sleep and list checks): any report fails the test.
    # 340 s of host time here: the limit leaves room for a slower machine.
    Test("robust-reload", "test_robust_reload.sh", variant="debug", disks=("data",),
         timeout=1200),
    Test("robust-shape", "test_robust_shape.sh", variant="debug", disks=("data",)),
    Test("robust-umount", "test_robust_umount.sh", variant="debug",
         disks=("robust-umount", "data")),
    Test("robust-stale", "test_robust_stale.sh", variant="debug", disks=("robust-stale",)),
    Test("robust-ioerr", "test_robust_ioerr.sh", variant="debug", disks=("robust-ioerr",),
         bins=("dmsetup:/usr/sbin/dmsetup",)),
    # The same scenarios on the test kernel, by name only: a quicker check
    # while developing (the debug kernel runs them about four times slower).
    Test("reload", "test_robust_reload.sh", disks=("data",), by_name=True),
    Test("shape", "test_robust_shape.sh", disks=("data",), by_name=True),
    Test("umount", "test_robust_umount.sh", disks=("robust-umount", "data"), by_name=True),
    Test("stale", "test_robust_stale.sh", disks=("robust-stale",), by_name=True),
    Test("ioerr", "test_robust_ioerr.sh", disks=("robust-ioerr",),
         bins=("dmsetup:/usr/sbin/dmsetup",), by_name=True),
]

# Disks of single tests, made only when one of them runs: name -> files.
TEST_DISKS: Dict[str, Dict[str, int]] = {
    "robust-umount": {name: 256 * KIB for name in "ABCDX"},
    "robust-stale": {name: 256 * KIB for name in "ABCDXEFGH"},
    "robust-ioerr": {**{name: 256 * KIB for name in "ABCDXPQ"}, "E": 1024 * KIB},
}


def log(msg: str) -> None:
    print(f"kernel-tests: {msg}", file=sys.stderr, flush=True)


def run(cmd: Sequence[str], **kw) -> subprocess.CompletedProcess:
    return subprocess.run(list(map(str, cmd)), check=True, text=True, **kw)


def ensure_packages(pkgs: Sequence[str]) -> None:
    run([TOP / "scripts" / "install-deps.sh", "--packages", *pkgs])


def build_kernel(variant: str) -> Path:
    args = ["--debug"] if variant == "debug" else []
    out = run([TOP / "eval" / "kernel" / "build.sh", *args],
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


def build_module(kdir: Path) -> Path:
    """Build predictive_prefetch.ko against kdir in a copy of the sources.

    External modules build in their source directory; a copy per kernel lets
    the test kernels and the developer's own build coexist.
    """
    dest = CACHE / "module" / kdir.name
    dest.mkdir(parents=True, exist_ok=True)
    for part in ("Kbuild", "fs", "mm", "models"):
        src = TOP / part
        if src.is_dir():
            shutil.copytree(src, dest / part, dirs_exist_ok=True,
                            copy_function=copy_if_changed,
                            ignore=shutil.ignore_patterns("*.o", "*.cmd", ".*"))
        else:
            copy_if_changed(str(src), str(dest / part))
    res = subprocess.run(["make", "-C", str(kdir), f"M={dest}", "W=1", "modules"],
                         text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    warnings = [l for l in res.stdout.splitlines() if "warning:" in l or "error:" in l]
    if res.returncode or warnings:
        print(res.stdout)
        raise SystemExit("kernel-tests: module build failed or warned (W=1)")
    return dest / "predictive_prefetch.ko"


def build_tools(work: Path) -> List[Path]:
    """The static guest tools of tests/kernel/tools/, one per source file."""
    tools = []
    for src in sorted((TOP / "tests" / "kernel" / "tools").glob("*.c")):
        tool = work / src.stem
        run(["gcc", "-static", "-O2", "-Wall", "-Wextra", "-Werror", "-o", tool, src])
        tools.append(tool)
    return tools


def make_disk(work: Path, name: str, files: Dict[str, int], size_mb: int) -> Path:
    tree = work / f"{name}-tree"
    rng = random.Random(name)
    tree.mkdir()
    for fname, size in files.items():
        (tree / fname).write_bytes(rng.randbytes(size))
    img = work / f"{name}.img"
    run(["mkfs.ext4", "-q", "-F", "-b", "4096", "-d", tree, img, f"{size_mb}M"])
    return img


def make_initramfs(work: Path, bins: Sequence[str] = ()) -> Path:
    """The base initramfs, with the PACKAGE:PATH executables of bins."""
    out = work / ("base.cpio" if not bins else
                  "base-" + "-".join(Path(b).name for b in bins) + ".cpio")
    if bins:
        ensure_packages([b.split(":", 1)[0] for b in bins])
    cmd: List[object] = [TOP / "eval" / "vm" / "initramfs.sh", "-o", out]
    for b in bins:
        cmd += ["--bin", b.split(":", 1)[1]]
    run(cmd)
    return out


def count_checks(log_text: str) -> Tuple[int, int]:
    m = re.findall(r"^(\d+) passed, (\d+) failed\s*$", log_text, re.M)
    if not m:
        return 0, 0
    return int(m[-1][0]), int(m[-1][1])


def run_test(t: Test, kernel: Path, initrd: Path, adds: Sequence[str],
             disks: Dict[str, Path], work: Path, verbose: bool,
             script: Optional[Path] = None) -> Tuple[int, int]:
    logf = work / f"{t.name}.log"
    cmd = [sys.executable, TOP / "eval" / "vm" / "run.py", "--kernel", kernel,
           "--initrd", initrd, "--script", script or GUEST / t.script,
           "--timeout", str(t.timeout), "-m", t.memory, "--smp", str(t.smp), "--log", logf]
    for a in adds:
        cmd += ["--add", a]
    for d in t.disks:
        cmd += ["--disk", disks[d]]
    for param in t.append:
        cmd += ["--append", param]
    if t.variant == "debug":
        # Under KASAN, lockdep and kmemleak the ACPI interpreter is so slow
        # that QEMU's PCI interrupt routing method (_PRT, a 128-round AML
        # loop) takes 27 s of guest time per PCI device at 1 ns an
        # instruction, and at 4 ns passes ACPI's 30 s loop timeout
        # (AE_AML_LOOP_TIMEOUT: the virtio disk gets no interrupt).
        # pci=noacpi routes PCI interrupts by the BIOS's $PIR table instead,
        # which SeaBIOS has (qboot has none): a boot with two disks takes 12 s
        # of host time, against 44 s with one disk and ACPI routing.  1 ns an
        # instruction gives the slow debug kernel four times as many
        # instructions per guest second before the RCU-stall and hung-task
        # watchdogs.
        cmd += ["--icount-shift", "0", "--seabios", "--append", "pci=noacpi"]
    if not verbose:
        cmd.append("-q")
    res = subprocess.run(list(map(str, cmd)), text=True)
    text = logf.read_text(errors="replace")
    passed, failed = count_checks(text)
    for line in text.splitlines():
        if line.startswith(("ok   ", "FAIL ")) or line.startswith("  "):
            print(f"  {t.name}: {line}")
    if res.returncode != 0:
        failed += 1
        tail = "\n".join(text.splitlines()[-40:])
        print(f"  {t.name}: boot failed (run.py exit {res.returncode}); log {logf}\n{tail}")
    return passed, failed


def main(argv: Sequence[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", action="append", help="run only these tests")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("-v", "--verbose", action="store_true", help="echo the guest console")
    args = ap.parse_args(argv)
    tests = [t for t in TESTS
             if (args.only and t.name in args.only)
             or (not args.only and not t.by_name)]
    if args.list:
        for t in TESTS:
            print(f"{t.name:14} {t.variant:6} {t.script}{'  (by name)' if t.by_name else ''}")
        return 0
    ensure_packages(["e2fsprogs", "gcc", "libc6-dev", "make", "python3",
                     "qemu-system-x86"])
    work = Path(tempfile.mkdtemp(prefix="ppf-kernel-tests."))
    log(f"work dir {work}")
    tools = build_tools(work)
    disks = {"data": make_disk(work, "data", DATA_FILES, 32)}
    for name, files in TEST_DISKS.items():
        if any(name in t.disks for t in tests):
            disks[name] = make_disk(work, name, files, 32)
    initrd = make_initramfs(work)
    initrds: Dict[Tuple[str, ...], Path] = {(): initrd}
    total_pass = total_fail = 0
    built: Dict[str, Tuple[Path, Path]] = {}
    for t in tests:
        if t.variant == debian.VARIANT and t.variant not in built:
            built[t.variant] = debian.prepare(work, build_module)
        if t.variant not in built:
            log(f"building the {t.variant} test kernel (cached)")
            kdir = build_kernel(t.variant)
            log(f"building the module against {kdir}")
            built[t.variant] = (kdir, build_module(kdir))
        kdir, ko = built[t.variant]
        adds = [str(ko), *map(str, tools), f"{GUEST}:/ppf/guest"]
        script = GUEST / t.script
        if t.variant == debian.VARIANT:
            script, extra = debian.guest(script, work)
            adds += extra
        if t.bins not in initrds:
            initrds[t.bins] = make_initramfs(work, t.bins)
        log(f"running {t.name} on the {t.variant} kernel")
        p, f = run_test(t, kdir, initrds[t.bins], adds, disks, work, args.verbose, script)
        print(f"{t.name}: {p} passed, {f} failed")
        total_pass += p
        total_fail += f
    print(f"{total_pass} passed, {total_fail} failed")
    return 1 if total_fail else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
