"""What to boot: the kernel variants, the null_blk parameters, BootRequest.

Shape after the kernel's tools/testing/kunit/qemu_config.py: every kernel
variant's build flags and boot quirks live in one frozen dataclass, with the
reason for each quirk next to it, instead of in the clients' argv lists.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Dict, Optional, Tuple

TOP = Path(__file__).resolve().parents[2]

# The marker nonce is on the kernel command line, which seeds the guest's RNG:
# a random nonce made every boot's timing differ, so it is fixed by default.
DEFAULT_NONCE = "c0ffee5eed"
DEFAULT_ICOUNT_SHIFT = 2  # 2^2 ns per guest instruction: a 250 MIPS virtual CPU


def null_blk_params(gb: int = 1, completion_nsec: Optional[int] = None,
                    mbps: Optional[int] = None,
                    nr_devices: Optional[int] = None,
                    hw_queue_depth: int = 1) -> Tuple[str, ...]:
    """Kernel parameters of a memory-backed null_blk device of gb GiB.

    With completion_nsec, every request takes that long (a per-request
    hrtimer, irqmode=2), up to hw_queue_depth at once on one queue (the
    test VM's guest has one vCPU in the evaluation); mbps caps the
    bandwidth (MiB/s).  The order of the parameters is fixed: the command
    line is part of what the guest sees.
    """
    params = ["null_blk.memory_backed=1"]
    if completion_nsec is not None:
        params += ["null_blk.irqmode=2", f"null_blk.completion_nsec={completion_nsec}",
                   f"null_blk.hw_queue_depth={hw_queue_depth}", "null_blk.submit_queues=1"]
    params.append(f"null_blk.gb={gb}")
    if mbps is not None:
        params.append(f"null_blk.mbps={mbps}")
    if nr_devices is not None:
        params.append(f"null_blk.nr_devices={nr_devices}")
    return tuple(params)


# run.py --null-blk: 1 GiB, 5 ms a request (eval/vm/selftest.sh's timing check)
NULL_BLK_TIMED = null_blk_params(completion_nsec=5_000_000)


@dataclasses.dataclass(frozen=True)
class BootRequest:
    """One boot: a kernel, an initramfs, one command, what to add, how to run."""
    kernel: Path                      # bzImage, or a build dir (KDIR) from build.sh
    initrd: Path                      # base initramfs from eval/vm/initramfs.sh
    command: Optional[str] = None     # shell text run as /ppf/cmd.sh
    adds: Tuple[str, ...] = ()        # SRC[:DEST] files/dirs for the guest
    disks: Tuple[str, ...] = ()       # IMG[:ro] raw virtio disks (/dev/vda, ...)
    append: Tuple[str, ...] = ()      # extra kernel command line parameters
    memory: str = "1G"
    smp: int = 2
    timeout: float = 300.0            # host seconds
    icount_shift: int = DEFAULT_ICOUNT_SHIFT
    wall_clock: bool = False          # no -icount (plain TCG)
    kvm: bool = False                 # -accel kvm (wall clock)
    seabios: bool = False             # SeaBIOS instead of qboot
    log: Optional[Path] = None        # console log (default: a file in $TMPDIR)
    echo: bool = False                # echo the console to stdout
    no_splat_check: bool = False      # report splats but do not fail on them
    nonce: str = DEFAULT_NONCE        # marker nonce (kept fixed: it changes guest timing)
    qemu: str = "qemu-system-x86_64"
    qemu_args: Tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True)
class KernelVariant:
    """A kernel the tests and the evaluation boot, and how it must be booted."""
    name: str
    build_flags: Tuple[str, ...] = ()   # eval/kernel/build.sh options
    debian: str = ""                    # Debian's own kernel of this series (debian.py)
    icount_shift: Optional[int] = None  # overrides the request's
    seabios: bool = False
    append: Tuple[str, ...] = ()        # after the request's own parameters

    def boot(self, req: BootRequest) -> BootRequest:
        """req with this variant's boot quirks applied."""
        return dataclasses.replace(
            req, seabios=req.seabios or self.seabios, append=req.append + self.append,
            icount_shift=req.icount_shift if self.icount_shift is None else self.icount_shift)


BASE = KernelVariant("base")
# The debug kernel: KASAN, lockdep, kmemleak, atomic-sleep and list checks
# (eval/kernel/config/debug.config).
#
# Under those checks the ACPI interpreter is so slow that QEMU's PCI
# interrupt routing method (_PRT, a 128-round AML loop) takes 27 s of guest
# time per PCI device at 1 ns an instruction, and at 4 ns passes ACPI's 30 s
# loop timeout (AE_AML_LOOP_TIMEOUT: the virtio disk gets no interrupt).
# pci=noacpi routes PCI interrupts by the BIOS's $PIR table instead, which
# SeaBIOS has (qboot has none): a boot with two disks takes 12 s of host time,
# against 44 s with one disk and ACPI routing.  1 ns an instruction (icount
# shift 0) gives the slow debug kernel four times as many instructions per
# guest second before the RCU-stall and hung-task watchdogs.
DEBUG = KernelVariant("debug", build_flags=("--debug",), icount_shift=0, seabios=True,
                      append=("pci=noacpi",))
# Debian's own 6.12 kernel, and its default 6.1, with the module built against
# their headers (debian.py; its guest prelude loads ext4 and virtio_blk,
# modules there).
DEBIAN = KernelVariant("debian", debian="6.12")
DEBIAN61 = KernelVariant("debian61", debian="6.1")

VARIANTS: Dict[str, KernelVariant] = {v.name: v for v in (BASE, DEBUG, DEBIAN, DEBIAN61)}
