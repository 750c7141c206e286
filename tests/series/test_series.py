#!/usr/bin/env python3
"""ppf as a patch series for a 6.12 tree: made, checked, applied, built in.

scripts/make-patch-series.sh writes the series; this checks that
checkpatch.pl --strict (in tree mode, from the 6.12 tree) finds nothing in
it but what the series says it must (compat.h's unused macro argument, and
new files in patches after the one that adds the MAINTAINERS entry), that
no patch tests LINUX_VERSION_CODE (compat.h is resolved for the tree), that the
admin guide it adds is valid reStructuredText (docutils, warnings are
errors) listed in Documentation/admin-guide/mm/index.rst, and that the
tree with the series applied builds with CONFIG_PREDICTIVE_PREFETCH=y
(eval/kernel/build.sh --series, cached like the test kernels) with ppf in
vmlinux.  Prints "ok"/"FAIL" lines and "N passed, N failed".
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import List

TOP = Path(__file__).resolve().parents[2]
BUILD = TOP / "eval" / "kernel" / "build.sh"
RST = "Documentation/admin-guide/mm/predictive_prefetch.rst"
# What checkpatch may say about a patch, by its subject, and why.
ALLOWED = {
    # The version seam: ppf_assign_str() keeps the argument 6.10's
    # __assign_str() no longer takes, so that one call serves 6.1 and 6.12.
    "one header for the interfaces": "MACRO_ARG_UNUSED,FILE_PATH_CHANGES",
    # New files under mm/ppf/ and the guide: patch 1's MAINTAINERS entry
    # covers them, which checkpatch cannot see from a later patch.
    "predictive page-cache prefetching": "FILE_PATH_CHANGES",
}


class Checks:
    def __init__(self) -> None:
        self.passed = 0
        self.failed = 0

    def check(self, desc: str, ok: bool, detail: str = "") -> None:
        self.passed += ok
        self.failed += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {desc}{'' if ok or not detail else ': ' + detail}",
              flush=True)


def ensure_docutils() -> None:
    try:
        import docutils  # type: ignore[import]  # noqa: F401
    except ImportError:
        subprocess.run([str(TOP / "scripts" / "install-deps.sh"), "--packages",
                        "python3-docutils"], check=True)


def rst_problems(text: str) -> str:
    """docutils' complaints about a reStructuredText document, or ""."""
    import io

    import docutils.core  # type: ignore[import]
    import docutils.utils  # type: ignore[import]
    err = io.StringIO()
    try:
        docutils.core.publish_doctree(text, settings_overrides={
            "report_level": 2, "halt_level": 5, "warning_stream": err})
    except docutils.utils.SystemMessage as e:
        return str(e)
    return err.getvalue()


def main() -> int:
    c = Checks()
    ensure_docutils()
    with tempfile.TemporaryDirectory(prefix="ppf-series.") as tmp:
        out = Path(tmp) / "series"
        res = subprocess.run([str(TOP / "scripts" / "make-patch-series.sh"), str(out)],
                             text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        patches: List[Path] = sorted(out.glob("*.patch"))
        c.check("the series is made", res.returncode == 0 and len(patches) == 4, res.stdout)
        if not patches:
            print(f"{c.passed} passed, {c.failed} failed")
            return 1
        tested = [p.name for p in patches
                  if re.search(r"^\+.*\bLINUX_VERSION_CODE\b", p.read_text(), re.M)]
        c.check("no patch tests LINUX_VERSION_CODE (compat.h resolved for 6.12)",
                not tested, ", ".join(tested))
        pristine = subprocess.run([str(BUILD), "--print-src"], text=True,
                                  stdout=subprocess.PIPE, check=True).stdout.strip()
        for p in patches:
            # The Subject: header, unfolded.
            subject = re.search(r"^Subject: \[PATCH[^]]*\] (.*(?:\n .*)*)$", p.read_text(), re.M)
            subj = " ".join(subject.group(1).split()) if subject else p.name
            ignore = next((v for k, v in ALLOWED.items() if k in subj), "")
            cmd = [f"{pristine}/scripts/checkpatch.pl", "--strict", "--terse", "--show-types"]
            if ignore:
                cmd += ["--ignore", ignore]
            chk = subprocess.run([*cmd, str(p)], cwd=pristine, text=True,
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            c.check(f"checkpatch --strict: {subj}",
                    chk.returncode == 0 and not re.search(r"(ERROR|WARNING|CHECK):", chk.stdout),
                    chk.stdout[-3000:])
        res = subprocess.run([str(BUILD), "--series", str(out), "--print-src"], text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        c.check("the series applies to the 6.12 tree", res.returncode == 0, res.stderr[-2000:])
        if res.returncode == 0:
            tree = Path(res.stdout.strip())
            rst = (tree / RST).read_text()
            problems = rst_problems(rst)
            c.check("the admin guide is valid reStructuredText", not problems, problems[-2000:])
            c.check("the admin guide is in the mm admin-guide index",
                    "   predictive_prefetch\n" in
                    (tree / "Documentation/admin-guide/mm/index.rst").read_text())
        print("test_series: building the tree with the series, CONFIG_PREDICTIVE_PREFETCH=y "
              "(cached)", flush=True)
        res = subprocess.run([str(BUILD), "--series", str(out)], text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        c.check("the tree builds with CONFIG_PREDICTIVE_PREFETCH=y", res.returncode == 0,
                res.stderr[-3000:])
        if res.returncode == 0:
            kdir = Path(res.stdout.strip())
            config = (kdir / ".config").read_text()
            c.check(".config has CONFIG_PREDICTIVE_PREFETCH=y",
                    "\nCONFIG_PREDICTIVE_PREFETCH=y\n" in config)
            nm = subprocess.run(["nm", str(kdir / "vmlinux")], text=True,
                                stdout=subprocess.PIPE).stdout
            c.check("ppf is in vmlinux (ppf_model_event, its sysctl table)",
                    re.search(r" [Tt] ppf_model_event$", nm, re.M) is not None
                    and re.search(r" [dD] ppf_sysctl_table$", nm, re.M) is not None)
    print(f"{c.passed} passed, {c.failed} failed")
    return 0 if c.failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
