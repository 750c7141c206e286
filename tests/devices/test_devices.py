"""The disk profiles behave like their devices: fio in the test VM
(eval/harness/calibrate.py, eval/guest/calibrate.sh), two boots.

- hdd-2001 (ppf_simdisk, the rotational model): random 4 KiB reads across
  the whole disk cost clearly more than within an 8 MiB span (seek by
  distance), and sequential 1 MiB reads move far more bytes per second
  than random 4 KiB ones (one positioning per stream, not per request);
- nvme (null_blk, 128 tags): 32 reads in flight complete well over twice
  as many reads per second as one at a time, and more than a device serving
  one at a time could (parallel service).

The guest runs under -icount, so the figures are the same on every machine;
the bounds are far from the measured values (docs/results.md, "Disk
profiles") and fail only if a model stops doing what it is for.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict

import pytest

from eval.harness import build, calibrate
from eval.harness.profiles import PROFILES


@pytest.fixture(scope="module")
def built() -> build.Built:
    build.ensure_packages(["fio"])
    return build.Built(fio=True)


def measure(built: build.Built, name: str, tmp: Path) -> Dict[str, Any]:
    res = calibrate.calibrate(built, PROFILES[name], out=tmp / name, commit=False)
    print(calibrate.table([res]))
    return res


def test_rotational_disk_charges_distance_and_streams(built: build.Built,
                                                      tmp_path: Path) -> None:
    r = measure(built, "hdd-2001", tmp_path)
    whole, span = r["rand4k_qd1"]["lat_mean_us"], r["rand4k_span"]["lat_mean_us"]
    assert whole > 1.5 * span, f"random 4 KiB: whole disk {whole:.0f} us, 8 MiB {span:.0f} us"
    rand_mb_s, seq_mb_s = r["rand4k_qd1"]["MB_s"], r["seq1m"]["MB_s"]
    assert seq_mb_s > 20 * rand_mb_s, f"sequential {seq_mb_s:.2f} MB/s, random {rand_mb_s:.3f}"
    assert 5 < seq_mb_s < 12, f"sequential {seq_mb_s:.2f} MB/s: not the ~10 MB/s media rate"


def test_deep_queue_serves_in_parallel(built: build.Built, tmp_path: Path) -> None:
    """Under the experiments' clock (4 ns an instruction) the guest's own CPU
    per read (~40 us in fio and the kernel) caps flash near 23,000 IOPS, so
    the check is against what one-at-a-time service could reach at all."""
    prof = PROFILES["nvme"]
    r = measure(built, "nvme", tmp_path)
    qd1, qd32 = r["rand4k_qd1"]["iops"], r["rand4k_qd32"]["iops"]
    serial = 1e9 / prof.param("completion_nsec")
    assert qd32 > 2 * qd1, f"random 4 KiB: {qd32:.0f} IOPS at depth 32, {qd1:.0f} at 1"
    assert qd32 > 1.4 * serial, f"{qd32:.0f} IOPS at depth 32: one at a time allows {serial:.0f}"
