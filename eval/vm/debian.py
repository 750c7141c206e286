"""The "debian" kernel variant: Debian's own 6.12 kernel (config.DEBIAN).

The base and debug variants boot the project's test kernel
(eval/kernel/build.sh).  This variant checks what a user does instead: build
the module against Debian's linux-headers-<ABI> and load it into Debian's
stock linux-image-<ABI> of the same version, booted in QEMU with the same
busybox initramfs, /init and guest test scripts.

What differs from the test kernel, and what this module does about it:

- The kernel and headers come from apt (ensure_packages): the signed
  linux-image-<ABI> (what linux-headers-<ABI> pulls in; the unsigned one is
  accepted too, they conflict), installed with INITRD=No since the guest
  never uses Debian's own initramfs.
- ext4, jbd2, mbcache, crc16, crc32c and virtio_blk are modules there
  (virtio_pci, the 8250 console, devtmpfs, debugfs and tracefs are built
  in).  stage_modules() copies that subset of /lib/modules/<ABI>/,
  decompressed on the host, runs depmod -b on it, and the guest gets it at
  /lib/modules/<ABI>/.  (Busybox 1.35 modprobe does load .ko.xz, but only
  after finit_module refused each one, which logs "Invalid ELF header magic:
  != ELF" on the console, and it unpacks xz in the slow guest.)
- debian-prelude.sh, put in front of each guest command (prelude()), checks
  uname -r and modprobes the subset (crc32c_generic first: ext4 only names it as a
  softdep, which busybox modprobe ignores, and TCG's CPU has no SSE4.2 for
  crc32c-intel), then waits for the virtio disks' /dev nodes.

ABI is pinned once, below.  It should be the version of linux-source-6.12
that eval/kernel/build.sh builds the test kernel from; check_versions() warns
when the two drift apart.

Standalone: python3 -m eval.vm.debian [--work DIR] prepares everything
(packages, module build, module subset) and prints the paths.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Dict, List, Sequence, Tuple

from . import kernel as kbuild

# The one pin: Debian's kernel ABI name (linux-image-ABI, linux-headers-ABI).
ABI = "6.12.117+deb12-amd64"

PRELUDE = Path(__file__).resolve().parent / "debian-prelude.sh"
KERNEL = Path("/boot") / f"vmlinuz-{ABI}"
HEADERS = Path("/usr/src") / f"linux-headers-{ABI}"
MODDIR = Path("/lib/modules") / ABI

IMAGE_PKGS = (f"linux-image-{ABI}", f"linux-image-{ABI}-unsigned")
HEADERS_PKG = f"linux-headers-{ABI}"
HOST_PKGS = ("xz-utils", "kmod")

# Loaded in this order by debian-prelude.sh; their modules.dep dependencies are
# staged too.  crc32c_generic: ext4's softdep, see above.  null_blk: the
# tests' memory-backed disk (its parameters come from the kernel command
# line, which applies null_blk.* to the module when it loads).
LOAD = ("crc32c_generic", "ext4", "virtio_blk", "null_blk")


def log(msg: str) -> None:
    print(f"kernel-tests: debian: {msg}", file=sys.stderr, flush=True)


def installed(pkg: str) -> bool:
    res = subprocess.run(["dpkg-query", "-W", "-f", "${Status}", pkg],
                         text=True, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    return res.returncode == 0 and "install ok installed" in res.stdout


def ensure_packages() -> None:
    """Install Debian's kernel, headers and the host tools, only if missing."""
    missing = [p for p in (HEADERS_PKG, *HOST_PKGS) if not installed(p)]
    if not any(installed(p) for p in IMAGE_PKGS):
        missing.append(IMAGE_PKGS[0])
    if not missing:
        return
    if os.geteuid() != 0:
        raise SystemExit(f"kernel-tests: debian: need root to install {' '.join(missing)}")
    log(f"installing {' '.join(missing)}")
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive", INITRD="No")
    subprocess.run(["apt-get", "update", "-qq"], check=True, env=env)
    subprocess.run(["apt-get", "install", "-y", "-qq", "--no-install-recommends", *missing],
                   check=True, env=env)


def check_versions() -> None:
    """Warn when the pin and the test kernel's linux-source-6.12 differ."""
    res = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", "linux-source-6.12"],
                         text=True, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    src = res.stdout.split("-")[0] if res.returncode == 0 else ""
    if src and src != ABI.split("+")[0]:
        log(f"warning: pinned {ABI} but the test kernel is built from "
            f"linux-source-6.12 {res.stdout}")


def read_deps(moddir: Path) -> Dict[str, Tuple[str, List[str]]]:
    """modules.dep as {name: (path, [dependency paths])}."""
    deps: Dict[str, Tuple[str, List[str]]] = {}
    for line in (moddir / "modules.dep").read_text().splitlines():
        path, _, rest = line.partition(":")
        name = re.sub(r"\.ko(\.xz|\.zst|\.gz)?$", "", Path(path).name).replace("-", "_")
        deps[name] = (path, rest.split())
    return deps


def closure(deps: Dict[str, Tuple[str, List[str]]], names: Sequence[str]) -> List[str]:
    """Paths (relative to the module dir) of names and all they depend on."""
    by_path = {p: d for p, d in deps.values()}
    out: List[str] = []
    todo = []
    for n in names:
        if n.replace("-", "_") not in deps:
            raise SystemExit(f"kernel-tests: debian: no module {n} in {MODDIR} "
                             "(built in? see /boot/config-" + ABI + ")")
        todo.append(deps[n.replace("-", "_")][0])
    while todo:
        p = todo.pop()
        if p not in out:
            out.append(p)
            todo += by_path[p]
    return sorted(out)


def stage_modules(work: Path) -> Path:
    """A /lib/modules/ABI holding LOAD and their dependencies, depmod'ed.

    Returns the staging root (its lib/modules/ABI goes to the guest)."""
    root = work / "debian-modules"
    dest = root / "lib" / "modules" / ABI
    if root.exists():
        shutil.rmtree(root)
    dest.mkdir(parents=True)
    order = []
    for rel in closure(read_deps(MODDIR), LOAD):
        src = MODDIR / rel
        order.append(re.sub(r"\.(xz|zst|gz)$", "", rel))
        out = dest / order[-1]
        out.parent.mkdir(parents=True, exist_ok=True)
        if rel.endswith(".xz"):
            with open(out, "wb") as f:
                subprocess.run(["xz", "-dc", str(src)], stdout=f, check=True)
        elif rel.endswith(".ko"):
            shutil.copy2(src, out)
        else:
            raise SystemExit(f"kernel-tests: debian: cannot decompress {src}")
    for name in ("modules.builtin", "modules.builtin.modinfo"):
        if (MODDIR / name).exists():
            shutil.copy2(MODDIR / name, dest / name)
    (dest / "modules.order").write_text("".join(f"{p}\n" for p in order))
    subprocess.run(["depmod", "-b", str(root), ABI], check=True)
    (dest / "ppf-load").write_text(" ".join(LOAD) + "\n")
    return root


def prepare(work: Path, cache_dir: Path) -> Tuple[Path, Path]:
    """Install, build the module (under cache_dir), stage the modules in work:
    returns (kernel image, the .ko)."""
    ensure_packages()
    check_versions()
    for p in (KERNEL, HEADERS / "Makefile", MODDIR / "modules.dep"):
        if not p.exists():
            raise SystemExit(f"kernel-tests: debian: missing {p}")
    log(f"building the module against {HEADERS}")
    ko = kbuild.build_module(HEADERS, cache_dir)
    stage_modules(work)
    return KERNEL, ko


def prelude() -> str:
    """The shell text to put in front of a guest command (debian-prelude.sh)."""
    return PRELUDE.read_text().replace("@ABI@", ABI) + "\n"


def adds(work: Path) -> List[str]:
    """The BootRequest adds of the module subset stage_modules() made in work."""
    return [f"{work / 'debian-modules'}/lib/modules/{ABI}:/lib/modules/{ABI}"]


def main(argv: Sequence[str]) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--work", type=Path, help="work dir (default: a new temporary one)")
    args = ap.parse_args(argv)
    work = args.work or Path(tempfile.mkdtemp(prefix="ppf-debian."))
    work.mkdir(parents=True, exist_ok=True)
    kernel, ko = prepare(work, kbuild.CACHE)
    print(f"kernel  {kernel}\nmodule  {ko}\nmodules {work / 'debian-modules'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
