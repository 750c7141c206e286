"""Calibration: fio in the guest on each disk profile's own device
(eval/guest/calibrate.sh), so the table in docs/results.md says what the
profiles do, not what they were meant to do.

    python3 -m eval.harness calibrate [PROFILE...]

Writes $PPF_CACHE/eval/results/profiles/NAME/ (the VM log, fio's JSON) and
the summary eval/results/profiles/NAME.json, which is committed; prints a
markdown table of all profiles measured.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import time
from pathlib import Path
from typing import Any, Dict, List, Optional

from ..vm import run as vm
from ..vm.config import DEFAULT_ICOUNT_SHIFT, BootRequest
from ..vm.parse import extract
from . import build
from .profiles import SIMDISK, Profile
from .workloads import TOP

RESULTS = build.CACHE / "results" / "profiles"
COMMITTED = TOP / "eval" / "results" / "profiles"
JOBS = ("rand4k_qd1", "rand4k_span", "rand4k_qd32", "seq1m")
SPAN_MB = 8


def sizes(profile: Profile) -> Dict[str, int]:
    """The jobs' sizes: enough requests for a stable mean, little host time
    (a disk's waits cost the host nothing under -icount; the guest's CPU
    per request does)."""
    if profile.device == SIMDISK:
        return {"RAND_IOS": 300, "SPAN_MB": SPAN_MB, "SEQ_MB": 64}
    return {"RAND_IOS": 2000, "SPAN_MB": SPAN_MB, "SEQ_MB": 256}


def job_summary(fio_json: Path) -> Dict[str, Any]:
    """The figures of one fio job: requests, IOPS, MB/s, completion latency."""
    r = json.loads(fio_json.read_text())["jobs"][0]["read"]
    pct = r["clat_ns"].get("percentile", {})
    return {"ios": r["total_ios"], "iops": r["iops"],
            "MiB_s": r["bw_bytes"] / 2**20, "MB_s": r["bw_bytes"] / 1e6,
            "lat_mean_us": r["clat_ns"]["mean"] / 1e3,
            "lat_stddev_us": r["clat_ns"]["stddev"] / 1e3,
            "lat_p50_us": pct.get("50.000000", 0) / 1e3,
            "lat_p99_us": pct.get("99.000000", 0) / 1e3}


def calibrate(built: build.Built, profile: Profile, shift: int = DEFAULT_ICOUNT_SHIFT,
              out: Optional[Path] = None, commit: bool = True) -> Dict[str, Any]:
    """Boot the fio guest on the profile's device (the whole modelled disk
    for the simdisk) and summarise its four jobs.  out: the work directory
    (default under RESULTS); commit: also write eval/results/profiles/."""
    stem = profile.name if shift == DEFAULT_ICOUNT_SHIFT else f"{profile.name}-shift{shift}"
    out = RESULTS / stem if out is None else out
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    conf = out / "eval.conf"
    conf.write_text(profile.eval_conf(profile.calib_mb)
                    + "".join(f"{k}={v}\n" for k, v in sizes(profile).items()))
    req = BootRequest(kernel=built.kdir, initrd=built.initrd,
                      command=(TOP / "eval" / "guest" / "calibrate.sh").read_text(),
                      adds=(f"{conf}:/ppf/eval.conf", *profile.guest_adds(built.kdir)),
                      append=profile.kernel_params(profile.calib_mb), memory="1536M",
                      smp=1, icount_shift=shift, timeout=1800.0, log=out / "vm.log")
    t = time.monotonic()
    vm.boot(req)
    if not extract((out / "vm.log").read_text(errors="replace"), out):
        raise SystemExit(f"harness: calibration of {profile.name} failed, see {out}/vm.log")
    res: Dict[str, Any] = {"profile": dataclasses.asdict(profile),
                           "scheduler": (out / "scheduler.txt").read_text().strip(),
                           "device_mb": profile.calib_mb, "span_mb": SPAN_MB,
                           "icount_shift": shift,
                           "command": "python3 -m eval.harness calibrate "
                           + (f"--icount-shift {shift} " if shift != DEFAULT_ICOUNT_SHIFT else "")
                           + profile.name}
    for j in JOBS:
        res[j] = job_summary(out / f"fio-{j}.json")
    res["host_s"] = round(time.monotonic() - t, 1)
    (out / "calibration.json").write_text(json.dumps(res, indent=1))
    if commit:  # another clock than the experiments' is a side measurement: -shiftN
        COMMITTED.mkdir(parents=True, exist_ok=True)
        (COMMITTED / f"{stem}.json").write_text(json.dumps(res, indent=1) + "\n")
    return res


def table(results: List[Dict[str, Any]]) -> str:
    """The markdown table of docs/results.md, "Disk profiles"."""
    out = ["| profile | device, scheduler | random 4 KiB qd 1 | same, within 8 MiB | "
           "random 4 KiB qd 32 | sequential 1 MiB |", "|---|---|---|---|---|---|"]
    for r in results:
        q1, sp, q32, seq = (r[j] for j in JOBS)
        dev = r["profile"]["device"]
        out.append(
            f"| {r['profile']['name']} | {dev}, {r['scheduler']} | "
            f"{q1['lat_mean_us']:,.0f} us ({q1['iops']:,.0f} IOPS) | "
            f"{sp['lat_mean_us']:,.0f} us ({sp['iops']:,.0f} IOPS) | "
            f"{q32['iops']:,.0f} IOPS ({q32['iops'] / q1['iops']:.1f}x qd 1) | "
            f"{seq['MB_s']:,.1f} MB/s ({seq['lat_mean_us'] / 1e3:,.1f} ms per 1 MiB) |")
    return "\n".join(out)
