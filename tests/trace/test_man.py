"""The man pages (docs/man/*.md, turned into roff by scripts/make-man.py)
against the tools: every option a tool's --help lists is in its page, and
every option the page lists is in the --help; each page renders without
warnings; the EXIT STATUS section names 0, 1 and 2 as the help does."""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Set

import pytest

TOP = Path(__file__).resolve().parents[2]
MAN_SRC = TOP / "docs" / "man"
TOOLS = TOP / "userspace" / "trace-replay"
PPF_TRACE = [sys.executable, str(TOOLS / "ppf-trace")]

# page -> the --help invocations whose options the page documents
HELPS: Dict[str, List[List[str]]] = {
    "ppf-trace.1": [PPF_TRACE + ["--help"], PPF_TRACE + ["record", "--help"],
                    PPF_TRACE + ["info", "--help"], PPF_TRACE + ["calibrate", "--help"]],
    "ppf-replay.1": [[str(TOOLS / "replay" / "ppf-replay-dyn"), "--help"]],
    "ppf-sim.1": [[str(TOP / "build" / "ppf-sim"), "--help"]],
    "ppfctl.8": [[str(TOP / "userspace" / "ppfctl" / "ppfctl"), "--help"]],
}
OPTION = re.compile(r"(?<![\w-])(--?[A-Za-z][\w-]*)")


@pytest.fixture(scope="module", autouse=True)
def built() -> None:
    subprocess.run(["make", "-s", "-C", str(TOOLS), "libppftrace.a", "replay/ppf-replay-dyn"],
                   check=True)
    subprocess.run(["make", "-s", "-C", str(TOP), "build/ppf-sim"], check=True)
    subprocess.run(["make", "-s", "-C", str(TOP / "userspace" / "ppfctl"), "ppfctl"], check=True)


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("man")
    subprocess.run([sys.executable, str(TOP / "scripts" / "make-man.py"), str(out)], check=True,
                   stdout=subprocess.DEVNULL)
    return out


def help_options(text: str) -> Set[str]:
    """The options an option line of a --help defines: lines indented at most
    8 columns that start with '-', up to the gap before the description."""
    opts: Set[str] = set()
    for line in text.splitlines():
        m = re.match(r"^ {1,8}(-\S.*?)(?: {2,}|$)", line)
        if m:
            opts.update(OPTION.findall(m.group(1)))
    return opts


def man_options(src: str) -> Set[str]:
    """The options the page's OPTIONS section defines: its items' tags."""
    section = re.search(r"^## OPTIONS\n(.*?)(?=^## )", src, re.S | re.M)
    assert section, "no OPTIONS section"
    opts: Set[str] = set()
    for line in section.group(1).splitlines():
        if line.startswith("`"):
            for lit in re.findall(r"`([^`]*)`", line):
                opts.update(OPTION.findall(lit) if lit.startswith("-") else [])
    return opts


def test_every_tool_has_a_page() -> None:
    assert sorted(p.name[:-3] for p in MAN_SRC.glob("*.md")) == sorted(HELPS)


@pytest.mark.parametrize("page", sorted(HELPS))
def test_page_matches_help(page: str) -> None:
    helped: Set[str] = set()
    texts = []
    for argv in HELPS[page]:
        res = subprocess.run(argv, capture_output=True, text=True, check=True)
        helped |= help_options(res.stdout)
        texts.append(res.stdout)
    documented = man_options((MAN_SRC / (page + ".md")).read_text())
    assert helped, texts
    assert helped - documented == set(), "in --help, not in the man page"
    assert documented - helped == set(), "in the man page, not in --help"


@pytest.mark.parametrize("page", sorted(HELPS))
def test_page_exit_status(page: str) -> None:
    src = (MAN_SRC / (page + ".md")).read_text()
    section = re.search(r"^## EXIT STATUS\n(.*?)(?=^## )", src, re.S | re.M)
    assert section, "no EXIT STATUS section"
    for status in ("0", "1", "2"):
        assert re.search(r"^`%s`$" % status, section.group(1), re.M), status


@pytest.mark.skipif(shutil.which("man") is None, reason="man not installed")
@pytest.mark.parametrize("page", sorted(HELPS))
def test_page_renders(pages: Path, page: str) -> None:
    res = subprocess.run(["man", "--warnings", "-l", str(pages / page)], capture_output=True,
                         text=True, env={"MANWIDTH": "80", "PATH": "/usr/bin:/bin",
                                         "LANG": "C.UTF-8"})
    assert res.returncode == 0 and res.stderr == "", res.stderr
    name = page.rsplit(".", 1)[0]
    assert re.search(r"^NAME\n\s+%s - " % re.escape(name), res.stdout, re.M), res.stdout[:500]
    assert "EXIT STATUS" in res.stdout


def test_sim_help_lists_its_getopt_table() -> None:
    """ppf-sim's --help against its own option table (getopt_long's)."""
    src = (TOP / "userspace" / "sim" / "options.c").read_text()
    table = set("--" + n for n in re.findall(r'\{ "([\w-]+)", (?:required|no)_argument', src))
    res = subprocess.run([str(TOP / "build" / "ppf-sim"), "--help"], capture_output=True,
                         text=True, check=True)
    assert table and table - help_options(res.stdout) == set()
