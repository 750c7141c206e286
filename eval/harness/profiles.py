"""Disk profiles: which device the guest's workload runs on, with its
parameters, the guest's I/O scheduler in front of it, and where the figures
come from.

Two devices (docs/results.md, "Disk profiles", says why):

- "simdisk": eval/blkdev's ppf_simdisk.ko, a memory-backed disk with a
  rotational disk's timing (one arm: seek by distance, rotational latency,
  transfer, read-ahead buffer; NCQ with queue_depth > 1).  Loaded in the
  guest with the profile's parameters; it completes requests at once until
  the image is copied, then run-experiment.sh sets timed=1.
- "null_blk": the kernel's null_blk (built in, parameters on the kernel
  command line), memory-backed, each request completing completion_nsec
  after it was issued, up to hw_queue_depth at once, and at most mbps MiB/s:
  flash and networked volumes, whose cost hardly depends on position.

A Profile tells the harness what the guest needs: kernel parameters, files
(the simdisk module), and eval.conf lines: DEV (the device path), DEV_SETUP
(shell run before the image is copied: load, I/O scheduler) and DEV_TIMED
(shell run after the copy).
"""

from __future__ import annotations

import dataclasses
import threading
from pathlib import Path
from typing import Dict, Tuple

from ..vm import kernel
from ..vm.config import null_blk_params

SIMDISK = "simdisk"
NULL_BLK = "null_blk"


@dataclasses.dataclass(frozen=True)
class Profile:
    name: str
    device: str                        # SIMDISK | NULL_BLK
    params: Tuple[Tuple[str, int], ...]  # the device's parameters (module params)
    scheduler: str                     # the guest's I/O scheduler for the device
    source: str                        # where the figures come from
    calib_mb: int = 4096               # device size for the fio calibration
    # requests the scheduler may hold (queue/nr_requests); 0: the kernel's
    # default, 2 x the driver's tags (2 for a device of one tag)
    nr_requests: int = 0

    def __post_init__(self) -> None:
        if self.device not in (SIMDISK, NULL_BLK):
            raise ValueError(f"profile {self.name}: unknown device {self.device!r}")
        if self.scheduler not in ("none", "mq-deadline", "bfq", "kyber"):
            raise ValueError(f"profile {self.name}: unknown I/O scheduler {self.scheduler!r}")

    @property
    def dev(self) -> str:
        """The device node in the guest."""
        return "/dev/simdisk0" if self.device == SIMDISK else "/dev/nullb0"

    def param(self, key: str) -> int:
        return dict(self.params)[key]

    def kernel_params(self, size_mb: int) -> Tuple[str, ...]:
        """Kernel command line parameters for a device of size_mb MiB."""
        if self.device != NULL_BLK:
            return ()
        p = dict(self.params)
        return null_blk_params(max(1, -(-size_mb // 1024)), p["completion_nsec"],
                               p.get("mbps"), hw_queue_depth=p["hw_queue_depth"])

    def guest_adds(self, kdir: Path) -> Tuple[str, ...]:
        """Files the guest needs (run.py's SRC:DEST): the simdisk module,
        built against kdir."""
        if self.device != SIMDISK:
            return ()
        return (f"{simdisk_ko(kdir)}:/ppf/ppf_simdisk.ko",)

    def eval_conf(self, size_mb: int) -> str:
        """eval.conf lines (run-experiment.sh, calibrate.sh): DEV, DEV_SETUP, DEV_TIMED."""
        name = self.dev.rsplit("/", 1)[1]
        sched = f"echo {self.scheduler} > /sys/block/{name}/queue/scheduler"
        if self.nr_requests:  # after the scheduler: switching resets it
            sched += f" && echo {self.nr_requests} > /sys/block/{name}/queue/nr_requests"
        if self.device == SIMDISK:
            args = " ".join(f"{k}={v}" for k, v in self.params)
            setup = f"insmod /ppf/ppf_simdisk.ko size_mb={size_mb} {args} && {sched}"
            timed = "echo 1 > /sys/module/ppf_simdisk/parameters/timed"
        else:
            setup, timed = sched, ":"
        return f"DEV={self.dev}\nDEV_SETUP='{setup}'\nDEV_TIMED='{timed}'\n"


_BUILD_LOCK = threading.Lock()


def simdisk_ko(kdir: Path) -> Path:
    """ppf_simdisk.ko for kdir (cached; one build at a time: the harness
    boots VMs from several threads)."""
    from .build import CACHE  # build imports the workloads, not the profiles
    with _BUILD_LOCK:
        return kernel.build_simdisk(kdir, CACHE)


def simdisk(name: str, source: str, *, disk_mb: int, queue_depth: int, rpm: int,
            media_kbps: int, seek_track_us: int, seek_avg_us: int, overhead_us: int,
            iface_mbps: int, buffer_kb: int, scheduler: str = "mq-deadline",
            nr_requests: int = 0) -> Profile:
    """A rotational disk; the calibration's device is the whole modelled disk."""
    params = (("disk_mb", disk_mb), ("queue_depth", queue_depth), ("rpm", rpm),
              ("media_kbps", media_kbps), ("seek_track_us", seek_track_us),
              ("seek_avg_us", seek_avg_us), ("overhead_us", overhead_us),
              ("iface_mbps", iface_mbps), ("buffer_kb", buffer_kb))
    return Profile(name, SIMDISK, params, scheduler, source, calib_mb=disk_mb,
                   nr_requests=nr_requests)


def null_blk(name: str, source: str, *, depth: int, completion_us: int, mbps: int,
             scheduler: str, nr_requests: int = 0) -> Profile:
    """A flash or networked device: a fixed latency, depth requests at once."""
    params = (("hw_queue_depth", depth), ("completion_nsec", completion_us * 1000),
              ("mbps", mbps))
    return Profile(name, NULL_BLK, params, scheduler, source, nr_requests=nr_requests)


PROFILES: Dict[str, Profile] = {p.name: p for p in [
    simdisk("hdd-2001",
            "the paper's disk, a Seagate Barracuda 4LP ST34371W (4.3 GB, 7,200 rpm, "
            "Ultra Wide SCSI 40 MB/s): ~8.8 ms average read seek, ~10 MB/s media rate "
            "(80-122 Mbit/s), 512 KB buffer; track-to-track 0.6 ms and 0.3 ms "
            "command overhead are typical of the era, not from the datasheet. "
            "Queue depth 1 (the paper's Linux 2.2 issued one command at a time), "
            "mq-deadline in front holding up to 256 requests, what today's kernel "
            "gives a SCSI disk behind a host adapter (2 x min(host queue, 128)); "
            "the default for a one-tag device, 2, leaves the elevator nothing to sort",
            disk_mb=4150, queue_depth=1, rpm=7200, media_kbps=10000, seek_track_us=600,
            seek_avg_us=8800, overhead_us=300, iface_mbps=40, buffer_kb=512,
            nr_requests=256),
    simdisk("hdd",
            "a current 7,200 rpm 4 TB SATA disk (desktop and NAS class): ~8.5 ms "
            "average seek, ~200 MB/s media rate (outer zones), 1 ms "
            "track-to-track, SATA 600 MB/s; NCQ with 32 tags, "
            "read-ahead segment 2 MiB and 0.1 ms overhead assumed; mq-deadline",
            disk_mb=3_815_000, queue_depth=32, rpm=7200, media_kbps=200_000,
            seek_track_us=1000, seek_avg_us=8500, overhead_us=100, iface_mbps=600,
            buffer_kb=2048),
    null_blk("ssd",
             "a SATA SSD (e.g. Samsung 870 EVO class): ~100 us for a 4 KiB random "
             "read at queue depth 1, NCQ 32 tags, SATA 6 Gb/s caps reads at "
             "~500 MB/s (477 MiB/s); mq-deadline (the kernel's default for a "
             "single-queue device)",
             depth=32, completion_us=100, mbps=477, scheduler="mq-deadline"),
    null_blk("nvme",
             "an NVMe SSD (PCIe 3.0 x4 class): ~80 us for a 4 KiB random read at "
             "queue depth 1, 128 requests at once here (drives take 64K per queue; "
             "128 is beyond what one vCPU issues), ~3 GB/s (2,861 MiB/s); no "
             "scheduler, the kernel's default for NVMe",
             depth=128, completion_us=80, mbps=2861, scheduler="none"),
    null_blk("cloud",
             "a networked volume at the AWS EBS gp3 baseline: 3,000 IOPS, "
             "125 MB/s (119 MiB/s), ~1 ms per request; 3 requests in flight of "
             "1 ms each is the 3,000 IOPS cap. The real volume is an NVMe device "
             "with a deep queue whose throttle holds what exceeds the cap; here "
             "mq-deadline holds it, up to 256 requests (with the default, 2 x 3 "
             "tags, a seventh request would block its submitter)",
             depth=3, completion_us=1000, mbps=119, scheduler="mq-deadline",
             nr_requests=256),
]}
