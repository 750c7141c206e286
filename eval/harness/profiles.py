"""Disk profiles: a memory-backed null_blk device with a fixed service time
per request, one request at a time, and a bandwidth cap.

null_blk's model is "each request takes completion_nsec, and no more than
mbps MiB leave the device per second" (main.c: a per-request hrtimer with
irqmode=2; the cap is a byte budget refilled every 20 ms, mb_per_tick()).
A real disk charges positioning + size / bandwidth for each request; here a
request costs max(completion_nsec, size / bandwidth) when the queue is busy.
For the small random reads that dominate the three workloads this is the
positioning time; a large sequential read hits the cap.  fio measures both
in the guest (calibrate).
"""

from __future__ import annotations

import dataclasses
from typing import Dict, Tuple

from ..vm.config import null_blk_params


@dataclasses.dataclass(frozen=True)
class Profile:
    name: str
    completion_nsec: int      # per-request service time
    mbps: int                 # bandwidth cap, MiB/s (null_blk's unit)
    source: str               # where the numbers come from

    def kernel_params(self, gb: int, nr_devices: int = 2) -> Tuple[str, ...]:
        return null_blk_params(gb, completion_nsec=self.completion_nsec, mbps=self.mbps,
                               nr_devices=nr_devices)


PROFILES: Dict[str, Profile] = {p.name: p for p in [
    Profile("hdd-2001", 12_000_000, 10,
            "the paper's Seagate Barracuda ST34371W (4.3 GB, 7,200 rpm, Ultra Wide SCSI): "
            "average read seek ~8.8 ms + half a rotation 4.17 ms = ~13 ms per random "
            "request, ~12 ms with short seeks within one file system; media rate "
            "~80-120 Mbit/s, i.e. ~10 MB/s sustained"),
    Profile("hdd", 8_000_000, 172,
            "a current 7,200 rpm SATA disk (e.g. 3.5\" 4-8 TB class): ~120 random IOPS "
            "at queue depth 1 = ~8 ms per request; ~180 MB/s (172 MiB/s) sustained"),
    Profile("ssd", 100_000, 477,
            "a SATA SSD: ~80-100 us for a 4 KiB random read at queue depth 1; "
            "SATA 6 Gb/s caps sequential reads at ~500-550 MB/s (477 MiB/s)"),
    Profile("cloud", 1_000_000, 119,
            "a networked block volume (e.g. AWS EBS gp3 baseline): ~1 ms per request "
            "(\"single-digit millisecond\" latency), 125 MB/s (119 MiB/s) baseline "
            "throughput"),
]}
