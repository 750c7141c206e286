"""realcheck: the real program against its replay, in one VM (issue 9,
"Replay fidelity").

    python3 -m eval.harness realcheck glimpse [--profile hdd-2001]

One boot on the profile's device, stock readahead (the module loaded, model
none): the workload's recorded command (the trace's `meta command`) runs for
real, cold (caches dropped) then hot, chrooted into an image that holds the
real file tree and the host's real binaries at the paths the trace names;
then ppf-replay replays the committed trace on the same image, cold then hot,
as run-experiment.sh does (the same spin rate as the experiments: think time
scaled to the untraced run's compute time).  Each run is timed in the guest
with the guest's clock (ppf-clock), with /sys/block/DEV/stat and the guest
shell's children's CPU time read before and after.  The table adds the
replays of the experiment WORKLOAD-PROFILE (e.g. glimpse-hdd2001: none
cold-1, hot hot-1) when its results are there.

The image: build-tree's tree of the trace (the replay's), then the real
content over it: the workload's real tree (a recipe per workload, REAL_TREES;
only glimpse has one) and, for every file outside the recorded root, the
host's own file (ELF loader, library symlinks and /bin/sh added: the trace
has no event for them).  Results in $PPF_CACHE/eval/results/realcheck-NAME-PROFILE/.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from .. import tracefmt
from ..vm import run as vm
from ..vm.config import BootRequest
from ..vm.parse import extract
from . import build, runner, sparse
from .profiles import PROFILES, Profile
from .workloads import TOP, Workload, workload

GUEST_SCRIPT = TOP / "eval" / "guest" / "realcheck.sh"
# Bumped when what goes into the image changes (the image is cached by it).
IMAGE_VERSION = 1
# One replay-equivalent of timeout per run: 2 real, 2 replayed, build-tree,
# and the real runs' CPU (glimpseindex under -icount: minutes of host time).
TIMEOUT_RUNS = 8
USER_HZ = 100  # /proc/PID/stat's clock ticks on x86


# ------------------------------------------------------------ the real tree

def record_pins(record_sh: Path) -> Dict[str, str]:
    """The KEY=VALUE assignments of a recording recipe (TARBALL, TREE_SHA256,
    ...): the pins live there, once."""
    pins = {}
    for m in re.finditer(r'^([A-Z_0-9]+)="?([^"\s]*)"?\s*$', record_sh.read_text(), re.M):
        pins[m.group(1)] = m.group(2)
    return pins


def tree_digest(top: Path, sub: str) -> Tuple[int, int, str]:
    """(files, bytes, digest) of the regular files under top/sub: the digest
    is record.sh's, sha256 of `sha256sum` over them, paths sub/..., sorted
    bytewise."""
    paths = sorted(p.relative_to(top).as_posix().encode() for p in (top / sub).rglob("*")
                   if p.is_file() and not p.is_symlink())
    outer = hashlib.sha256()
    total = 0
    for rel in paths:
        data = (top / rel.decode()).read_bytes()
        total += len(data)
        outer.update(hashlib.sha256(data).hexdigest().encode() + b"  " + rel + b"\n")
    return len(paths), total, outer.hexdigest()


def glimpse_tree(t: Path) -> None:
    """glimpse: Documentation/ of the pinned linux-source-6.12, unpacked from
    its tarball and checked as record.sh checks it, in place of build-tree's."""
    pins = record_pins(TOP / "eval" / "workloads" / "glimpse" / "record.sh")
    tarball = Path(pins["TARBALL"])
    if not tarball.is_file():
        raise SystemExit(f"realcheck: {tarball} missing: apt-get install "
                         f"linux-source-6.12={pins['LINUX_SOURCE_VERSION']}")
    with tempfile.TemporaryDirectory(dir=t.parent) as tmp:
        build.log(f"unpacking Documentation/ from {tarball}")
        build.sh(["tar", "-xJf", tarball, "-C", tmp, "linux-source-6.12/Documentation"])
        top = Path(tmp) / "linux-source-6.12"
        got = tree_digest(top, "Documentation")
        want = (int(pins["TREE_FILES"]), int(pins["TREE_BYTES"]), pins["TREE_SHA256"])
        if got != want:
            raise SystemExit(f"realcheck: {tarball}'s Documentation/ is {got} "
                             f"(files, bytes, digest), the trace's was {want}")
        dst = t / "src" / "linux-source-6.12" / "Documentation"
        shutil.rmtree(dst)
        (top / "Documentation").rename(dst)


# workload -> what puts its real tree over build-tree's (below the root)
REAL_TREES: Dict[str, Callable[[Path], None]] = {"glimpse": glimpse_tree}


# ------------------------------------------------------------ the host's files

def place(path: str, root: Path) -> None:
    """The host's path under root as the host has it: each symlink on the way
    a symlink (followed, and its target placed), the file at the end copied."""
    parts = Path(path).parts[1:]
    cur = Path("/")
    for i, part in enumerate(parts):
        cur = cur / part
        dst = root / cur.relative_to("/")
        if cur.is_symlink():
            target = os.readlink(cur)
            if not dst.is_symlink():
                if dst.exists():
                    raise SystemExit(f"realcheck: {dst} exists, the host has a symlink "
                                     f"there ({cur} -> {target})")
                dst.parent.mkdir(parents=True, exist_ok=True)
                os.symlink(target, dst)
            resolved = os.path.normpath(os.path.join(str(cur.parent), target))
            place(os.path.join(resolved, *parts[i + 1:]), root)
            return
    if not cur.is_file():
        raise SystemExit(f"realcheck: the trace names {path}, not a file on this host")
    dst.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(cur, dst)
    shutil.copymode(cur, dst)


def needed_by(path: str) -> List[str]:
    """The shared libraries and loader `ldd` lists for an ELF file (none for others)."""
    with open(path, "rb") as f:
        if f.read(4) != b"\x7fELF":
            return []
    r = subprocess.run(["ldd", path], text=True, stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL)
    return re.findall(r"(?:=> |^\s*)(/\S+)", r.stdout, re.M)


def host_files(files: Sequence[Any], abs_root: Path) -> Dict[str, Any]:
    """Every file of the trace's table (files) outside its root: the host's own
    at _abs/PATH, plus what running them needs.  Returns what differs from the
    trace."""
    outside = [f for f in files
               if f.path.startswith(b"/") and not f.new and not f.is_dir]
    differ = {}
    extra = {"/bin/sh"}
    for f in outside:
        p = f.path.decode()
        place(p, abs_root)
        if os.path.getsize(p) != f.size:
            differ[p] = {"trace": f.size, "host": os.path.getsize(p)}
        extra.update(needed_by(p))
    for p in sorted(extra):
        place(p, abs_root)
    return {"size_differs": differ, "added": sorted(extra)}


# ------------------------------------------------------------ the image

@functools.lru_cache(maxsize=None)
def meta_text(trace: Path, key: str) -> str:
    """A text field of the trace's meta (command, root): what to run, where."""
    v = tracefmt.load_trace(trace)["meta"].get(key)
    if not isinstance(v, bytes) or not v:
        raise SystemExit(f"realcheck: {trace} has no meta {key}: it cannot be run for real")
    return v.decode()


def real_image(w: Workload) -> Tuple[Path, int, Dict[str, Any]]:
    """The image: build-tree's tree with the real files over it.  Cached."""
    if w.name not in REAL_TREES:
        raise SystemExit(f"realcheck: no recipe for {w.name}'s real tree "
                         f"(have: {', '.join(REAL_TREES)})")
    key = f"realcheck-{w.name}-{build.sha(w.trace)}-{w.room_mb}-r{IMAGE_VERSION}"
    img = build.CACHE / "images" / f"{key}.img"
    info_path = img.with_suffix(".json")
    if img.exists() and info_path.exists():
        return img, img.stat().st_size >> 20, json.loads(info_path.read_text())
    t0 = time.monotonic()
    img.parent.mkdir(parents=True, exist_ok=True)
    stage = build.CACHE / "trees" / key
    if stage.exists():
        shutil.rmtree(stage)
    t = stage / "t"
    t.mkdir(parents=True)
    tr = tracefmt.load_trace(w.trace)
    build.sh([build.REPLAY, "build-tree", w.trace, t], stdout=subprocess.DEVNULL)
    REAL_TREES[w.name](t)
    abs_root = t / "_abs"
    info = host_files(tr["files"], abs_root)
    # mount points of the guest: the recorded root (a bind mount of t), /dev
    for d in (meta_text(w.trace, "root").lstrip("/"), "dev", "proc", "tmp"):
        (abs_root / d).mkdir(parents=True, exist_ok=True)
    size_mb = build.mkfs_image(stage, img, w.room_mb)
    shutil.rmtree(stage)
    info_path.write_text(json.dumps(info, indent=1))
    build.log(f"realcheck image {img} ({size_mb} MiB) in {time.monotonic() - t0:.0f} s")
    return img, size_mb, info


# ------------------------------------------------------------ the VM

def spin_rate(w: Workload, profile: Profile) -> str:
    """The experiments' spin rate for w: think time scaled to the untraced
    run's compute time (runner.spin_rate, "compute"), else the calibration."""
    exp = runner.from_spec({"workload": w.name, "profile": profile.name,
                            "spin_rate": "compute" if w.stats.compute_ns else
                            runner.DEFAULT_SPIN_RATE,
                            "configs": [{"name": "none"}]}, w.name, "realcheck")
    return runner.spin_rate(exp)


def conf(w: Workload, profile: Profile, img_mb: int, rate: str) -> str:
    """The guest's /ppf/eval.conf (realcheck.sh); rate: the replay's spin rate."""
    cmd = base64.b64encode(meta_text(w.trace, "command").encode()).decode()
    v = {"TRACE": "/ppf/trace.gz", "IMAGE": "/ppf/image.img",
         "SPIN_RATE": rate, "ROOT": meta_text(w.trace, "root"),
         "CMD64": cmd}
    return "".join(f"{k}={val}\n" for k, val in v.items()) + profile.eval_conf(img_mb)


def boot(b: build.Built, w: Workload, profile: Profile, img: Path, img_mb: int,
         out: Path, rate: str) -> Dict[str, Any]:
    """One VM: realcheck.sh; its results unpacked into out."""
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    (out / "eval.conf").write_text(conf(w, profile, img_mb, rate))
    adds = (f"{b.ko}:/ppf/predictive_prefetch.ko", f"{b.replay}:/ppf/ppf-replay",
            f"{b.helpers['nbcopy']}:/ppf/nbcopy", f"{w.trace}:/ppf/trace.gz",
            f"{out / 'eval.conf'}:/ppf/eval.conf", *profile.guest_adds(b.kdir),
            f"{sparse.sparse_image(img)}:/ppf/image.img")
    req = BootRequest(kernel=b.kdir, initrd=b.initrd, command=GUEST_SCRIPT.read_text(),
                      adds=adds, append=profile.kernel_params(img_mb),
                      memory=w.memory(True), smp=1, icount_shift=runner.ICOUNT_SHIFT,
                      timeout=float(w.timeout(TIMEOUT_RUNS)), log=out / "vm.log")
    t = time.monotonic()
    build.log(f"realcheck: booting ({w.name}, {profile.name}, image {img_mb} MiB)")
    res = vm.boot(req)
    vm.write_json(res, out / "vm.json")
    if not extract((out / "vm.log").read_text(errors="replace"), out) or res.exit_code:
        raise SystemExit(f"realcheck: the VM failed (run.py {res.exit_code}), "
                         f"see {out}/vm.log")
    return {"host_s": round(time.monotonic() - t, 1), "build": b.identity()}


# ------------------------------------------------------------ the results

# /sys/block/DEV/stat: reads, merged, sectors, ms reading, writes, merged, sectors, ms writing
STAT_FIELDS = ("read_ios", "read_merges", "read_sectors", "read_ms",
               "write_ios", "write_merges", "write_sectors", "write_ms")


def run_sample(path: Path) -> Dict[str, Any]:
    """One run of realcheck.sh: elapsed, CPU and device deltas."""
    kv = dict(line.split("=", 1) for line in path.read_text().splitlines() if "=" in line)
    s0, s1 = ([int(x) for x in kv[k].split()[:len(STAT_FIELDS)]] for k in ("stat0", "stat1"))
    d = {f: b - a for f, a, b in zip(STAT_FIELDS, s0, s1)}
    return {"rc": int(kv["rc"]),
            "elapsed_s": (int(kv["clk1"]) - int(kv["clk0"])) / 1e9,
            "cpu_s": (int(kv["cpu1"]) - int(kv["cpu0"])) / USER_HZ,
            "device_read_mb": d["read_sectors"] * 512 / 1e6, "device_reads": d["read_ios"],
            "device_read_s": d["read_ms"] / 1e3,
            "device_write_mb": d["write_sectors"] * 512 / 1e6,
            "device_write_s": d["write_ms"] / 1e3}


def replay_figures(j: Dict[str, Any]) -> Dict[str, Any]:
    """What a ppf-replay --json says of a run: elapsed, I/O, think, bytes."""
    return {"replay_elapsed_s": j["elapsed_ns"] / 1e9,
            "replay_io_latency_s": j["io_latency_ns"] / 1e9,
            "replay_read_latency_s": j["read"]["latency"]["sum_ns"] / 1e9,
            "replay_think_s": j["think_ns"] / 1e9, "read_misses": j["read"]["misses"],
            "bytes_read_mb": j["bytes"]["read"] / 1e6}


def experiment_runs(name: str) -> Dict[str, Dict[str, Any]]:
    """The experiment's replays: none's cold-1 and hot's hot-1, when there,
    with the build that made them (meta.json: another kernel or profile than
    today's makes them another measurement)."""
    out = {}
    for cache, path in (("cold", "none/cold-1.json"), ("hot", "hot/hot-1.json")):
        p = runner.RESULTS / name / path
        if p.is_file():
            meta = json.loads((p.parent / "meta.json").read_text())
            out[cache] = {**replay_figures(json.loads(p.read_text())), "file": str(p),
                          "build": meta.get("build", {})}
    return out


def summarize(out: Path, exp_name: str) -> Dict[str, Any]:
    s: Dict[str, Any] = {"experiment": exp_name, "runs": {}}
    for kind in ("real", "replay"):
        for cache in ("cold", "hot"):
            r = run_sample(out / f"{kind}-{cache}.txt")
            j = out / f"{kind}-{cache}.json"
            if j.is_file():
                r.update(replay_figures(json.loads(j.read_text())))
            s["runs"][f"{kind}-{cache}"] = r
    s["experiment_runs"] = experiment_runs(exp_name)
    return s


def pct(x: float, ref: float) -> str:
    return f"{(x - ref) / ref * 100:+.1f} %" if ref else "-"


def row(cache: str, label: str, r: Dict[str, Any], real: Dict[str, Any]) -> str:
    """One line of the table: a replay's elapsed is its own timed part
    (ppf-replay's elapsed_ns, as in the experiments); the samples around it
    also hold its preparation (trace loaded, spin calibrated: ~2 s of CPU)."""
    el = float(r["replay_elapsed_s"] if "replay_elapsed_s" in r else r["elapsed_s"])
    io = r.get("replay_io_latency_s")
    cells = [cache, label, f"{el:.3f}", pct(el, real["elapsed_s"])]
    if "cpu_s" in r:
        cells += [f"{r['cpu_s']:.2f}", f"{r['device_reads']:,}", f"{r['device_read_mb']:.1f}",
                  f"{r['device_read_s']:.3f}", f"{r['device_write_mb']:.1f}"]
    else:
        cells += ["-"] * 5
    cells.append(f"{io:.3f}" if io is not None else "-")
    return "| " + " | ".join(cells) + " |"


def table(s: Dict[str, Any]) -> str:
    """Markdown: real against replay, cold and hot."""
    out = ["| cache | run | elapsed s | vs real | CPU s (guest) | device reads | "
           "MB read from device | device read time s | MB written | replay I/O latency s |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    for cache in ("cold", "hot"):
        real = s["runs"][f"real-{cache}"]
        out.append(row(cache, "real program", real, real))
        out.append(row(cache, "replay, same VM", s["runs"][f"replay-{cache}"], real))
        e = s["experiment_runs"].get(cache)
        if e:
            stale = "" if e["build"].get("kdir") == s["build"]["kdir"] else \
                " (another kernel build: stale)"
            out.append(row(cache, f"replay, {s['experiment']}{stale}", e, real))
    return "\n".join(out)


def main(name: str, profile_name: str, rate: Optional[str] = None,
         experiment: Optional[str] = None, no_boot: bool = False) -> int:
    """rate: the replay's spin rate (iterations per us), default the
    experiments'; another one (e.g. think time scaled to the real program's
    CPU time in the guest) writes realcheck-NAME-PROFILE-spinRATE.
    experiment: whose none and hot results the table adds (default
    NAME-PROFILE without its dash, e.g. glimpse-hdd2001).  no_boot: the
    table again from the last boot's results (the experiment's may be newer)."""
    if profile_name not in PROFILES:
        raise SystemExit(f"realcheck: unknown profile {profile_name} ({', '.join(PROFILES)})")
    profile = PROFILES[profile_name]
    w = workload(name)
    img, img_mb, info = real_image(w)
    out = runner.RESULTS / (f"realcheck-{name}-{profile_name}"
                            + (f"-spin{rate}" if rate is not None else ""))
    if no_boot:
        if not (out / "realcheck.json").is_file():
            raise SystemExit(f"realcheck: --no-boot: no results in {out}")
        old = json.loads((out / "realcheck.json").read_text())
        meta = {k: old[k] for k in ("host_s", "build")}
    else:
        meta = boot(build.Built(), w, profile, img, img_mb, out,
                    rate or spin_rate(w, profile))
    exp = experiment or f"{name}-{profile_name.replace('-', '')}"
    s = {**summarize(out, exp), **meta,
         "image": info, "image_mb": img_mb,
         "command": f"python3 -m eval.harness realcheck {name} --profile {profile_name}"
         + (f" --spin-rate {rate}" if rate is not None else "")
         + (f" --experiment {experiment}" if experiment is not None else "")}
    (out / "realcheck.json").write_text(json.dumps(s, indent=1))
    print(table(s))
    print(f"realcheck: results in {out}")
    return 0
