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
content over it: the workload's real tree (a recipe per workload, REAL_TREES:
glimpse, pystart, pbuild-j2 and -j4, andrew, mixed, gnuld) and, for every file outside the recorded
root, the host's own file (ELF loader, library symlinks, /bin/sh and the
recipe's RealRun.host added: the trace has no event for them).  Results in
$PPF_CACHE/eval/results/realcheck-NAME-PROFILE/ ($PPF_RESULTS/... when set).
"""

from __future__ import annotations

import base64
import dataclasses
import functools
import gzip
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Set, Tuple

from .. import tracefmt
from ..vm import run as vm
from ..vm.config import BootRequest
from ..vm.parse import extract
from . import build, runner, sparse
from .profiles import PROFILES, Profile
from .workloads import TOP, WORKLOADS, Workload, workload

GUEST_SCRIPT = TOP / "eval" / "guest" / "realcheck.sh"
# Bumped when what goes into the image changes (the image is cached by it).
# 2: the host's files keep their mtimes (Python's .pyc are checked against
# their sources' mtimes: copied without them, every import recompiled).
IMAGE_VERSION = 2
# One replay-equivalent of timeout per run: 2 real, 2 replayed, build-tree,
# and the real runs' CPU (glimpseindex under -icount: minutes of host time).
TIMEOUT_RUNS = 10  # + a traced cold run of each
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


def glimpse_tree(t: Path, trace: Path) -> None:
    """glimpse: Documentation/ of the pinned linux-source-6.12, unpacked from
    its tarball and checked as record.sh checks it (its pins, not the
    trace's sizes), in place of build-tree's."""
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


PYSTART = TOP / "eval" / "workloads" / "pystart"
# record.sh's environment: its exports, and the directory it records from
PYSTART_PYTHON = "/usr/bin/python3"


def pystart_tree(t: Path, trace: Path) -> None:
    """pystart: the recorded root as record.sh makes it: plot.py, and the
    matplotlib config dir mpl/ with the font cache of one untraced start-up
    (the host's python3 and matplotlib, MPLCONFIGDIR=mpl, LC_ALL=C), its
    figure removed.  The font cache must have the recording's size (it lists
    the host's fonts: another font set, another cache)."""
    shutil.copyfile(PYSTART / "plot.py", t / "plot.py")
    font_cache(t, trace, "pystart")


def font_cache(t: Path, trace: Path, who: str) -> None:
    """mpl/ under t as one untraced start-up of t/plot.py leaves it, which
    must be the trace's (pystart_tree())."""
    mpl = t / "mpl"
    if mpl.exists():
        shutil.rmtree(mpl)
    env = {k: v for k, v in os.environ.items()
           if k not in ("LANG", "LANGUAGE", "PYTHONPATH", "PYTHONHOME",
                        "PYTHONDONTWRITEBYTECODE")}
    env.update(LC_ALL="C", MPLCONFIGDIR=str(mpl))
    with tempfile.TemporaryDirectory(dir=t.parent) as tmp:
        build.log(f"{who}: one untraced start-up for matplotlib's font cache")
        subprocess.run([PYSTART_PYTHON, str(t / "plot.py"), str(Path(tmp) / "warm.png")],
                       env=env, cwd=tmp, check=True)
    want = {f.path.decode(): f.size for f in tracefmt.load_trace(trace)["files"]
            if f.path.startswith(b"mpl/")}
    got = {p.relative_to(t).as_posix(): p.stat().st_size for p in mpl.rglob("*") if p.is_file()}
    if got != want:
        raise SystemExit(f"realcheck: {who}'s mpl/ is {got}, the recording's was {want} "
                         "(another matplotlib or font set than the recording's?)")


PBUILD = TOP / "eval" / "workloads" / "pbuild"
# what a recipe's tree that is not its trace's most likely has
CRATE_OR_MAKEFILE = "another crate or Makefile than the recording's?"


def tree_differs(t: Path, files: Sequence[Any], what: Callable[[bytes], bool]) -> List[str]:
    """The files of the trace's table (files) under the root that what()
    selects, as t has them against the sizes the trace records: one line
    per file missing or of another size."""
    out = []
    for f in files:
        if f.new or f.is_dir or f.path.startswith(b"/") or not what(f.path):
            continue
        p = t / f.path.decode()
        if not p.is_file():
            out.append(f"{f.path.decode()}: missing (the trace's is {f.size} bytes)")
        elif p.stat().st_size != f.size:
            out.append(f"{f.path.decode()}: {p.stat().st_size} bytes, the trace's {f.size}")
    return out


def require_tree(t: Path, trace: Path, who: str, what: Callable[[bytes], bool],
                 why: str = "", most: Optional[int] = None) -> None:
    """Exit if a recipe's tree t is not the trace's: each file what() selects
    that is missing or of another size (tree_differs()), at most `most` of
    them named; why: the likely cause, said with them."""
    differ = tree_differs(t, tracefmt.load_trace(trace)["files"], what)
    if differ:
        cause = f" ({why})" if why else ""
        raise SystemExit(f"realcheck: {who}'s tree is not {trace.name}'s{cause}: " +
                         "; ".join(differ[:most]))


def copy_as_recorded(src: Path, dst: Path, like: Path) -> None:
    """A recipe's script copied as record.sh copies it, with like's mtime."""
    shutil.copy(src, dst)
    st = like.stat()
    os.utime(dst, (st.st_atime, st.st_mtime))


def pbuild_tree(t: Path, trace: Path) -> None:
    """pbuild: the recorded root as record.sh makes it: src/ as prepare.sh
    installs it (the pinned lzma-sys crate from crates.io, its sha256
    checked: xz 5.2's liblzma, common and xz sources, the crate's config.h,
    the workload's Makefile; read-only), whole (make's $(wildcard) lists its
    directories), and pbuild.sh.  Every file of the trace under src/, and
    pbuild.sh, must have the size the trace records."""
    with tempfile.TemporaryDirectory(dir=t.parent) as tmp:
        build.log("pbuild: prepare.sh (the lzma-sys crate, from crates.io)")
        # its own work area: prepare.sh empties $PPF_WORKDIR/pbuild/scratch
        subprocess.run(["bash", str(PBUILD / "prepare.sh")],
                       env={**os.environ, "PPF_WORKDIR": tmp}, check=True)
        src = Path(tmp) / "pbuild" / "scratch" / "src"
        # prepare.sh copies the Makefile without its mtime: today, which the
        # guest (its clock starts at 2025-01-01, run.py's -rtc base) would
        # see in the future (make's warning and its clock-skew check, which
        # the recording did not have); the crate's config.h's instead
        st = (src / "config.h").stat()
        os.utime(src / "Makefile", (st.st_atime, st.st_mtime))
        shutil.rmtree(t / "src")
        shutil.move(str(src), t / "src")
    copy_as_recorded(PBUILD / "pbuild.sh", t / "pbuild.sh", t / "src" / "config.h")
    require_tree(t, trace, "pbuild", lambda p: p.startswith(b"src/") or p == b"pbuild.sh",
                 CRATE_OR_MAKEFILE)


ANDREW = TOP / "eval" / "workloads" / "andrew"


def andrew_src(dst: Path, work: Path) -> None:
    """Andrew's input tree at dst (src/ of its root): prepare.sh run in a work
    area of its own (the pinned libz-sys crate from crates.io, its sha256
    checked: zlib 1.3.1's sources and test programs, the workload's
    Makefile; read-only), the Makefile given zlib.h's mtime (copied today,
    it would be in the guest's future: make's clock-skew check).  work: a
    directory for prepare.sh's work area, outside the image's tree."""
    with tempfile.TemporaryDirectory(dir=work) as tmp:
        build.log("andrew: prepare.sh (the libz-sys crate, from crates.io)")
        subprocess.run(["bash", str(ANDREW / "prepare.sh")],
                       env={**os.environ, "PPF_WORKDIR": tmp,
                            "ANDREW_SCRATCH": str(Path(tmp) / "scratch")}, check=True)
        src = Path(tmp) / "scratch" / "src"
        st = (src / "zlib.h").stat()
        os.utime(src / "Makefile", (st.st_atime, st.st_mtime))
        if dst.exists():
            shutil.rmtree(dst)
        shutil.move(str(src), dst)


def andrew_tree(t: Path, trace: Path) -> None:
    """andrew: the recorded root as record.sh makes it: src/ (andrew_src())
    and andrew.sh.  andrew.sh makes tree/ and tmp/ itself.  Every file of
    the trace under src/, and andrew.sh, must have the size the trace
    records."""
    andrew_src(t / "src", t.parent)
    copy_as_recorded(ANDREW / "andrew.sh", t / "andrew.sh", t / "src" / "zlib.h")
    require_tree(t, trace, "andrew", lambda p: p.startswith(b"src/") or p == b"andrew.sh",
                 CRATE_OR_MAKEFILE)


MIXED = TOP / "eval" / "workloads" / "mixed"


def mixed_tree(t: Path, trace: Path) -> None:
    """mixed: the recorded root as record.sh makes it: Andrew's root under
    andrew/ (andrew_src(), andrew.sh), pystart's plot.py, mixed.sh, and the
    font cache of one untraced start-up (font_cache()).  Every file of the
    trace under andrew/src/, and the three scripts, must have the size the
    trace records."""
    (t / "andrew").mkdir(exist_ok=True)
    andrew_src(t / "andrew" / "src", t.parent)
    like = t / "andrew" / "src" / "zlib.h"
    copy_as_recorded(ANDREW / "andrew.sh", t / "andrew" / "andrew.sh", like)
    copy_as_recorded(PYSTART / "plot.py", t / "plot.py", like)
    copy_as_recorded(MIXED / "mixed.sh", t / "mixed.sh", like)
    font_cache(t, trace, "mixed")
    require_tree(t, trace, "mixed", lambda p: p.startswith(b"andrew/src/") or
                 p in (b"andrew/andrew.sh", b"plot.py", b"mixed.sh"))


GNULD = TOP / "eval" / "workloads" / "gnuld"
GNULD_OWN_ENV = (b".ppf-gnuld-link-cmds.sh", b".ppf-gnuld-env")


def gnuld_tree(t: Path, trace: Path) -> None:
    """gnuld: the recorded root, a Linux 6.12 tree with every object built
    and the link's outputs removed, as record.sh leaves it before it
    records: `record.sh --prepare-only` builds it in $PPF_WORKDIR/gnuld
    (15-40 minutes the first time, cached by its configuration), checks
    the links and writes the link script.  Every file of the trace in the
    root that existed before the link is copied from there, with its
    mtime; each must have the size the trace records (the same compiler,
    configuration and build identity make the same objects), but the link
    script, which holds the preparing machine's environment."""
    build.log("gnuld: record.sh --prepare-only (the kernel's objects; cached when built)")
    subprocess.run(["bash", str(GNULD / "record.sh"), "--prepare-only"], check=True)
    kdir = Path(meta_text(trace, "root"))
    files = tracefmt.load_trace(trace)["files"]
    for f in files:
        if f.new or f.is_dir or f.path.startswith(b"/"):
            continue
        src = kdir / f.path.decode()
        if src.is_file():
            dst = t / f.path.decode()
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dst)
    # link.sh's reset after each untraced run reads its list of the link's
    # outputs (made by record.sh's first reset, before the recording: the
    # trace, which has no reset, does not name it)
    shutil.copy2(kdir / ".ppf-gnuld-reset.list", t / ".ppf-gnuld-reset.list")
    # The link script exports the environment of the machine that wrote it
    # (gen-link-cmds.py): its size is that machine's, its commands the same
    # (record.sh checks that it links make's vmlinux bit for bit).
    require_tree(t, trace, "gnuld", lambda p: p not in GNULD_OWN_ENV,
                 "another compiler or configuration than the recording's?", most=20)


# recipe -> what puts its real tree over build-tree's (below the root), given
# the trace it checks against; the recipe is the workload (glimpse) or the
# recordings' name without their number (pystart: pystart-1..3; pbuild-j2:
# pbuild-j2-1..4); `realcheck pystart` checks the one its experiment
# (pystart-hdd2001) measures, `realcheck pbuild-j2` pbuild-j2-hdd2001's
REAL_TREES: Dict[str, Callable[[Path, Path], None]] = {
    "glimpse": glimpse_tree, "pystart": pystart_tree,
    "pbuild-j2": pbuild_tree, "pbuild-j4": pbuild_tree, "andrew": andrew_tree,
    "mixed": mixed_tree, "gnuld": gnuld_tree}


@dataclasses.dataclass(frozen=True)
class RealRun:
    """What running the recorded command needs beyond the trace's meta: the
    directory it ran in ("" for /, chroot's), its environment (record.sh's
    exports), a shell command run (untimed, in the root) before each real run
    (record.sh's), what it writes (listed after each run, in the root), and
    the guest's CPU model when TCG's default (qemu64) cannot run it: the
    real and the replayed runs of that VM then run on it; and host paths
    the image needs that the trace has no event for (placed as the host
    has them, symlinks included)."""
    cwd: str = ""
    env: Tuple[Tuple[str, str], ...] = ()
    before: str = ""
    output: str = ""
    cpu: str = ""
    host: Tuple[str, ...] = ()


# pbuild: record.sh's run (pbuild.sh sets LC_ALL and TMPDIR itself; record.sh
# exported LC_ALL too).  The trace names the files the programs resolved to,
# not the names they were looked up by: make runs `gcc` and `ar`, gcc `as`,
# collect2 `ld` through PATH (/usr/bin/gcc -> gcc-12 ->
# x86_64-linux-gnu-gcc-12, as -> x86_64-linux-gnu-as, ld -> x86_64-linux-gnu-ld
# -> x86_64-linux-gnu-ld.bfd), and collect2 looks up nm and strip (the trace
# has their targets, stat'ed); ar loads every plugin of /usr/lib/bfd-plugins
# (a directory read: LLVMgold-14.so -> ../llvm-14/lib/LLVMgold.so, which maps
# libLLVM-14, and liblto_plugin.so -> gcc's), the trace has their targets.
PBUILD_RUN = RealRun(
    cwd="{root}", env=(("LC_ALL", "C"), ("TMPDIR", "{root}/tmp")),
    before="rm -rf obj tmp", output="obj",
    host=("/usr/bin/gcc", "/usr/bin/ar", "/usr/bin/as", "/usr/bin/ld", "/usr/bin/nm",
          "/usr/bin/strip", "/usr/lib/bfd-plugins/LLVMgold-14.so",
          "/usr/lib/bfd-plugins/liblto_plugin.so"))


# andrew.sh sets LC_ALL and TMPDIR itself and empties tree/ and tmp/; make
# runs gcc, ar, ld through PATH, collect2 looks up nm and strip (the trace
# names their targets, as for pbuild), and ar loads every plugin of
# /usr/lib/bfd-plugins (the recording mapped libLLVM through LLVMgold)
ANDREW_RUN = RealRun(cwd="{root}", env=(("LC_ALL", "C"),), output="tree",
                     host=("/usr/bin/gcc", "/usr/bin/ar", "/usr/bin/as", "/usr/bin/ld",
                           "/usr/bin/nm", "/usr/bin/strip",
                           "/usr/lib/bfd-plugins/LLVMgold-14.so",
                           "/usr/lib/bfd-plugins/liblto_plugin.so"))


REAL_RUNS: Dict[str, RealRun] = {
    "glimpse": RealRun(output="index"),
    "pystart": RealRun(cwd="{root}", env=(("LC_ALL", "C"), ("MPLCONFIGDIR", "{root}/mpl")),
                       before="rm -f figure.png", output="figure.png",
                       # qemu64: "Illegal instruction" (rc 132) before any output
                       cpu="max"),
    "pbuild-j2": PBUILD_RUN,
    "pbuild-j4": PBUILD_RUN,
    "andrew": ANDREW_RUN,
    # link.sh sets its environment and removes the link's outputs at its end
    # (at its start too, if a run left them); it is run by its absolute path
    # (the checkout's that recorded it) through env; the link script runs
    # ar, ld, nm, objcopy, gcc and as by the names PATH finds, and ar loads
    # every plugin of /usr/lib/bfd-plugins
    "gnuld": RealRun(host=("/usr/bin/env", "/usr/bin/ar", "/usr/bin/as", "/usr/bin/gcc",
                           "/usr/bin/ld", "/usr/bin/nm", "/usr/bin/objcopy",
                           "/usr/lib/bfd-plugins/LLVMgold-14.so",
                           "/usr/lib/bfd-plugins/liblto_plugin.so")),
    # Andrew in the background while plot.py starts three times (mixed.sh
    # sets LC_ALL and MPLCONFIGDIR itself, and runs /usr/bin/python3, a
    # symlink the trace has no event for); numpy needs -cpu max (pystart's)
    "mixed": RealRun(cwd="{root}", env=(("LC_ALL", "C"),),
                     before="rm -f figure-*.png", output="figure-3.png", cpu="max",
                     host=(*ANDREW_RUN.host, PYSTART_PYTHON)),
}


def recipe(name: str) -> str:
    """The recipe of workload NAME: NAME, or NAME without its -I (pystart-3)."""
    if name in REAL_TREES:
        return name
    base = re.sub(r"-[0-9]+$", "", name)
    if base in REAL_TREES:
        return base
    raise SystemExit(f"realcheck: no recipe for {name}'s real tree "
                     f"(have: {', '.join(REAL_TREES)})")


def real_command(name: str, command: str, root: str) -> str:
    """What realcheck.sh evals for a real run ($NEW: the chroot): the recorded
    command chrooted, in its directory, with its environment."""
    r = REAL_RUNS.get(recipe(name), RealRun())
    env = "".join(f"{k}={shlex.quote(v.format(root=root))} " for k, v in r.env)
    if r.cwd:
        inner = f"cd {shlex.quote(r.cwd.format(root=root))} && exec {command}"
        command = f"/bin/sh -c {shlex.quote(inner)}"
    return f"{env}chroot $NEW {command}"


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
    shutil.copy2(cur, dst)  # with its mtime (a .pyc names its source's)


def needed_by(path: str) -> List[str]:
    """The shared libraries and loader `ldd` lists for an ELF file (none for others)."""
    with open(path, "rb") as f:
        if f.read(4) != b"\x7fELF":
            return []
    r = subprocess.run(["ldd", path], text=True, stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL)
    return re.findall(r"(?:=> |^\s*)(/\S+)", r.stdout, re.M)


def host_files(files: Sequence[Any], abs_root: Path, command: str = "",
               also: Sequence[str] = (), inside: Sequence[str] = ()) -> Dict[str, Any]:
    """Every file of the trace's table (files) outside its root: the host's own
    at _abs/PATH, plus what running them needs (/bin/sh, each library's
    symlink, and the command's own absolute words: pystart's /usr/bin/python3
    is a symlink the trace has no event for, it names python3.11), the
    recipe's own (also: RealRun.host), and the libraries of the programs
    the trace runs from its own tree (inside: gnuld's objtool needs
    libelf.so.1, a symlink; the trace names the library it resolves to).
    Returns what differs from the trace."""
    outside = [f for f in files
               if f.path.startswith(b"/") and not f.new and not f.is_dir]
    differ = {}
    extra = {"/bin/sh", *also} | {a for a in shlex.split(command)
                                  if a.startswith("/") and os.path.isfile(a)}
    for f in outside:
        p = f.path.decode()
        place(p, abs_root)
        if os.path.getsize(p) != f.size:
            differ[p] = {"trace": f.size, "host": os.path.getsize(p)}
        extra.update(needed_by(p))
    for p in inside:
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


def image_key(w: Workload) -> str:
    """The name of w's real image in the cache: the trace, the room, the
    recipe's RealRun (its host files are in the image: a recipe that gains
    one gets another image) and IMAGE_VERSION."""
    run = hashlib.sha256(repr(REAL_RUNS.get(recipe(w.name), RealRun())).encode()).hexdigest()
    return f"realcheck-{w.name}-{build.sha(w.trace)}-{w.room_mb}-{run[:8]}-r{IMAGE_VERSION}"


def real_image(w: Workload) -> Tuple[Path, int, Dict[str, Any]]:
    """The image: build-tree's tree with the real files over it.  Cached."""
    tree = REAL_TREES[recipe(w.name)]
    key = image_key(w)
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
    tree(t, w.trace)
    abs_root = t / "_abs"
    execs = {e.fid for e in tr["events"] if e.op == "exec"}
    inside = [str(t / f.path.decode()) for i, f in enumerate(tr["files"])
              if i in execs and not f.path.startswith(b"/") and (t / f.path.decode()).is_file()]
    info = host_files(tr["files"], abs_root, meta_text(w.trace, "command"),
                      REAL_RUNS.get(recipe(w.name), RealRun()).host, inside)
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


def conf(w: Workload, profile: Profile, img_mb: int, rate: str,
         fault_around: Optional[int] = None) -> str:
    """The guest's /ppf/eval.conf (realcheck.sh); rate: the replay's spin
    rate; fault_around: the guest's fault_around_bytes, if not its default."""
    root = meta_text(w.trace, "root")
    r = REAL_RUNS.get(recipe(w.name), RealRun())

    def b64(x: str) -> str:
        return base64.b64encode(x.encode()).decode()
    v = {"TRACE": "/ppf/trace.gz", "IMAGE": "/ppf/image.img",
         "SPIN_RATE": rate, "ROOT": root,
         "CMD64": b64(real_command(w.name, meta_text(w.trace, "command"), root)),
         "BEFORE64": b64(r.before), "OUTPUT": r.output or ".",
         **({"FAULTS": "/ppf/trace.faults.gz"} if runner.faults_of(w.trace) else {}),
         **({"FAULT_AROUND_BYTES": str(fault_around)} if fault_around is not None else {})}
    return "".join(f"{k}={val}\n" for k, val in v.items()) + profile.eval_conf(img_mb)


def boot(b: build.Built, w: Workload, profile: Profile, img: Path, img_mb: int,
         out: Path, rate: str, fault_around: Optional[int] = None) -> Dict[str, Any]:
    """One VM: realcheck.sh; its results unpacked into out."""
    cpu = REAL_RUNS.get(recipe(w.name), RealRun()).cpu
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    (out / "eval.conf").write_text(conf(w, profile, img_mb, rate, fault_around))
    adds = (f"{b.ko}:/ppf/predictive_prefetch.ko", f"{b.replay}:/ppf/ppf-replay",
            f"{b.helpers['nbcopy']}:/ppf/nbcopy", runner.PRELUDE, f"{w.trace}:/ppf/trace.gz",
            f"{out / 'eval.conf'}:/ppf/eval.conf", *profile.guest_adds(b.kdir),
            f"{sparse.sparse_image(img)}:/ppf/image.img",
            *runner.faults_adds(w.trace, "/ppf/trace.gz"))
    req = BootRequest(kernel=b.kdir, initrd=b.initrd, command=GUEST_SCRIPT.read_text(),
                      adds=adds, append=profile.kernel_params(img_mb),
                      memory=w.memory(True), smp=1, icount_shift=runner.ICOUNT_SHIFT,
                      qemu_args=("-cpu", cpu) if cpu else (),
                      timeout=float(w.timeout(TIMEOUT_RUNS)), log=out / "vm.log")
    t = time.monotonic()
    build.log(f"realcheck: booting ({w.name}, {profile.name}, image {img_mb} MiB"
              + (f", -cpu {cpu})" if cpu else ")"))
    res = vm.boot(req)
    vm.write_json(res, out / "vm.json")
    if not extract((out / "vm.log").read_text(errors="replace"), out) or res.exit_code:
        raise SystemExit(f"realcheck: the VM failed (run.py {res.exit_code}), "
                         f"see {out}/vm.log")
    return {"host_s": round(time.monotonic() - t, 1), "build": b.identity(),
            "cpu": cpu or "qemu64 (TCG's default)"}


# ------------------------------------------------------------ the results


def read_fault_around(out: Path) -> Optional[int]:
    """The guest's fault_around_bytes during the runs (realcheck.sh writes
    it), None from a boot before it did."""
    f = out / "fault_around_bytes"
    return int(f.read_text()) if f.is_file() else None

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


def summarize(out: Path, exp_name: str, trace: Optional[Path] = None) -> Dict[str, Any]:
    s: Dict[str, Any] = {"experiment": exp_name, "runs": {}}
    for kind in ("real", "replay"):
        for cache in ("cold", "hot"):
            r = run_sample(out / f"{kind}-{cache}.txt")
            j = out / f"{kind}-{cache}.json"
            if j.is_file():
                r.update(replay_figures(json.loads(j.read_text())))
            s["runs"][f"{kind}-{cache}"] = r
    s["experiment_runs"] = experiment_runs(exp_name)
    # the traced cold runs (after the timed ones; absent from older results)
    traced: Dict[str, Any] = {}
    s["traced_runs"] = traced
    for kind in ("real", "replay"):
        name = f"{kind}-cold-traced"
        if (out / f"{name}.txt").is_file():
            r = run_sample(out / f"{name}.txt")
            j = out / f"{name}.json"
            if j.is_file():
                r.update(replay_figures(json.loads(j.read_text())))
            traced[name] = r
    if trace is not None and all((out / f"{k}-cold-traced.pages.gz").is_file()
                                 for k in ("real", "replay")):
        root = meta_text(trace, "root")
        s["pages"] = page_comparison(traced_pages(out, "real-cold-traced", root),
                                     traced_pages(out, "replay-cold-traced", root),
                                     trace_access(trace))
    return s


# ------------------------------------------------------------ pages per file

PAGE = 4096
GUEST_DIR = "/mnt/w/t"  # realcheck.sh's $DIR/t: the tree; _abs/ below it the host's files


def guest_path(p: str, root: str) -> str:
    """A path of the guest's tree as the trace names it: /mnt/w/t/_abs/X -> /X,
    /mnt/w/t/X -> ROOT/X."""
    if p.startswith(GUEST_DIR + "/_abs/"):
        return p[len(GUEST_DIR) + 5:]
    if p == GUEST_DIR:
        return root
    if p.startswith(GUEST_DIR + "/"):
        return root.rstrip("/") + p[len(GUEST_DIR):]
    return p


def inode_paths(out: Path, name: str, root: str) -> Dict[int, str]:
    """NAME.inodes (realcheck.sh's "INO PATH" of the tree after a run) as
    inode -> the path as the trace names it.  Only the image's file system:
    until realcheck.sh's find kept to one (-xdev), a real run's list also
    walked the guest's /dev, bind-mounted at t/_abs/dev (devtmpfs: its
    inode numbers are the image's too; in realcheck pbuild-j2, 530 of its
    542 entries, listed after src/ and taking its names: /dev/ttyd1 for
    src/xz/list.c); such lines are left out, so older results read right."""
    ino_path: Dict[int, str] = {}
    for line in (out / f"{name}.inodes").read_text().splitlines():
        num, _, path = line.partition(" ")
        if path == GUEST_DIR + "/_abs/dev" or path.startswith(GUEST_DIR + "/_abs/dev/"):
            continue  # -xdev still lists the mount point, devtmpfs's root
        ino_path[int(num)] = guest_path(path, root)
    return ino_path


def traced_pages(out: Path, name: str, root: str) -> Dict[str, Dict[str, int]]:
    """realcheck.sh's NAME.pages.gz (the traced run's filemap events) per
    file: pages (distinct page indexes brought into the page cache), folios
    (add events), faults (mm_filemap_fault events).  Files of the measured
    file system by path (NAME.inodes; one not there, e.g. deleted, as
    "(ino N)"), the block device's own pages (the file system's metadata:
    inode tables, directories, bitmaps) as "(block device D: metadata)",
    others as "(dev D ino N)"."""
    dev = (out / "dev").read_text().strip()
    major, minor = (int(x) for x in dev.split(":"))
    bdev_ino = major << 20 | minor  # the block device's inode: its dev_t (bdevfs)
    ino_path = inode_paths(out, name, root)
    pages: Dict[str, Set[int]] = {}
    count: Dict[str, Dict[str, int]] = {}
    with gzip.open(out / f"{name}.pages.gz", "rt") as f:
        for line in f:
            w = line.split()
            if len(w) < 5 or w[0] not in ("A", "F"):
                continue
            ino = int(w[3], 16)
            if w[2] == dev:
                key = ino_path.get(ino, f"(ino {ino})")
            elif ino == bdev_ino:
                key = f"(block device {dev}: metadata)"
            else:
                key = f"(dev {w[2]} ino {ino})"
            c = count.setdefault(key, {"pages": 0, "folios": 0, "faults": 0})
            if w[0] == "A":
                n = 1 << int(w[5])
                pages.setdefault(key, set()).update(range(int(w[4]), int(w[4]) + n))
                c["folios"] += 1
            else:
                c["faults"] += 1
    for key, c in count.items():
        c["pages"] = len(pages.get(key, ()))
    return count


# The faults file (TRACE.faults.gz next to TRACE.trace.gz; ppf-replay run
# --faults, docs/replay.md "Mapped files as the program faulted them"):
# per file the trace maps or execs, the file pages the real program faulted
# (filemap:mm_filemap_fault), in first-fault order.
FAULTS_MAGIC = "ppf-faults 1"


def fault_pages(out: Path, name: str, root: str,
                access: Dict[str, Tuple[str, int]]) -> Dict[str, List[int]]:
    """NAME.pages.gz's fault events (F TASK DEV INO INDEX:
    filemap:mm_filemap_fault's s_dev, i_ino and index, the page the fault
    asked for) per file of the measured device that the trace maps or execs
    (access: trace_access's), by the path the trace names it (NAME.inodes),
    each page once, in first-fault order.  A fault event is a fault that
    fault-around could not satisfy from the page cache (filemap_fault: the
    page absent, or a write fault); the pages fault-around and read-around
    add are left out: the replay's touch of the faulted pages adds them again."""
    dev = (out / "dev").read_text().strip()
    ino_path = inode_paths(out, name, root)
    faults: Dict[str, List[int]] = {}
    seen: Dict[str, Set[int]] = {}
    with gzip.open(out / f"{name}.pages.gz", "rt") as f:
        for line in f:
            w = line.split()
            if len(w) != 5 or w[0] != "F" or w[2] != dev:
                continue
            file = ino_path.get(int(w[3], 16))
            kind = access.get(file, ("-", 0))[0] if file else "-"
            if file is None or not ("mmap" in kind or "exec" in kind):
                continue
            page = int(w[4])
            if page not in seen.setdefault(file, set()):
                seen[file].add(page)
                faults.setdefault(file, []).append(page)
    return faults


def write_faults(faults: Dict[str, List[int]], dst: Path, source: str) -> None:
    """The faults file: "ppf-faults 1", comments, then per file a line
    "file PATH" and its page indexes (decimal, whitespace-separated, 16 a
    line), files sorted by path; gzip'd without a name or time (the same
    faults, the same bytes)."""
    lines = [FAULTS_MAGIC,
             "# ppf-replay run --faults: per mapped file, the 4 KiB file pages the real",
             "# program faulted (filemap:mm_filemap_fault), in first-fault order;",
             "# format: docs/replay.md, \"Mapped files as the program faulted them\"",
             f"# from: {source}"]
    for path in sorted(faults):
        if "\n" in path:
            raise SystemExit(f"realcheck: {path!r}: a newline in a path cannot be written")
        lines.append(f"file {path}")
        pages = faults[path]
        for i in range(0, len(pages), 16):
            lines.append(" ".join(str(p) for p in pages[i:i + 16]))
    data = ("\n".join(lines) + "\n").encode()
    dst.parent.mkdir(parents=True, exist_ok=True)
    with open(dst, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw,
                                               mtime=0) as g:
        g.write(data)


def trace_access(trace: Path) -> Dict[str, Tuple[str, int]]:
    """Per file of the trace (as traced_pages names them, the root's under
    ROOT/): how the run used it (exec, mmap, read, write, joined by +) and
    its size."""
    t = tracefmt.load_trace(trace)
    root = meta_text(trace, "root").rstrip("/")
    ops: Dict[int, Set[str]] = {}
    for e in t["events"]:
        if e.op in ("exec", "mmap", "read", "write"):
            ops.setdefault(e.fid, set()).add(e.op)
    out = {}
    for fid, f in enumerate(t["files"]):
        p = f.path.decode(errors="replace")
        name = p if p.startswith("/") else f"{root}/{p}"
        kinds = [k for k in ("exec", "mmap", "read", "write") if k in ops.get(fid, ())]
        out[name] = ("+".join(kinds) or "-", f.size)
    return out


def page_comparison(real: Dict[str, Dict[str, int]], replay: Dict[str, Dict[str, int]],
                    access: Dict[str, Tuple[str, int]]) -> Dict[str, Any]:
    """Per file: the real run's and the replay's pages, how the trace used
    it; totals, and totals per kind of use."""
    files: List[Dict[str, Any]] = []
    for key in sorted(set(real) | set(replay)):
        r, p = real.get(key, {}), replay.get(key, {})
        kind, size = access.get(key, ("-", 0))
        files.append({"file": key, "access": kind, "size": size,
                      "real_pages": r.get("pages", 0), "real_faults": r.get("faults", 0),
                      "replay_pages": p.get("pages", 0),
                      "replay_faults": p.get("faults", 0)})
    files.sort(key=lambda f: (-abs(f["replay_pages"] - f["real_pages"]), f["file"]))
    by: Dict[str, Dict[str, int]] = {}
    for f in files:
        kind = ("mapped" if "exec" in f["access"] or "mmap" in f["access"] else
                "read" if f["access"] != "-" else
                "metadata" if f["file"].startswith("(block device ") else "other")
        for k in (kind, "total"):
            b = by.setdefault(k, {"files": 0, "real_pages": 0, "replay_pages": 0})
            b["files"] += 1
            b["real_pages"] += f["real_pages"]
            b["replay_pages"] += f["replay_pages"]
    return {"files": files, "totals": by}


def page_table(c: Dict[str, Any], top: int = 15) -> str:
    """Markdown: the files where the replay and the real run differ most,
    then the totals per kind of use (MB = 10^6 bytes of 4 KiB pages)."""
    def mb(pages: int) -> str:
        return f"{pages * PAGE / 1e6:.2f}"
    out = ["| file | access in trace | size MB | real MB | replay MB | replay - real MB | "
           "real faults |", "|---|---|---|---|---|---|---|"]
    for f in c["files"][:top]:
        out.append(f"| {f['file']} | {f['access']} | {f['size'] / 1e6:.2f} | "
                   f"{mb(f['real_pages'])} | {mb(f['replay_pages'])} | "
                   f"{mb(f['replay_pages'] - f['real_pages'])} | {f['real_faults']} |")
    for k in ("mapped", "read", "metadata", "other", "total"):
        b = c["totals"].get(k)
        if b:
            out.append(f"| **{k}** ({b['files']} files) | | | {mb(b['real_pages'])} | "
                       f"{mb(b['replay_pages'])} | {mb(b['replay_pages'] - b['real_pages'])} | |")
    return "\n".join(out)


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


def measured_workload(name: str, experiment: str) -> Workload:
    """The workload NAME, or for a recipe of several recordings (pystart) the
    one the experiment measures (eval/experiments/EXPERIMENT.json's
    workload: pystart-hdd2001 measures pystart-3)."""
    if name in WORKLOADS:
        return workload(name)
    spec = TOP / "eval" / "experiments" / f"{experiment}.json"
    if spec.is_file():
        wname = json.loads(spec.read_text()).get("workload", "")
        if isinstance(wname, str) and wname in WORKLOADS and recipe(wname) == recipe(name):
            return workload(wname)
    raise SystemExit(f"realcheck: no workload {name!r}, and no experiment {experiment} "
                     f"measuring one of its recordings (--experiment)")


def save_faults(out: Path, trace: Path, save: bool) -> Optional[Path]:
    """The real program's faults (the traced cold run's fault events) as a
    faults file: always into the results (real-cold-traced.faults.gz); with
    save, also beside the trace (runner.faults_path: TRACE.faults.gz, what
    the experiments' and realcheck's next replays of it use, or, from a boot
    whose fault-around window was a page, TRACE.touched.faults.gz, what
    experiments with "faults_kind": "touched" use).  The files as the
    trace's file table names them (the root's relative)."""
    if not all((out / f"real-cold-traced.{x}").is_file() for x in ("pages.gz", "inodes")):
        if save:
            raise SystemExit(f"realcheck: --save-faults: no traced real run in {out}")
        return None
    root = meta_text(trace, "root").rstrip("/")
    named = {}
    for f in tracefmt.load_trace(trace)["files"]:
        p = f.path.decode(errors="replace")
        named[p if p.startswith("/") else f"{root}/{p}"] = p
    faults = {named[k]: v for k, v in
              fault_pages(out, "real-cold-traced", root, trace_access(trace)).items()}
    window = read_fault_around(out)
    src = (f"realcheck {trace.name}, {out.name}: the real program's traced cold run"
           + (f", fault-around window {window} bytes" if window is not None else ""))
    write_faults(faults, out / "real-cold-traced.faults.gz", src)
    if not save:
        return None
    if window is not None and window not in (4096, 65536):
        raise SystemExit(f"realcheck: --save-faults: the boot's fault-around window was "
                         f"{window} bytes: its faults are neither what the program "
                         "faulted at the default window nor every page it touched")
    dst = runner.faults_path(trace, "touched" if window == 4096 else "faulted")
    write_faults(faults, dst, src)
    build.log(f"realcheck: {dst}: {len(faults)} files, "
              f"{sum(len(v) for v in faults.values())} pages")
    return dst


def main(name: str, profile_name: str, rate: Optional[str] = None,
         experiment: Optional[str] = None, no_boot: bool = False,
         save: bool = False, fault_around: Optional[int] = None) -> int:
    """rate: the replay's spin rate (iterations per us), default the
    experiments'; another one (e.g. think time scaled to the real program's
    CPU time in the guest) writes realcheck-NAME-PROFILE-spinRATE.
    experiment: whose none and hot results the table adds (default
    NAME-PROFILE without its dash, e.g. glimpse-hdd2001).  no_boot: the
    table again from the last boot's results (the experiment's may be newer).
    fault_around: the guest's fault_around_bytes for every run (a page: every
    page a mapping touches faults, so the traced real run lists them all,
    not only those fault-around did not map); writes
    realcheck-NAME-PROFILE-faN."""
    if fault_around is not None and (fault_around < 4096 or
                                     fault_around & (fault_around - 1)):
        raise SystemExit(f"realcheck: --fault-around-bytes {fault_around}: not a power "
                         "of two of at least 4096 (the kernel rounds anything else)")
    if profile_name not in PROFILES:
        raise SystemExit(f"realcheck: unknown profile {profile_name} ({', '.join(PROFILES)})")
    profile = PROFILES[profile_name]
    exp = experiment or f"{name}-{profile_name.replace('-', '')}"
    w = measured_workload(name, exp)
    build.build_replay()  # the image's tree is ppf-replay build-tree's
    img, img_mb, info = real_image(w)
    out = runner.RESULTS / (f"realcheck-{name}-{profile_name}"
                            + (f"-spin{rate}" if rate is not None else "")
                            + (f"-fa{fault_around}" if fault_around is not None else ""))
    if no_boot:
        if not (out / "realcheck.json").is_file():
            raise SystemExit(f"realcheck: --no-boot: no results in {out}")
        old = json.loads((out / "realcheck.json").read_text())
        meta = {k: old[k] for k in ("host_s", "build", "cpu") if k in old}
    else:
        meta = boot(build.Built(), w, profile, img, img_mb, out,
                    rate or spin_rate(w, profile), fault_around)
    s: Dict[str, Any] = {**summarize(out, exp, w.trace), **meta, "workload": w.name,
                         "image": info, "image_mb": img_mb,
                         "command": f"python3 -m eval.harness realcheck {name} "
                         f"--profile {profile_name}"
                         + (f" --spin-rate {rate}" if rate is not None else "")
                         + (f" --experiment {experiment}" if experiment is not None else "")
                         + (f" --fault-around-bytes {fault_around}"
                            if fault_around is not None else ""),
                         "fault_around_bytes": read_fault_around(out)}
    replayed = json.loads((out / "replay-cold.json").read_text()).get("faults") \
        if (out / "replay-cold.json").is_file() else None
    s["replay_faults"] = replayed
    (out / "realcheck.json").write_text(json.dumps(s, indent=1))
    save_faults(out, w.trace, save)
    print(f"{w.name} ({w.trace.name}) on {profile_name}:")
    if replayed:
        print(f"the replays' mapped files as the real program faulted them: --faults "
              f"{runner.faults_path(w.trace).name} ({replayed['files']} files, "
              f"{replayed['pages']} pages)")
    print(table(s))
    for k, r in s["traced_runs"].items():
        el = r.get("replay_elapsed_s", r["elapsed_s"])
        print(f"{k} (not in the table: tracing on): elapsed {el:.3f} s, "
              f"{r['device_reads']:,} reads, {r['device_read_mb']:.1f} MB read")
    if "pages" in s:
        print("\npages brought into the page cache, traced cold runs "
              "(filemap:mm_filemap_add_to_page_cache):")
        print(page_table(s["pages"]))
    print(f"realcheck: results in {out}")
    return 0
