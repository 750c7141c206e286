#!/usr/bin/env python3
"""resolve-kernel-version.py - compat.h as one kernel version spells it

usage: python3 scripts/resolve-kernel-version.py VERSION [FILE]

Prints FILE (default: mm/prefetch/compat.h) with every
`#if LINUX_VERSION_CODE <op> KERNEL_VERSION(a, b, c)` resolved for VERSION
(e.g. 6.12.0): the branch that holds is kept, the other and the directives
go, and so does `#include <linux/version.h>`.  Other preprocessor
conditionals pass through untouched.  The header's paragraph on its version
tests is replaced by one saying which version it was resolved for.

The external module needs the version tests: one source builds for 6.1 and
6.12.  A tree needs none: code in a tree targets that tree, and checkpatch
warns against LINUX_VERSION_CODE there.  scripts/make-patch-series.sh puts
this output into the series; tests/series/test_series.py checks that no
patch tests a version.
"""

from __future__ import annotations

import operator
import re
import sys
from pathlib import Path
from typing import Callable, Dict, List, Optional, Tuple

TOP = Path(__file__).resolve().parents[1]
VERSION_IF = re.compile(
    r"^#if LINUX_VERSION_CODE\s*(>=|<=|==|!=|>|<)\s*"
    r"KERNEL_VERSION\((\d+),\s*(\d+),\s*(\d+)\)\s*$")
OPS: Dict[str, Callable[[Tuple[int, ...], Tuple[int, ...]], bool]] = {
    ">=": operator.ge, "<=": operator.le, "==": operator.eq,
    "!=": operator.ne, ">": operator.gt, "<": operator.lt,
}
# The paragraph of compat.h's header that speaks of its version tests.
PARAGRAPH = re.compile(r" \* This is the one file that tests LINUX_VERSION_CODE.*?(?= \*/)", re.S)


class Unresolvable(Exception):
    """A version test this script cannot read, or unbalanced directives."""


def parse_version(text: str) -> Tuple[int, int, int]:
    m = re.fullmatch(r"(\d+)\.(\d+)(?:\.(\d+))?", text)
    if not m:
        raise Unresolvable(f"version {text!r} is not MAJOR.MINOR[.PATCH]")
    return int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)


def resolve(text: str, version: Tuple[int, int, int]) -> str:
    """text with its version tests resolved for version."""
    out: List[str] = []
    # One frame per open conditional: None for one that passes through,
    # else [whether the current branch is kept].
    stack: List[Optional[List[bool]]] = []

    def keeping() -> bool:
        return all(f is None or f[0] for f in stack)

    for n, line in enumerate(text.splitlines(keepends=True), 1):
        s = line.strip()
        m = VERSION_IF.match(s)
        if m:
            want = tuple(int(g) for g in m.group(2, 3, 4))
            stack.append([OPS[m.group(1)](version, want)])
            continue
        if "LINUX_VERSION_CODE" in s and s.startswith("#"):
            raise Unresolvable(f"line {n}: cannot resolve {s!r}")
        if s.startswith("#if"):
            stack.append(None)
        elif s.startswith(("#else", "#elif", "#endif")):
            if not stack:
                raise Unresolvable(f"line {n}: {s.split()[0]} without #if")
            top = stack[-1]
            if top is not None:
                if s.startswith("#elif"):
                    raise Unresolvable(f"line {n}: #elif after a version test")
                if s.startswith("#else"):
                    top[0] = not top[0]
                else:
                    stack.pop()
                continue
            if s.startswith("#endif"):
                stack.pop()
        elif s == "#include <linux/version.h>":
            continue
        if keeping():
            out.append(line)
    if stack:
        raise Unresolvable("a conditional is not closed")
    return "".join(out)


def main(argv: List[str]) -> int:
    if len(argv) not in (1, 2):
        print(__doc__.splitlines()[2], file=sys.stderr)
        return 2
    path = Path(argv[1]) if len(argv) == 2 else TOP / "mm/prefetch/compat.h"
    try:
        version = parse_version(argv[0])
        text = resolve(path.read_text(), version)
    except (Unresolvable, OSError) as e:
        print(f"resolve-kernel-version: {path}: {e}", file=sys.stderr)
        return 1
    v = ".".join(str(x) for x in version[:2])
    text = PARAGRAPH.sub(
        f" * In this tree each is written as {v} spells it: the external module's\n"
        " * copy tests the kernel's version, this one was resolved for this tree\n"
        " * (scripts/resolve-kernel-version.py in the ppf sources).\n", text, count=1)
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
