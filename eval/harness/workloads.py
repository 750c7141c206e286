"""The recorded workloads: trace, room for the files the run creates, VM size."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Dict

TOP = Path(__file__).resolve().parents[2]


@dataclasses.dataclass(frozen=True)
class Workload:
    name: str
    room_mb: int      # free space for the files a run creates (bytes_written + slack)
    memory: str       # guest RAM: null_blk's copy of the image + page cache
    timeout: int      # host seconds per VM (a whole configuration)

    @property
    def trace(self) -> Path:
        return TOP / "eval" / "workloads" / self.name / f"{self.name}.trace.gz"


WORKLOADS: Dict[str, Workload] = {w.name: w for w in [
    # andrew writes 2.2 MB; gnuld 622 MB (vmlinux.o 82 MB, three temporary
    # images, vmlinux); glimpse a small index.
    Workload("andrew", 96, "1536M", 1800),
    Workload("gnuld", 900, "3584M", 5400),
    Workload("glimpse", 128, "1536M", 3600),
]}

