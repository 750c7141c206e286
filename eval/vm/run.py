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
import hashlib
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import IO, Callable, Iterable, Iterator, List, Optional, Sequence, Tuple

if not __package__:  # run as a file: its relative imports need the package
    print("usage: python3 -m eval.vm.run [OPTIONS], from the top of the tree", file=sys.stderr)
    sys.exit(103)  # .parse.EXIT_HARNESS: a harness error (bad arguments)

from .config import DEFAULT_ICOUNT_SHIFT, DEFAULT_NONCE, NULL_BLK_TIMED, BootRequest  # noqa: E402
from .parse import EXIT_HARNESS, Result, classify, scan_line  # noqa: E402


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
    # 0755 or 0644 whatever the host's umask made of the file: the kernel
    # parses every header digit, a hex letter costs more instructions than a
    # digit, and under -icount that is time (see initramfs.sh)
    mode = 0o755 if st.st_mode & 0o111 else 0o644
    return [(dest, stat.S_IFREG | mode, src.read_bytes())]


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


def sha256_of(path: Path) -> str:
    """path's SHA-256 in hex."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


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


def qemu_command(req: BootRequest, kernel: Path, initrd: Path, cmdline: str,
                 console: Optional[Path] = None,
                 record: Optional[Path] = None) -> List[str]:
    """The QEMU command line; the serial console goes to the file console
    (else to QEMU's stdout); under -icount, with record, QEMU runs in its
    record mode and writes the replay log there."""
    # -nic none: the default NIC (e1000 + user networking) made icount runs
    # differ by ~0.1 ms between boots; without it they are bit-identical
    cmd = [req.qemu, "-nographic", "-no-reboot", "-nic", "none", "-m", req.memory,
           "-smp", str(req.smp), "-kernel", str(kernel), "-initrd", str(initrd),
           "-append", cmdline]
    if console is not None:
        # QEMU's stdout is non-blocking: when the pipe to us was full, the
        # UART retried the byte when the host drained it, and the guest saw
        # its transmitter busy for a host-dependent (virtual) time.  Writes to
        # a file always complete at once.
        cmd += ["-serial", f"file:{console}", "-monitor", "none"]
    if req.kvm:
        cmd += ["-accel", "kvm", "-cpu", "host"]
    else:
        cmd += ["-accel", "tcg"]
    if not req.wall_clock and not req.kvm:
        # rr=record: QEMU's record mode serialises its main loop with the
        # vCPU thread (its replay lock) and runs timers at checkpoints.  Without
        # it, boots given the same bytes sometimes differed (GNU ld with EPCM:
        # 0.51 %; docs/results.md, "Determinism"); with it they agree.  The
        # log it writes is small (3-7 MB for GNU ld) and not kept.
        rr = f",rr=record,rrfile={record}" if record is not None else ""
        cmd += ["-icount", f"shift={req.icount_shift},align=off,sleep=off{rr}",
                "-rtc", "base=2025-01-01T00:00:00,clock=vm"]
    qboot = Path("/usr/share/qemu/qboot.rom")
    if qboot.exists() and not req.seabios:
        cmd += ["-bios", str(qboot)]
    for i, spec in enumerate(req.disks):
        path, _, opt = spec.partition(":")
        ro = ",readonly=on" if opt == "ro" else ""
        cmd += ["-drive", f"file={path},if=virtio,format=raw,cache=unsafe,id=disk{i}{ro}"]
    return cmd + list(req.qemu_args)


def kernel_cmdline(req: BootRequest) -> str:
    params = ["console=ttyS0", "panic=-1", "rdinit=/init", f"ppf.nonce={req.nonce}"]
    if not req.kvm:
        # Under TCG the TSC follows QEMU's (virtual) clock.  Without this the
        # clocksource watchdog withholds high-resolution timers until ~1.2 s
        # of uptime, and a 5 ms null_blk request took 8 ms (a 4 ms tick).
        params.append("tsc=reliable")
    return " ".join(params + list(req.append))


# ----------------------------------------------------------------------------
# Running

def follow(path: Path, proc: "subprocess.Popen[bytes]") -> Iterator[bytes]:
    """The lines of the file QEMU writes the console to, as they come, until
    QEMU has ended and the file is read to its end."""
    with open(path, "rb") as f:
        part = b""
        while True:
            chunk = f.read(1 << 16)
            if not chunk:
                if proc.poll() is None:
                    time.sleep(0.02)
                    continue
                chunk = f.read()  # what QEMU wrote just before it ended
                if not chunk:
                    break
            part += chunk
            *lines, part = part.split(b"\n")
            yield from (ln + b"\n" for ln in lines)
        if part:
            yield part


def pump(lines: Iterable[bytes], log: IO[str], echo: bool, nonce: str,
         res: Result, t0: float) -> None:
    for raw in lines:
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


Started = Callable[["subprocess.Popen[bytes]"], None]


def run_qemu(req: BootRequest, qemu_cmd: List[str], log_path: Path,
             started: Optional[Started] = None, notes: Sequence[str] = (),
             console: Optional[Path] = None) -> Result:
    """Run QEMU in a session of its own (a caller may killpg it: started gets
    the process) until the marker, a timeout or its end; QEMU is stopped.
    The log starts with the command line and the notes, one "# " line each,
    then the console: from the file console if qemu_cmd writes it there
    (QEMU's own messages follow then on its stdout), else from QEMU's stdout."""
    res = Result(log=str(log_path))
    t0 = time.monotonic()
    if console is not None:
        console.write_bytes(b"")  # there to be followed before QEMU opens it
    with open(log_path, "w") as log:
        log.write("".join(f"# {line}\n" for line in [" ".join(qemu_cmd), *notes]))
        try:
            proc = subprocess.Popen(qemu_cmd, stdin=subprocess.DEVNULL,
                                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                    start_new_session=True)
        except OSError as e:
            res.status, res.exit_code = "error", EXIT_HARNESS
            res.splats.append(f"cannot start QEMU: {e}")
            return res
        if started is not None:
            started(proc)
        assert proc.stdout is not None
        own: Iterable[bytes] = iter(proc.stdout.readline, b"")
        lines = own if console is None else follow(console, proc)
        reader = threading.Thread(target=pump, daemon=True,
                                  args=(lines, log, req.echo, req.nonce, res, t0))
        qemu_out: List[bytes] = []  # with console: QEMU's own messages, logged last
        own_reader = threading.Thread(target=qemu_out.extend, args=(own,), daemon=True)
        if console is not None:
            own_reader.start()
        reader.start()
        timed_out = False
        try:
            while proc.poll() is None:
                if time.monotonic() - t0 > req.timeout:
                    timed_out = True
                    break
                if res.guest_rc is not None and time.monotonic() - t0 > req.timeout / 2:
                    break  # marker seen but no power-off: do not wait for ever
                time.sleep(0.05)
        finally:
            stop(proc)
        reader.join(5)
        if console is not None:
            own_reader.join(5)
            log.write("".join(f"# qemu: {b.decode('utf-8', 'replace')}" for b in qemu_out))
    res.host_total_s = time.monotonic() - t0
    classify(res, timed_out, proc.returncode)
    return res


def missing(req: BootRequest) -> Optional[str]:
    """Why req cannot boot here (QEMU or a file missing), or None."""
    if shutil.which(req.qemu) is None:
        return f"{req.qemu} not found (apt-get install qemu-system-x86)"
    for f in (kernel_image(req.kernel), req.initrd):
        if not f.is_file():
            return f"missing {f}"
    return None


def boot(req: BootRequest, started: Optional[Started] = None) -> Result:
    """Boot req's kernel, run its command, return what happened (parse.Result)."""
    why = missing(req)
    if why is not None:
        return Result(status="error", exit_code=EXIT_HARNESS, splats=[why])
    with tempfile.TemporaryDirectory(prefix="ppf-vm-") as tmp:
        initrd = req.initrd
        if req.command is not None or req.adds:
            initrd = compose_initrd(req.initrd, build_overlay(req.command, req.adds),
                                    Path(tmp))
        log_path = req.log or Path(tempfile.mkstemp(prefix="ppf-vm-", suffix=".log")[1])
        kernel = kernel_image(req.kernel)
        console = Path(tmp) / "console"
        # record mode needs its own block driver (blkreplay) for disks; one
        # vCPU is what the evaluation boots and what was measured with it
        record = Path(tmp) / "replay.bin" if not req.disks and req.smp == 1 else None
        qemu_cmd = qemu_command(req, kernel, initrd, kernel_cmdline(req), console, record)
        # what the guest is given, by content: two boots with the same
        # hashes, command line and QEMU run the same instructions (under -icount)
        notes = [f"kernel sha256 {sha256_of(kernel)}", f"initrd sha256 {sha256_of(initrd)}"]
        res = run_qemu(req, qemu_cmd, log_path, started, notes, console)
    if req.no_splat_check and res.status == "splat" and res.guest_rc is not None:
        splats = res.splats
        res.splats = []
        classify(res, False, None)
        res.splats = splats
    return res


def write_json(res: Result, path: Path) -> None:
    path.write_text(json.dumps(dataclasses.asdict(res), indent=2) + "\n")


def report(res: Result, req: BootRequest) -> None:
    """run.py's closing lines on stderr (and the console's tail if it was not echoed)."""
    def fmt(x: Optional[float]) -> str:
        return "-" if x is None else f"{x:.2f}"
    guest = None
    if res.guest_start_uptime_s is not None and res.guest_end_uptime_s is not None:
        guest = res.guest_end_uptime_s - res.guest_start_uptime_s
    mode = ("kvm" if req.kvm else "tcg") + \
        ("" if req.wall_clock or req.kvm else f" icount shift={req.icount_shift}")
    print(f"run.py: {res.status} guest_rc={res.guest_rc} exit={res.exit_code} [{mode}] "
          f"host boot {fmt(res.host_boot_s)} s, host total {fmt(res.host_total_s)} s, "
          f"guest command {fmt(guest)} s; log {res.log}", file=sys.stderr)
    for s in res.splats[:20]:
        print(f"run.py: FAIL {s}", file=sys.stderr)
    if res.status in ("splat", "timeout", "no-marker") and not req.echo:
        print("run.py: last console lines:", file=sys.stderr)
        lines = Path(res.log).read_text(errors="replace").splitlines()
        for line in lines[-40:]:
            print("  | " + line, file=sys.stderr)


# ----------------------------------------------------------------------------
# The command line: a BootRequest from argv

def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    doc = __doc__ or ""
    p = argparse.ArgumentParser(description=doc.split("\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=doc.split("\n", 1)[1])
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
                   help="add " + " ".join(NULL_BLK_TIMED))
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


def request(args: argparse.Namespace) -> BootRequest:
    """The BootRequest of run.py's command line."""
    command = args.cmd if args.cmd is not None else (
        args.script.read_text() if args.script else None)
    return BootRequest(
        kernel=args.kernel, initrd=args.initrd, command=command, adds=tuple(args.add),
        disks=tuple(args.disk),
        append=(NULL_BLK_TIMED if args.null_blk else ()) + tuple(args.append),
        memory=args.memory, smp=args.smp, timeout=args.timeout,
        icount_shift=args.icount_shift, wall_clock=args.wall_clock, kvm=args.kvm,
        seabios=args.seabios, log=args.log, echo=not args.quiet,
        no_splat_check=args.no_splat_check, nonce=args.nonce, qemu=args.qemu,
        qemu_args=tuple(args.qemu_arg))


def main(argv: Sequence[str]) -> int:
    args = parse_args(argv)
    req = request(args)
    why = missing(req)
    if why is not None:
        print(f"run.py: {why}", file=sys.stderr)
        return EXIT_HARNESS
    res = boot(req)
    report(res, req)
    if args.json:
        write_json(res, args.json)
    return res.exit_code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
