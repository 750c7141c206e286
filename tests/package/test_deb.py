#!/usr/bin/env python3
"""The Debian package on this machine: build, install with DKMS, remove.

scripts/build-deb.sh builds predictive-prefetch-dkms; this installs it with
apt-get (which brings dkms) on a machine that has the headers of Debian's
newest 6.1 and 6.12 kernels (installed first if missing, as the kernel
tests do), checks that DKMS built the module for each of them and that
ppfctl, its manual page (`man ppfctl`), its bash completion and the
documentation are in place, that the units are enabled as debhelper would
enable them and that DKMS signed the module (the key Secure Boot needs
enrolled), then purges the package and checks that nothing of it is left:
no module in either kernel, no sources, no DKMS entry, no ppfctl, no saved
state.  Before installing, lintian (installed if missing) must report no
error and no warning on the package, and its Depends must name the libc6
version ppfctl needs.  The module is not loaded: the host's kernel is not
one of them (the kernel tests load it, in QEMU).  Needs root.  Prints
"ok"/"FAIL" lines and a closing "N passed, N failed".

    python3 -m tests.package.test_deb       (from the top of the tree)
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import List, Sequence

TOP = Path(__file__).resolve().parents[2]
if not __package__:  # run as a file: eval/ is not importable from here
    sys.exit("usage: python3 -m tests.package.test_deb, from the top of the tree")

from eval.vm import debian  # noqa: E402  (debian.py names Debian's kernels)

PACKAGE = "predictive-prefetch-dkms"
DKMS_NAME = "predictive-prefetch"
UNITS = ("predictive-prefetch-state.service", "predictive-prefetch-save.service",
         "predictive-prefetch-save.timer")


class Checks:
    def __init__(self) -> None:
        self.passed = 0
        self.failed = 0

    def check(self, desc: str, ok: bool, detail: str = "") -> None:
        if ok:
            self.passed += 1
            print(f"ok   {desc}", flush=True)
        else:
            self.failed += 1
            print(f"FAIL {desc}{': ' + detail if detail else ''}", flush=True)


def run(cmd: Sequence[str], check: bool = False) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(cmd), text=True, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, check=check,
                          env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"))


def modules_of(abi: str) -> List[Path]:
    """The module files DKMS installed for a kernel (.ko, or compressed)."""
    return sorted(Path("/lib/modules", abi).glob("updates/dkms/predictive_prefetch.ko*"))


def check_before_install(c: Checks, deb: Path) -> None:
    """lintian: no error, no warning (no override either: the package ships
    none); Depends: libc6 with the version ppfctl needs."""
    res = run([str(TOP / "scripts" / "install-deps.sh"), "--packages", "lintian"])
    if res.returncode != 0:
        c.check("lintian: installed", False, res.stdout[-1000:])
        return
    res = run(["lintian", "--fail-on", "none", "-I", str(deb)])
    tags = [line for line in res.stdout.splitlines() if line[:2] in ("E:", "W:")]
    c.check("lintian: no error and no warning", res.returncode == 0 and not tags,
            "\n".join(tags) or res.stdout[-1000:])
    fields = run(["dpkg-deb", "-f", str(deb), "Depends"]).stdout
    c.check("control: Depends names the libc6 version ppfctl needs",
            re.search(r"\blibc6 \(>= [0-9.]+\)", fields) is not None, fields)


def check_installed(c: Checks, kernels: List[debian.DebianKernel]) -> None:
    """ppfctl's man page and completion, its version; the units enabled as
    deb-systemd-helper enables them; the module signed by DKMS's key."""
    res = run(["man", "-P", "cat", "ppfctl"])
    c.check("install: man ppfctl works", res.returncode == 0
            and "ppfctl - say what predictive prefetching is doing" in res.stdout
            and "EXIT STATUS" in res.stdout, res.stdout[-1000:])
    c.check("install: bash completion for ppfctl",
            Path("/usr/share/bash-completion/completions/ppfctl").is_file())
    version = (TOP / "VERSION").read_text().strip()
    res = run(["/usr/sbin/ppfctl", "--version"])
    c.check("install: ppfctl --version is VERSION", res.stdout == f"ppfctl (ppf) {version}\n",
            res.stdout)
    # deb-systemd-helper runs only under dpkg: its work is the [Install] symlinks
    for wants, unit in (("multi-user.target.wants", "predictive-prefetch-state.service"),
                        ("timers.target.wants", "predictive-prefetch-save.timer")):
        link = Path("/etc/systemd/system", wants, unit)
        target = os.readlink(link) if link.is_symlink() else ""
        c.check(f"install: {unit} enabled ({link})",
                target.endswith(f"/systemd/system/{unit}"), target or "no symlink")
    mok = Path("/var/lib/dkms/mok.pub")
    for k in kernels:
        mods = modules_of(k.abi)
        if not mods:
            continue
        signer = run(["modinfo", "-F", "signer", str(mods[0])]).stdout.strip()
        c.check(f"install: DKMS signed the module for {k.abi} with its key ({mok}, for "
                f"Secure Boot)", mok.is_file() and bool(signer), f"signer {signer!r}")


def main() -> int:
    if os.geteuid() != 0:
        print("test_deb: needs root (it installs and removes a package)", file=sys.stderr)
        print("0 passed, 1 failed")
        return 1
    kernels = [debian.kernel_for(series) for series in debian.SERIES]
    for k in kernels:
        debian.ensure_packages(k)
    version = (TOP / "VERSION").read_text().strip()
    c = Checks()
    with tempfile.TemporaryDirectory(prefix="ppf-deb.") as tmp:
        res = run([str(TOP / "scripts" / "build-deb.sh"), tmp])
        deb = Path(res.stdout.strip().splitlines()[-1]) if res.returncode == 0 else Path()
        c.check("make deb: the package builds", res.returncode == 0 and deb.is_file(),
                res.stdout[-2000:])
        if c.failed:
            print(f"{c.passed} passed, {c.failed} failed")
            return 1
        check_before_install(c, deb)
        res = run([*debian.APT_GET, "install", "-y", "-q", "--no-install-recommends", str(deb)])
        print(res.stdout[-3000:], flush=True)
        c.check("install: apt-get installs it with dkms", res.returncode == 0)
        try:
            status = run(["dkms", "status", "-m", DKMS_NAME]).stdout
            print(status.strip())
            for k in kernels:
                mods = modules_of(k.abi)
                c.check(f"install: DKMS built the module for {k.abi}", len(mods) == 1,
                        f"found {mods}; dkms status: {status.strip()}")
                if mods:
                    magic = run(["modinfo", "-F", "vermagic", str(mods[0])]).stdout
                    c.check(f"install: the module for {k.abi} is built for it",
                            magic.startswith(k.abi + " "), magic.strip())
                c.check(f"install: dkms status says installed for {k.abi}",
                        any(k.abi in line and "installed" in line
                            for line in status.splitlines()), status)
            src = Path("/usr/src", f"{DKMS_NAME}-{version}")
            c.check("install: sources and dkms.conf under /usr/src",
                    (src / "dkms.conf").is_file() and (src / "Kbuild").is_file())
            help_ = run(["/usr/sbin/ppfctl", "--help"])
            c.check("install: ppfctl runs", help_.returncode == 0 and "usage: ppfctl" in help_.stdout,
                    help_.stdout)
            c.check("install: the module is loaded at boot (modules-load.d)",
                    "predictive_prefetch" in Path(
                        "/usr/lib/modules-load.d/predictive-prefetch.conf").read_text()
                    if Path("/usr/lib/modules-load.d/predictive-prefetch.conf").exists()
                    else False)
            units = [Path("/usr/lib/systemd/system", u) for u in UNITS]
            c.check("install: the systemd units that load and save the state",
                    all(u.is_file() for u in units), str(units))
            if shutil.which("systemd-analyze"):
                res = run(["systemd-analyze", "verify", *map(str, units)])
                c.check("install: systemd-analyze verify finds nothing in the units",
                        res.returncode == 0 and not res.stdout.strip(), res.stdout)
            state = [u for u in units if u.name.endswith("state.service")][0].read_text()
            c.check("install: the state unit loads at boot and saves at shutdown",
                    "ExecStart=-/usr/sbin/ppfctl load /var/lib/predictive-prefetch/state" in state
                    and "ExecStop=/usr/sbin/ppfctl save /var/lib/predictive-prefetch/state"
                    in state)
            doc = Path("/usr/share/doc", PACKAGE)
            c.check("install: the admin guide and the sysctl.d example",
                    (doc / "admin-guide.md").is_file()
                    and (doc / "examples" / "60-predictive-prefetch.conf").is_file())
            check_installed(c, kernels)
        finally:
            # what the state service saves, for purge to remove
            Path("/var/lib/predictive-prefetch").mkdir(exist_ok=True)
            Path("/var/lib/predictive-prefetch/state").write_bytes(b"PPFSTATE")
            res = run([*debian.APT_GET, "purge", "-y", "-q", PACKAGE])
            print(res.stdout[-2000:], flush=True)
        c.check("remove: apt-get removes it", res.returncode == 0)
        for k in kernels:
            c.check(f"remove: no module left for {k.abi}", not modules_of(k.abi),
                    str(modules_of(k.abi)))
        c.check("remove: no DKMS entry left",
                DKMS_NAME not in run(["dkms", "status"]).stdout)
        c.check("remove: no sources, no ppfctl, no units left",
                not Path("/usr/src", f"{DKMS_NAME}-{version}").exists()
                and not Path("/usr/sbin/ppfctl").exists()
                and not any(Path("/usr/lib/systemd/system", u).exists() for u in UNITS))
        c.check("purge: the saved state is gone (/var/lib/predictive-prefetch)",
                not Path("/var/lib/predictive-prefetch").exists())
        etc = Path("/etc/systemd/system")
        left = [str(p) for p in etc.rglob("*") if p.name in UNITS] if etc.is_dir() else []
        c.check("purge: no unit left enabled or masked in /etc/systemd/system", not left,
                str(left))
    print(f"{c.passed} passed, {c.failed} failed")
    return 0 if c.failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
