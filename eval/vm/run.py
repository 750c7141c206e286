#!/usr/bin/env python3
"""Boot ppf's test kernel in QEMU, run one command inside, report its status.

Shape after the kernel's tools/testing/kunit/kunit_kernel.py: build the QEMU
command line, start it, stream the serial console to a log, parse the result.

The command (--cmd/--script) and extra files (--add) are appended to the
initramfs as a second cpio archive, so one base initramfs (initramfs.sh)
serves every run.  /init prints "<<<PPF-EXIT nonce=N rc=RC ...>>>" when the
command ends; the console is also scanned for kernel splats.

Exit status of run.py:
  0..99  the guest command's exit status (values >= 99 are reported as 99),
         the kernel log being clean
  100    kernel splat: panic, oops, BUG (KASAN, sleeping-in-atomic, ...),
         WARNING (lockdep, RCU, WARN_ON), hung task, RCU stall, kmemleak report
  101    host timeout
  102    QEMU exited without the exit marker (guest died, no splat recognised)
  103    harness error (QEMU missing or failed to start, bad arguments)
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import IO, List, Optional, Sequence, Tuple

EXIT_SPLAT = 100
EXIT_TIMEOUT = 101
EXIT_NO_MARKER = 102
EXIT_HARNESS = 103

# The marker nonce is on the kernel command line, which seeds the guest's RNG:
# a random nonce made every boot's timing differ, so it is fixed by default.
DEFAULT_NONCE = "c0ffee5eed"
DEFAULT_ICOUNT_SHIFT = 2  # 2^2 ns per guest instruction: a 250 MIPS virtual CPU
NULL_BLK_PARAMS = [
    "null_blk.memory_backed=1", "null_blk.irqmode=2",
    "null_blk.completion_nsec=5000000", "null_blk.hw_queue_depth=1",
    "null_blk.submit_queues=1", "null_blk.gb=1",
]

# Kernel messages carry a "[    1.234567] " timestamp (CONFIG_PRINTK_TIME);
# matching only after one keeps the guest command's own output from counting.
_TS = r"\[\s*\d+\.\d{6}\]\s"
SPLAT_PATTERNS: List[Tuple[str, "re.Pattern[str]"]] = [
    (name, re.compile(_TS + rx)) for name, rx in [
        ("panic", r"Kernel panic - not syncing"),
        ("bug", r"BUG: "),
        ("bug", r"kernel BUG at "),
        ("oops", r"Oops: "),
        ("oops", r"general protection fault"),
        ("warning", r"WARNING: "),
        ("warning", r"------------\[ cut here \]------------"),
        ("ubsan", r"UBSAN: "),
        ("list-corruption", r"list_(add|del) corruption"),
        ("hung-task", r"INFO: task .* blocked for more than"),
        ("rcu-stall", r"rcu: INFO: .*stall"),
        ("kmemleak", r"kmemleak: \d+ new suspected memory leaks"),
        ("init-killed", r"Attempted to kill init"),
    ]
]
MARKER_RE = re.compile(r"<<<PPF-(START|EXIT) nonce=(\S+)(?: rc=(-?\d+))? uptime=([\d.]+)>>>")


@dataclasses.dataclass
class Result:
    """What one boot produced."""
    status: str = "no-marker"          # ok | failed | splat | timeout | no-marker | error
    exit_code: int = EXIT_NO_MARKER
    guest_rc: Optional[int] = None
    splats: List[str] = dataclasses.field(default_factory=list)
    host_boot_s: Optional[float] = None     # host seconds from QEMU start to command start
    host_total_s: Optional[float] = None
    guest_start_uptime_s: Optional[float] = None  # guest /proc/uptime at command start
    guest_end_uptime_s: Optional[float] = None
    log: str = ""


# ----------------------------------------------------------------------------
# initramfs: append a second newc cpio archive with the command and extra files

def _cpio_entry(name: str, mode: int, data: bytes, ino: int) -> bytes:
    name_b = name.encode() + b"\0"
    fields = [ino, mode, 0, 0, 1, 0, len(data), 0, 0, 0, 0, len(name_b), 0]
    hdr = b"070701" + b"".join(b"%08X" % f for f in fields)
    out = hdr + name_b
    out += b"\0" * (-len(out) % 4)
    out += data + b"\0" * (-len(data) % 4)
    return out


def _walk_add(src: Path, dest: str) -> List[Tuple[str, int, bytes]]:
    """Entries (path, mode, data) for a file, symlink or directory tree."""
    st = os.lstat(src)
    if stat.S_ISLNK(st.st_mode):
        return [(dest, stat.S_IFLNK | 0o777, os.readlink(src).encode())]
    if stat.S_ISDIR(st.st_mode):
        entries = [(dest, stat.S_IFDIR | 0o755, b"")]
        for child in sorted(src.iterdir()):
            entries += _walk_add(child, f"{dest}/{child.name}")
        return entries
    return [(dest, stat.S_IFREG | (st.st_mode & 0o777), src.read_bytes())]


def build_overlay(script: Optional[str], adds: Sequence[str]) -> bytes:
    """A newc archive holding /ppf/cmd.sh and --add files (parents created)."""
    entries: List[Tuple[str, int, bytes]] = []
    if script is not None:
        entries.append(("ppf/cmd.sh", stat.S_IFREG | 0o755, script.encode()))
    for spec in adds:
        src, _, dest = spec.partition(":")
        dest = (dest or f"/ppf/{Path(src).name}").strip("/")
        entries += _walk_add(Path(src), dest)
    dirs = sorted({str(Path(p).parents[i]) for p, _, _ in entries
                   for i in range(len(Path(p).parents) - 1)})
    all_entries = [(d, stat.S_IFDIR | 0o755, b"") for d in dirs] + entries
    out = b"".join(_cpio_entry(p, m, d, i + 1) for i, (p, m, d) in enumerate(all_entries))
    return out + _cpio_entry("TRAILER!!!", 0, b"", 0)


def compose_initrd(base: Path, overlay: bytes, workdir: Path) -> Path:
    """base initramfs + zero padding to 512 bytes + overlay archive."""
    out = workdir / "initrd.img"
    with open(out, "wb") as f, open(base, "rb") as b:
        shutil.copyfileobj(b, f)
        f.write(b"\0" * (-f.tell() % 512))
        f.write(overlay)
    return out


# ----------------------------------------------------------------------------
# QEMU command line

def kernel_image(path: Path) -> Path:
    """Accept a bzImage or a kernel build dir (KDIR from build.sh)."""
    return path / "arch/x86/boot/bzImage" if path.is_dir() else path


def qemu_command(args: argparse.Namespace, kernel: Path, initrd: Path,
                 cmdline: str) -> List[str]:
    # -nic none: the default NIC (e1000 + user networking) made icount runs
    # differ by ~0.1 ms between boots; without it they are bit-identical
    cmd = [args.qemu, "-nographic", "-no-reboot", "-nic", "none", "-m", args.memory,
           "-smp", str(args.smp), "-kernel", str(kernel), "-initrd", str(initrd),
           "-append", cmdline]
    if args.kvm:
        cmd += ["-accel", "kvm", "-cpu", "host"]
    else:
        cmd += ["-accel", "tcg"]
    if not args.wall_clock and not args.kvm:
        cmd += ["-icount", f"shift={args.icount_shift},align=off,sleep=off",
                "-rtc", "base=2025-01-01T00:00:00,clock=vm"]
    qboot = Path("/usr/share/qemu/qboot.rom")
    if qboot.exists() and not args.seabios:
        cmd += ["-bios", str(qboot)]
    for i, spec in enumerate(args.disk):
        path, _, opt = spec.partition(":")
        ro = ",readonly=on" if opt == "ro" else ""
        cmd += ["-drive", f"file={path},if=virtio,format=raw,cache=unsafe,id=disk{i}{ro}"]
    return cmd + list(args.qemu_arg)


def kernel_cmdline(args: argparse.Namespace, nonce: str) -> str:
    params = ["console=ttyS0", "panic=-1", "rdinit=/init", f"ppf.nonce={nonce}"]
    if not args.kvm:
        # Under TCG the TSC follows QEMU's (virtual) clock.  Without this the
        # clocksource watchdog withholds high-resolution timers until ~1.2 s
        # of uptime, and a 5 ms null_blk request took 8 ms (a 4 ms tick).
        params.append("tsc=reliable")
    if args.null_blk:
        params += NULL_BLK_PARAMS
    return " ".join(params + list(args.append))


# ----------------------------------------------------------------------------
# Running and parsing

def scan_line(line: str, nonce: str, res: Result, t0: float) -> None:
    for name, rx in SPLAT_PATTERNS:
        if rx.search(line):
            res.splats.append(f"{name}: {line.strip()}")
            break
    m = MARKER_RE.search(line)
    if not m or m.group(2) != nonce:
        return
    if m.group(1) == "START":
        res.host_boot_s = time.monotonic() - t0
        res.guest_start_uptime_s = float(m.group(4))
    else:
        res.guest_rc = int(m.group(3))
        res.guest_end_uptime_s = float(m.group(4))


def pump(proc: "subprocess.Popen[bytes]", log: IO[str], echo: bool, nonce: str,
         res: Result, t0: float) -> None:
    assert proc.stdout is not None
    for raw in iter(proc.stdout.readline, b""):
        line = raw.decode("utf-8", "replace").replace("\r", "")
        log.write(line)
        log.flush()
        if echo:
            sys.stdout.write(line)
            sys.stdout.flush()
        scan_line(line, nonce, res, t0)


def stop(proc: "subprocess.Popen[bytes]") -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def boot(args: argparse.Namespace, qemu_cmd: List[str], nonce: str,
         log_path: Path) -> Result:
    res = Result(log=str(log_path))
    t0 = time.monotonic()
    with open(log_path, "w") as log:
        log.write("# " + " ".join(qemu_cmd) + "\n")
        try:
            proc = subprocess.Popen(qemu_cmd, stdin=subprocess.DEVNULL,
                                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        except OSError as e:
            res.status, res.exit_code = "error", EXIT_HARNESS
            res.splats.append(f"cannot start QEMU: {e}")
            return res
        reader = threading.Thread(target=pump, daemon=True,
                                  args=(proc, log, not args.quiet, nonce, res, t0))
        reader.start()
        timed_out = False
        while proc.poll() is None:
            if time.monotonic() - t0 > args.timeout:
                timed_out = True
                break
            if res.guest_rc is not None and time.monotonic() - t0 > args.timeout / 2:
                break  # marker seen but no power-off: do not wait for ever
            time.sleep(0.05)
        stop(proc)
        reader.join(5)
    res.host_total_s = time.monotonic() - t0
    classify(res, timed_out, proc.returncode)
    return res


def classify(res: Result, timed_out: bool, qemu_rc: Optional[int]) -> None:
    if res.splats:
        res.status, res.exit_code = "splat", EXIT_SPLAT
    elif res.guest_rc is not None:
        res.status = "ok" if res.guest_rc == 0 else "failed"
        res.exit_code = res.guest_rc if 0 <= res.guest_rc <= 99 else 99
    elif timed_out:
        res.status, res.exit_code = "timeout", EXIT_TIMEOUT
    else:
        res.status, res.exit_code = "no-marker", EXIT_NO_MARKER
        res.splats.append(f"QEMU exited (rc={qemu_rc}) before the command finished")


def report(res: Result, args: argparse.Namespace) -> None:
    def fmt(x: Optional[float]) -> str:
        return "-" if x is None else f"{x:.2f}"
    guest = None
    if res.guest_start_uptime_s is not None and res.guest_end_uptime_s is not None:
        guest = res.guest_end_uptime_s - res.guest_start_uptime_s
    mode = ("kvm" if args.kvm else "tcg") + \
        ("" if args.wall_clock or args.kvm else f" icount shift={args.icount_shift}")
    print(f"run.py: {res.status} guest_rc={res.guest_rc} exit={res.exit_code} [{mode}] "
          f"host boot {fmt(res.host_boot_s)} s, host total {fmt(res.host_total_s)} s, "
          f"guest command {fmt(guest)} s; log {res.log}", file=sys.stderr)
    for s in res.splats[:20]:
        print(f"run.py: FAIL {s}", file=sys.stderr)
    if res.status in ("splat", "timeout", "no-marker") and args.quiet:
        print("run.py: last console lines:", file=sys.stderr)
        lines = Path(res.log).read_text(errors="replace").splitlines()
        for line in lines[-40:]:
            print("  | " + line, file=sys.stderr)
    if args.json:
        Path(args.json).write_text(json.dumps(dataclasses.asdict(res), indent=2) + "\n")


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n", 1)[1])
    p.add_argument("--kernel", required=True, type=Path,
                   help="bzImage, or a build dir from eval/kernel/build.sh")
    p.add_argument("--initrd", required=True, type=Path,
                   help="base initramfs from eval/vm/initramfs.sh")
    what = p.add_mutually_exclusive_group()
    what.add_argument("--cmd", help="shell command to run in the guest")
    what.add_argument("--script", type=Path, help="shell script to run in the guest")
    p.add_argument("--add", action="append", default=[], metavar="SRC[:DEST]",
                   help="add a file/dir to the guest (default dest /ppf/NAME)")
    p.add_argument("--append", action="append", default=[], metavar="PARAM",
                   help="extra kernel command line parameter(s)")
    p.add_argument("--null-blk", action="store_true",
                   help="add " + " ".join(NULL_BLK_PARAMS))
    p.add_argument("--disk", action="append", default=[], metavar="IMG[:ro]",
                   help="raw virtio disk image (/dev/vda, /dev/vdb, ...)")
    p.add_argument("-m", "--memory", default="1G")
    p.add_argument("--smp", type=int, default=2)
    p.add_argument("--icount-shift", type=int, default=DEFAULT_ICOUNT_SHIFT)
    p.add_argument("--wall-clock", action="store_true", help="no -icount (plain TCG)")
    p.add_argument("--kvm", action="store_true", help="-accel kvm (wall clock)")
    p.add_argument("--seabios", action="store_true", help="SeaBIOS instead of qboot")
    p.add_argument("--timeout", type=float, default=300.0, help="host seconds")
    p.add_argument("--log", type=Path, help="console log (default: a file in $TMPDIR)")
    p.add_argument("--json", type=Path, help="write the result as JSON here")
    p.add_argument("--no-splat-check", action="store_true",
                   help="report splats but do not fail on them")
    p.add_argument("--nonce", default=DEFAULT_NONCE,
                   help="marker nonce (kept fixed: it changes guest timing)")
    p.add_argument("-q", "--quiet", action="store_true", help="do not echo the console")
    p.add_argument("--qemu", default="qemu-system-x86_64")
    p.add_argument("--qemu-arg", action="append", default=[], help="extra QEMU argument")
    return p.parse_args(argv)


def main(argv: Sequence[str]) -> int:
    args = parse_args(argv)
    if shutil.which(args.qemu) is None:
        print(f"run.py: {args.qemu} not found (apt-get install qemu-system-x86)",
              file=sys.stderr)
        return EXIT_HARNESS
    kernel = kernel_image(args.kernel)
    for f in (kernel, args.initrd):
        if not f.is_file():
            print(f"run.py: missing {f}", file=sys.stderr)
            return EXIT_HARNESS
    script = args.cmd if args.cmd is not None else (
        args.script.read_text() if args.script else None)
    nonce = args.nonce
    with tempfile.TemporaryDirectory(prefix="ppf-vm-") as tmp:
        initrd = args.initrd
        if script is not None or args.add:
            initrd = compose_initrd(args.initrd, build_overlay(script, args.add), Path(tmp))
        log_path = args.log or Path(tempfile.mkstemp(prefix="ppf-vm-", suffix=".log")[1])
        qemu_cmd = qemu_command(args, kernel, initrd, kernel_cmdline(args, nonce))
        res = boot(args, qemu_cmd, nonce, log_path)
    if args.no_splat_check and res.status == "splat" and res.guest_rc is not None:
        splats = res.splats
        res.splats = []
        classify(res, False, None)
        res.splats = splats
    report(res, args)
    return res.exit_code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
