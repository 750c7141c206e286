"""The "debian" kernel variants: Debian's own 6.12 and 6.1 kernels (config.py).

The base and debug variants boot the project's test kernel
(eval/kernel/build.sh).  These variants check what a user does instead: build
the module against Debian's linux-headers-<ABI> and load it into Debian's
stock linux-image-<ABI> of the same version, booted in QEMU with the same
busybox initramfs, /init and guest test scripts.  "debian" is Debian 12's
6.12 kernel; "debian61" is its default kernel, 6.1, the one a Debian 12
machine runs unless told otherwise (mm/prefetch/compat.h covers the
differences).

What differs from the test kernel, and what this module does about it:

- The kernel and headers come from apt (ensure_packages): the signed
  linux-image-<ABI> (what linux-headers-<ABI> pulls in; the unsigned one is
  accepted too, they conflict), installed with INITRD=No since the guest
  never uses Debian's own initramfs.  Where the archive has no signed
  image of the ABI yet (Debian publishes a point release's -unsigned
  build and its headers first, the signed image after it: 6.12.118 on
  2026-12-02), the unsigned one is installed: the same kernel.
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

No ABI is pinned: Debian replaces a series' ABI with each point release
and in time drops the old packages, so a pin breaks the first time CI runs
after one.  The 6.1 ABI is whatever Debian's linux-headers-amd64
metapackage depends on today; the 6.12 ABI is the newest
linux-headers-6.12.N+deb12-amd64 the archive offers (there is no
metapackage for it in Debian 12).  That should be the version of
linux-source-6.12 that eval/kernel/build.sh builds the test kernel from;
check_versions() warns when the two drift apart.

Standalone: python3 -m eval.vm.debian [--series 6.1|6.12] [--work DIR]
prepares everything (packages, module build, module subset) and prints the
paths.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from . import kernel as kbuild

# Debian 12's 6.12 kernels: linux-headers-ABI for ABI = 6.12.N+deb12-amd64.
ABI_612_PATTERN = r"6\.12\.(\d+)\+deb12-amd64"
# Debian 12's default kernel series: the ABI its metapackage names.
DEFAULT_HEADERS_META = "linux-headers-amd64"
SERIES = ("6.12", "6.1")

PRELUDE = Path(__file__).resolve().parent / "debian-prelude.sh"
HOST_PKGS = ("xz-utils", "kmod")


@dataclasses.dataclass(frozen=True)
class DebianKernel:
    """One of Debian's kernels, by its ABI name ("6.1.0-47-amd64")."""
    abi: str

    @property
    def kernel(self) -> Path:
        return Path("/boot") / f"vmlinuz-{self.abi}"

    @property
    def headers(self) -> Path:
        return Path("/usr/src") / f"linux-headers-{self.abi}"

    @property
    def moddir(self) -> Path:
        return Path("/lib/modules") / self.abi

    @property
    def image_pkgs(self) -> Tuple[str, str]:
        return (f"linux-image-{self.abi}", f"linux-image-{self.abi}-unsigned")

    @property
    def headers_pkg(self) -> str:
        return f"linux-headers-{self.abi}"


# Loaded in this order by debian-prelude.sh; their modules.dep dependencies are
# staged too.  crc32c_generic: ext4's softdep, see above.  null_blk: the
# tests' memory-backed disk (its parameters come from the kernel command
# line, which applies null_blk.* to the module when it loads).  virtio_pci:
# built in on 6.12, a module on 6.1; a name the kernel has built in
# (modules.builtin) is left out.
LOAD = ("crc32c_generic", "ext4", "virtio_pci", "virtio_blk", "null_blk")


def log(msg: str) -> None:
    print(f"kernel-tests: debian: {msg}", file=sys.stderr, flush=True)


def installed(pkg: str) -> bool:
    res = subprocess.run(["dpkg-query", "-W", "-f", "${Status}", pkg],
                         text=True, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    return res.returncode == 0 and "install ok installed" in res.stdout


def apt_env() -> Dict[str, str]:
    return dict(os.environ, DEBIAN_FRONTEND="noninteractive", INITRD="No")


# apt-get waits up to ten minutes for another apt or dpkg (an unattended
# upgrade, a second checkout's install) instead of failing at once.
APT_GET = ["apt-get", "-o", "DPkg::Lock::Timeout=600"]


def apt_cache(args: Sequence[str], parse: Callable[[str], Optional[str]], failure: str) -> str:
    """What parse finds in apt-cache ARGS' output; on a machine whose package
    lists were never fetched (parse finds nothing), fetched first, as root.
    Exits with failure if it finds nothing then."""
    for attempt in (0, 1):
        res = subprocess.run(["apt-cache", *args], text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        found = parse(res.stdout)
        if found:
            return found
        if attempt == 0 and os.geteuid() == 0:
            subprocess.run([*APT_GET, "update", "-qq"], check=True, env=apt_env())
    raise SystemExit(f"kernel-tests: debian: {failure} (run apt-get update)")


def default_abi() -> str:
    """The ABI Debian's linux-headers-amd64 depends on (its default kernel)."""
    def parse(out: str) -> Optional[str]:
        m = re.search(r"Depends: linux-headers-(\d[^\s]*-amd64)\b", out)
        return m.group(1) if m else None
    return apt_cache(["depends", DEFAULT_HEADERS_META], parse,
                     f"cannot tell which kernel {DEFAULT_HEADERS_META} names")


def newest_612_abi() -> str:
    """The newest 6.12 ABI the archive offers (apt-cache search)."""
    def parse(out: str) -> Optional[str]:
        found = [m for m in (re.match(f"linux-headers-({ABI_612_PATTERN}) ", line)
                             for line in out.splitlines()) if m]
        return max(found, key=lambda m: int(m.group(2))).group(1) if found else None
    return apt_cache(["search", "--names-only", r"^linux-headers-6\.12\.[0-9]+\+deb12-amd64$"],
                     parse, "the archive offers no linux-headers-6.12.N+deb12-amd64")


def kernel_for(series: str) -> DebianKernel:
    """Debian's newest kernel of a series: "6.12" or "6.1" (the default)."""
    if series == "6.12":
        return DebianKernel(newest_612_abi())
    if series == "6.1":
        return DebianKernel(default_abi())
    raise ValueError(f"no Debian kernel series {series!r} (known: {', '.join(SERIES)})")


def candidate(pkg: str) -> Optional[str]:
    """The version apt would install of pkg, None if none (apt-cache policy)."""
    res = subprocess.run(["apt-cache", "policy", pkg], text=True,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    m = re.search(r"^\s*Candidate: (\S+)", res.stdout, re.M)
    return m.group(1) if m and m.group(1) != "(none)" else None


def ensure_packages(k: DebianKernel) -> None:
    """Install Debian's kernel, headers and the host tools, only if missing.
    The kernel is the signed image, or the unsigned one while the archive
    has no signed image of the ABI."""
    missing = [p for p in (k.headers_pkg, *HOST_PKGS) if not installed(p)]
    need_image = not any(installed(p) for p in k.image_pkgs)
    if not missing and not need_image:
        return
    if os.geteuid() != 0:
        want = [*missing, *(["|".join(k.image_pkgs)] if need_image else [])]
        raise SystemExit(f"kernel-tests: debian: need root to install {' '.join(want)}")
    env = apt_env()
    subprocess.run([*APT_GET, "update", "-qq"], check=True, env=env)
    if need_image:
        image = next((p for p in k.image_pkgs if candidate(p)), None)
        if image is None:
            raise SystemExit(f"kernel-tests: debian: the archive offers neither "
                             f"{' nor '.join(k.image_pkgs)}")
        missing.append(image)
    log(f"installing {' '.join(missing)}")
    subprocess.run([*APT_GET, "install", "-y", "-qq", "--no-install-recommends", *missing],
                   check=True, env=env)


def check_versions(k: DebianKernel) -> None:
    """Warn when Debian's 6.12 and the test kernel's linux-source-6.12 differ."""
    if not re.fullmatch(ABI_612_PATTERN, k.abi):
        return
    res = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", "linux-source-6.12"],
                         text=True, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    src = res.stdout.split("-")[0] if res.returncode == 0 else ""
    if src and src != k.abi.split("+")[0]:
        log(f"warning: Debian's newest 6.12 is {k.abi} but the test kernel is built from "
            f"linux-source-6.12 {res.stdout}")


def read_deps(moddir: Path) -> Dict[str, Tuple[str, List[str]]]:
    """modules.dep as {name: (path, [dependency paths])}."""
    deps: Dict[str, Tuple[str, List[str]]] = {}
    for line in (moddir / "modules.dep").read_text().splitlines():
        path, _, rest = line.partition(":")
        name = re.sub(r"\.ko(\.xz|\.zst|\.gz)?$", "", Path(path).name).replace("-", "_")
        deps[name] = (path, rest.split())
    return deps


def builtin(k: DebianKernel) -> List[str]:
    """Names of the modules k has built in (modules.builtin)."""
    f = k.moddir / "modules.builtin"
    if not f.exists():
        return []
    return [re.sub(r"\.ko$", "", Path(line).name).replace("-", "_")
            for line in f.read_text().split()]


def closure(k: DebianKernel, deps: Dict[str, Tuple[str, List[str]]],
            names: Sequence[str]) -> List[str]:
    """Paths (relative to the module dir) of names and all they depend on."""
    by_path = {p: d for p, d in deps.values()}
    out: List[str] = []
    todo = []
    for n in names:
        if n.replace("-", "_") not in deps:
            raise SystemExit(f"kernel-tests: debian: no module {n} in {k.moddir} "
                             f"(built in? see /boot/config-{k.abi})")
        todo.append(deps[n.replace("-", "_")][0])
    while todo:
        p = todo.pop()
        if p not in out:
            out.append(p)
            todo += by_path[p]
    return sorted(out)


def stage_modules(k: DebianKernel, work: Path) -> Path:
    """A /lib/modules/ABI holding LOAD and their dependencies, depmod'ed.

    Returns the staging root (its lib/modules/ABI goes to the guest)."""
    root = work / f"debian-modules-{k.abi}"
    dest = root / "lib" / "modules" / k.abi
    if root.exists():
        shutil.rmtree(root)
    dest.mkdir(parents=True)
    order = []
    load = [n for n in LOAD if n not in builtin(k)]
    for rel in closure(k, read_deps(k.moddir), load):
        src = k.moddir / rel
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
        if (k.moddir / name).exists():
            shutil.copy2(k.moddir / name, dest / name)
    (dest / "modules.order").write_text("".join(f"{p}\n" for p in order))
    subprocess.run(["depmod", "-b", str(root), k.abi], check=True)
    (dest / "ppf-load").write_text(" ".join(load) + "\n")
    return root


def prepare(series: str, work: Path, cache_dir: Path) -> Tuple[DebianKernel, Path, Path]:
    """Install, build the module (under cache_dir), stage the modules in work:
    returns (the kernel, its image, the .ko)."""
    k = kernel_for(series)
    ensure_packages(k)
    check_versions(k)
    for p in (k.kernel, k.headers / "Makefile", k.moddir / "modules.dep"):
        if not p.exists():
            raise SystemExit(f"kernel-tests: debian: missing {p}")
    log(f"building the module against {k.headers}")
    ko = kbuild.build_module(k.headers, cache_dir)
    stage_modules(k, work)
    return k, k.kernel, ko


def prelude(k: DebianKernel) -> str:
    """The shell text to put in front of a guest command (debian-prelude.sh)."""
    return PRELUDE.read_text().replace("@ABI@", k.abi) + "\n"


def adds(k: DebianKernel, work: Path) -> List[str]:
    """The BootRequest adds of the module subset stage_modules() made in work."""
    return [f"{work / f'debian-modules-{k.abi}'}/lib/modules/{k.abi}:/lib/modules/{k.abi}"]


def main(argv: Sequence[str]) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--series", choices=SERIES, default="6.12", help="Debian kernel series")
    ap.add_argument("--work", type=Path, help="work dir (default: a new temporary one)")
    args = ap.parse_args(argv)
    work = args.work or Path(tempfile.mkdtemp(prefix="ppf-debian."))
    work.mkdir(parents=True, exist_ok=True)
    k, kernel, ko = prepare(args.series, work, kbuild.CACHE)
    print(f"kernel  {kernel}\nmodule  {ko}\nmodules {work / f'debian-modules-{k.abi}'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
