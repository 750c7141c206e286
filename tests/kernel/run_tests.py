#!/usr/bin/env python3
"""Kernel tests: build the test kernel and the module, boot each guest test.

usage: python3 -m tests.kernel.run_tests [--only NAME] [--repeat N] [--list] [-v]
       (from the top of the tree: the tests are a client of eval/vm/, the VM layer)

Each test is a busybox shell script under tests/kernel/guest/ that runs as
/init's command in the project's 6.12 test kernel under QEMU (eval/vm/, the
VM layer the evaluation uses too: this file is its test table and a loop),
with the module, a static mincore tool and ext4 disk images made here.  A
test passes when its script passes every check (it reports in KTAP, see
tests/kernel/guest/lib.sh) and the kernel log has no
splat (oops, BUG, KASAN, lockdep, WARNING, hung task, kmemleak report): run.py
fails the boot otherwise.  The kernel build and the module build are cached
under ${PPF_CACHE:-/var/cache/ppf}.  The last line is "N passed, N failed",
counting the checks of every test (a failed check is one failure; a boot
that failed otherwise, or printed no totals, one more: eval/vm/parse.py's
boot_checks).  Tests of the debian and debian61 variants boot Debian's own
6.12 kernel and its default 6.1 kernel instead, with the module built
against their headers (eval/vm/debian.py).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

TOP = Path(__file__).resolve().parents[2]
if not __package__:  # run as a file: eval/ is not importable from here
    sys.exit("usage: python3 -m tests.kernel.run_tests [ARGS], from the top of the tree")

from eval.vm import debian, kernel, parse, run  # noqa: E402
from eval.vm.config import BootRequest, KernelVariant, VARIANTS, null_blk_params  # noqa: E402

GUEST = TOP / "tests" / "kernel" / "guest"
CACHE = Path(os.environ.get("PPF_CACHE", "/var/cache/ppf"))
KIB = 1024

# The files of the data disk: name -> size.  Contents are random bytes from a
# fixed seed, so the disk is the same on every machine.
DATA_FILES: Dict[str, int] = {
    **{name: 256 * KIB for name in "ABCDXPQ"},
    "E": 1024 * KIB,
    "G": 1024 * KIB,
    "H": 1024 * KIB,
    # in a directory of their own, for the metadata test
    **{f"md/M{i}": 64 * KIB for i in (1, 2, 3)},
    # in a directory of their own, for the sweep test
    **{f"sw/S{i}": 64 * KIB for i in range(1, 10)},
}


@dataclasses.dataclass(frozen=True)
class Test:
    name: str
    script: str
    variant: str = "base"       # base, debug, debian or debian61 (eval/vm/config.py)
    disks: Tuple[str, ...] = ()  # names of disks from make_disks()
    timeout: int = 600
    memory: str = "512M"
    smp: int = 2
    by_name: bool = False       # run only when named (--only): benchmarks, quick checks
    env: Tuple[str, ...] = ()   # NAME=VALUE settings the guest script reads
    # Kernel parameters: a memory-backed null_blk device the data disk is
    # copied to (see mount_data in guest/lib.sh), 1 GiB, no added latency.
    append: Tuple[str, ...] = null_blk_params()
    bins: Tuple[str, ...] = ()   # PACKAGE:PATH executables (with libraries) in the initramfs
    # Boots of the same disks, one after the other: the script runs in each
    # with PPF_BOOT set to 1, 2, ... (a reboot test keeps its state on a disk).
    boots: int = 1


TESTS: List[Test] = [
    Test("predict", "test_predict.sh", disks=("data",)),
    # A repeated prediction costs no plan entry, decode or readahead call.
    Test("repeat", "test_repeat.sh", disks=("data",)),
    # The pages read ahead for files not opened yet, and for those wasted.
    Test("unused", "test_unused.sh", disks=("data",)),
    Test("sysctl", "test_sysctl.sh"),
    Test("ppfctl", "test_ppfctl.sh", disks=("data",)),
    # Train, save, reboot, load: the first cold run after boot gains as
    # much as a trained run.  Every request to the workload's disk takes
    # 1 ms, up to 8 at once, so that a prefetch's gain is a time to measure.
    Test("persist", "test_persist.sh", disks=("persist", "store"), boots=2,
         append=null_blk_params(completion_nsec=1_000_000, hw_queue_depth=8)),
    Test("isolation", "test_isolation.sh", disks=("data",)),
    # What max_prefetch_kb, max_inflight_kb, max_files, save_events and
    # contexts do, not only that they are accepted.
    Test("limits", "test_limits.sh", disks=("limits",)),
    # max_inflight_ms: the prefetches queued bounded by the device's rate;
    # and a file read sparsely judged chunk by chunk on a disk with an arm.
    # Every request to the disk takes 1 ms, up to 8 at once, at most 16
    # MiB/s, so that the rate is known and 20 ms of it is under two chunks.
    Test("queue", "test_queue.sh", disks=("limits",),
         append=null_blk_params(completion_nsec=1_000_000, hw_queue_depth=8, mbps=16)),
    # Task runs: a run the model fell behind in has what its key's last two
    # runs shared read at its start.  Every request takes 1 ms.
    Test("runs", "test_runs.sh", disks=("limits",),
         append=null_blk_params(completion_nsec=1_000_000, hw_queue_depth=8)),
    # Exec events, reads through mappings, unprivileged access.
    Test("access", "test_access.sh", disks=("data",)),
    Test("predict-debian", "test_predict.sh", variant="debian", disks=("data",)),
    Test("sysctl-debian", "test_sysctl.sh", variant="debian"),
    Test("predict-debian61", "test_predict.sh", variant="debian61", disks=("data",), smp=1),
    # One CPU: under TCG, Debian's 6.1 hangs bringing up a second one
    # ("x86: Booting SMP configuration"); its 6.12 and the test kernel do not.
    Test("sysctl-debian61", "test_sysctl.sh", variant="debian61", smp=1),
    Test("ppfctl-debian61", "test_ppfctl.sh", variant="debian61", disks=("data",), smp=1),
    # The limits on 6.1, where reads are learnt from pages added (the fallback).
    Test("limits-debian61", "test_limits.sh", variant="debian61", disks=("limits",), smp=1),
    # Exec, mapped reads (learnt from the pages faults add) and access on 6.1.
    Test("access-debian61", "test_access.sh", variant="debian61", disks=("data",), smp=1),
    Test("isolation-debian61", "test_isolation.sh", variant="debian61", disks=("data",), smp=1,
         by_name=True),
    Test("persist-debian61", "test_persist.sh", variant="debian61", disks=("persist", "store"),
         smp=1, boots=2, by_name=True,
         append=null_blk_params(completion_nsec=1_000_000, hw_queue_depth=8)),
    # One virtual CPU: QEMU runs the virtual CPUs of an -icount guest in
    # turn, so with two a hook's clock would also count the other CPU's
    # slices (the worker's, above all).
    Test("hooks-bench", "bench_hooks.sh", disks=("data",), by_name=True, smp=1),
    # The robustness scenarios, under the debug kernel (KASAN, lockdep,
    # kmemleak, atomic-sleep and list checks): any report fails the test.
    # robust-reload's 100 cycles took 340 s of host time on one machine and
    # 855-1,250 s on others (robust-shape 118 s and 305-500 s; 569 s with
    # other VMs beside it, against the default 600 s), the most of any test
    # in CI: it runs 40 now, and reload-soak 1,000 by name.  The limits
    # leave room for a machine slower still: they catch a hang, not a pace.
    Test("robust-reload", "test_robust_reload.sh", variant="debug", disks=("data",),
         timeout=1800),
    Test("robust-shape", "test_robust_shape.sh", variant="debug", disks=("data",),
         timeout=1800),
    Test("robust-umount", "test_robust_umount.sh", variant="debug",
         disks=("robust-umount", "data")),
    Test("robust-stale", "test_robust_stale.sh", variant="debug", disks=("robust-stale",)),
    Test("robust-ioerr", "test_robust_ioerr.sh", variant="debug", disks=("robust-ioerr",),
         bins=("dmsetup:/usr/sbin/dmsetup",)),
    # An event flood: drops counted, nothing lost, the openers never wait.
    Test("robust-flood", "test_flood.sh", variant="debug", disks=("data",)),
    # Injected allocation and I/O failures: nothing oopses, leaks or stays in flight.
    Test("robust-faults", "test_faults.sh", variant="debug", disks=("data",)),
    # Memory short: unused prefetches go first, ppf backs off, nothing killed.
    Test("robust-mempressure", "test_mempressure.sh", variant="debug", disks=("data",)),
    # Sixteen tasks on four CPUs and two file systems while settings change.
    Test("robust-scale", "test_scale.sh", variant="debug", disks=("data", "scale"), smp=4,
         memory="1024M", timeout=1800),
    # Permissions and isolation (skipped_perm) under the debug kernel.
    Test("robust-isolation", "test_isolation.sh", variant="debug", disks=("data",)),
    # Exec and mapped reads (the fault-path probes), and the state file's
    # refusals, under the debug kernel.
    Test("robust-access", "test_access.sh", variant="debug", disks=("data",)),
    # The limits under the debug kernel (the file table trimmed, the opens
    # held resized, states saved and loaded, contexts switched), by name: 140 s
    # of host time on a loaded machine, where robust-access took 92 s.
    Test("robust-limits", "test_limits.sh", variant="debug", disks=("limits",),
         by_name=True),
    # Saving, loading, malformed states and a reboot under the debug kernel.
    Test("robust-persist", "test_persist.sh", variant="debug", disks=("persist", "store"),
         boots=2, append=null_blk_params(completion_nsec=1_000_000, hw_queue_depth=8)),
    # The same scenarios on the test kernel, by name only: a quicker check
    # while developing (the debug kernel runs them about four times slower).
    Test("reload", "test_robust_reload.sh", disks=("data",), by_name=True),
    Test("shape", "test_robust_shape.sh", disks=("data",), by_name=True),
    Test("flood", "test_flood.sh", disks=("data",), by_name=True),
    Test("mempressure", "test_mempressure.sh", disks=("data",), by_name=True),
    # ppf's cost under memory pressure with 301 alternated pairs, not 5, on
    # one CPU (with two, QEMU runs them in turn and the reads' times spread
    # three times wider); -reclaim at 8 MiB available, where every read
    # reclaims.
    Test("mempressure-long", "test_mempressure.sh", disks=("data",), by_name=True, smp=1,
         env=("PAIRS=301",)),
    Test("mempressure-reclaim", "test_mempressure.sh", disks=("data",), by_name=True, smp=1,
         env=("PAIRS=301", "TIMED_AVAIL_MIB=8")),
    Test("scale", "test_scale.sh", disks=("data", "scale"), smp=4, memory="1024M",
         by_name=True),
    # The soak: 1,000 reload cycles under load on the debug kernel, by name
    # (outside CI's time).
    Test("reload-soak", "test_robust_reload.sh", variant="debug", disks=("data",),
         timeout=4 * 3600, env=("RELOADS=1000",), by_name=True),
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
    "scale": {f"s/F{i}": 64 * KIB for i in range(1, 33)},
    # test_persist.sh: the workload (F001-F120), a file deleted before the
    # state is loaded (Z), and the disk the state is kept on across boots.
    "persist": {**{f"w/F{i:03}": 128 * KIB for i in range(1, 121)}, "w/Z": 64 * KIB},
    "store": {},
    # test_limits.sh: the data disk's files, and 80 more for max_files.
    "limits": {**{name: 256 * KIB for name in "ABCDXPQ"}, "E": 1024 * KIB,
               **{f"f/F{i:03}": 4 * KIB for i in range(1, 81)}},
}


def log(msg: str) -> None:
    print(f"kernel-tests: {msg}", file=sys.stderr, flush=True)


def build_tools(work: Path) -> List[Path]:
    """The static guest tools of tests/kernel/tools/, one per source file,
    and ppfctl (userspace/ppfctl/), the operator's tool test_ppfctl.sh runs."""
    tools = [kernel.build_static(src, work / src.stem)
             for src in sorted((TOP / "tests" / "kernel" / "tools").glob("*.c"))]
    ppfctl = TOP / "userspace" / "ppfctl"
    more = sorted(p for p in ppfctl.glob("*.c") if p.name != "ppfctl.c")
    more.append(TOP / "models" / "state_file.c")
    tools.append(kernel.build_static(ppfctl / "ppfctl.c", work / "ppfctl", more))
    return tools


def make_initramfs(work: Path, bins: Sequence[str] = ()) -> Path:
    """The base initramfs, with the PACKAGE:PATH executables of bins."""
    out = work / ("base.cpio" if not bins else
                  "base-" + "-".join(Path(b).name for b in bins) + ".cpio")
    return kernel.make_initramfs(out, bins)


def prepare(variant: KernelVariant, work: Path
            ) -> Tuple[Path, Path, Optional[debian.DebianKernel]]:
    """(kernel, module, Debian's kernel or None) of a variant: built (cached),
    or Debian's."""
    if variant.debian:
        k, image, ko = debian.prepare(variant.debian, work, CACHE)
        return image, ko, k
    log(f"building the {variant.name} test kernel (cached)")
    kdir = kernel.build_kernel(variant)
    log(f"building the module against {kdir}")
    return kdir, kernel.build_module(kdir, CACHE), None


def run_test(t: Test, kdir: Path, initrd: Path, adds: Sequence[str],
             disks: Dict[str, Path], work: Path, verbose: bool,
             prelude: str = "", boot: int = 1, tag: str = "") -> parse.Checks:
    logf = work / (f"{t.name}{tag}.log" if t.boots == 1 else f"{t.name}{tag}-boot{boot}.log")
    env = (*t.env, f"PPF_BOOT={boot}")
    req = BootRequest(kernel=kdir, initrd=initrd,
                      command=prelude + "".join(f"export {e}\n" for e in env)
                      + (GUEST / t.script).read_text(),
                      adds=tuple(adds), disks=tuple(str(disks[d]) for d in t.disks),
                      append=t.append, memory=t.memory, smp=t.smp,
                      timeout=float(t.timeout), log=logf, echo=verbose)
    req = VARIANTS[t.variant].boot(req)
    res = run.boot(req)
    run.report(res, req)
    text = logf.read_text(errors="replace") if logf.exists() else ""
    checks = parse.count_checks(text)
    # The guest's KTAP, after /init's start marker (run.py's own "# " header
    # lines, the QEMU command and the image digests, come before it).
    start = text.find("<<<PPF-START")
    for line in text[max(start, 0):].splitlines():
        if line.startswith(("ok ", "not ok ", "# ", "Bail out!")):
            print(f"  {t.name}: {line}")
    checks, why = parse.boot_checks(res, checks)
    if why:
        print(f"  {t.name}: {why}; log {logf}")
        if res.exit_code != 0:
            print("\n".join(text.splitlines()[-40:]))
    return checks


def main(argv: Sequence[str]) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--only", action="append", help="run only these tests")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--repeat", type=int, default=1, metavar="N",
                    help="boot each test N times (make test-repeat): a check that "
                    "fails by chance shows up as a run that failed")
    ap.add_argument("-v", "--verbose", action="store_true", help="echo the guest console")
    args = ap.parse_args(argv)
    unknown = sorted(set(args.only or ()) - {t.name for t in TESTS})
    if unknown:
        ap.error(f"no such test: {', '.join(unknown)} (--list lists them)")
    if args.repeat < 1:
        ap.error(f"--repeat takes a count of at least 1, not {args.repeat}")
    tests = [t for t in TESTS
             if (args.only and t.name in args.only)
             or (not args.only and not t.by_name)]
    if args.list:
        for t in TESTS:
            print(f"{t.name:17} {t.variant:8} {t.script}{'  (by name)' if t.by_name else ''}")
        return 0
    kernel.ensure_packages(["e2fsprogs", "gcc", "libc6-dev", "make", "python3",
                            "qemu-system-x86"])
    work = Path(tempfile.mkdtemp(prefix="ppf-kernel-tests."))
    log(f"work dir {work}")
    tools = build_tools(work)
    disks = {"data": kernel.make_disk(work, "data", DATA_FILES, 32)}
    for name, files in TEST_DISKS.items():
        if any(name in t.disks for t in tests):
            disks[name] = kernel.make_disk(work, name, files, 32)
    initrd = make_initramfs(work)
    initrds: Dict[Tuple[str, ...], Path] = {(): initrd}
    total_pass = total_fail = total_skip = 0
    failed_runs: List[str] = []
    built: Dict[str, Tuple[Path, Path, Optional[debian.DebianKernel]]] = {}
    for t, rep in ((t, r) for t in tests for r in range(1, args.repeat + 1)):
        variant = VARIANTS[t.variant]
        if t.variant not in built:
            built[t.variant] = prepare(variant, work)
        kdir, ko, deb = built[t.variant]
        adds = [str(ko), *map(str, tools), f"{GUEST}:/ppf/guest"]
        prelude = ""
        if deb is not None:
            prelude = debian.prelude(deb)
            adds += debian.adds(deb, work)
        if t.bins not in initrds:
            initrds[t.bins] = make_initramfs(work, t.bins)
        p = f = sk = 0
        began = time.monotonic()
        for boot in range(1, t.boots + 1):
            log(f"running {t.name} on the {t.variant} kernel"
                + (f", boot {boot} of {t.boots}" if t.boots > 1 else ""))
            c = run_test(t, kdir, initrds[t.bins], adds, disks, work, args.verbose,
                         prelude, boot, f"-run{rep}" if args.repeat > 1 else "")
            p += c.passed
            f += c.failed
            sk += c.skipped
        name = t.name if args.repeat == 1 else f"{t.name} (run {rep} of {args.repeat})"
        print(f"{name}: {p} passed, {f} failed, {sk} skipped "
              f"({time.monotonic() - began:.0f} s of host time)", flush=True)
        if f:
            failed_runs.append(name)
        total_pass += p
        total_fail += f
        total_skip += sk
    if failed_runs:
        print(f"failed: {', '.join(failed_runs)}")
    print(f"{total_pass} passed, {total_fail} failed, {total_skip} skipped")
    return 1 if total_fail else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
