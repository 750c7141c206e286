"""ppfctl's bash completion (packaging/bash-completion/ppfctl): commands,
each command's options, files where a FILE goes.  bash-completion's
_init_completion and _filedir are stubbed (the test needs only bash)."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import List

import pytest

TOP = Path(__file__).resolve().parents[2]
SCRIPT = TOP / "packaging" / "bash-completion" / "ppfctl"

STUBS = r"""
_init_completion() {
    words=("${COMP_WORDS[@]}"); cword=$COMP_CWORD
    cur=${COMP_WORDS[COMP_CWORD]}; prev=${COMP_WORDS[COMP_CWORD-1]}
}
_filedir() { COMPREPLY=(FILES); }
"""


def complete(line: str) -> List[str]:
    """The completions bash offers for line (words split on spaces; a
    trailing space starts a new, empty word)."""
    words = line.split(" ")
    script = STUBS + SCRIPT.read_text() + """
COMP_WORDS=(%s); COMP_CWORD=%d
_ppfctl
printf '%%s\\n' "${COMPREPLY[@]}"
""" % (" ".join("'%s'" % w for w in words), len(words) - 1)
    res = subprocess.run(["bash", "-c", script], capture_output=True, text=True, check=True)
    assert res.stderr == "", res.stderr
    return sorted(w for w in res.stdout.splitlines() if w)


pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="no bash")


def test_commands() -> None:
    assert complete("ppfctl ") == sorted("status enable disable reset get set watch save "
                                         "load export import".split())
    assert complete("ppfctl wa") == ["watch"]
    assert complete("ppfctl -") == ["--help", "--version"]


def test_options_per_command() -> None:
    assert complete("ppfctl watch -") == ["--json", "-i", "-n", "-t"]
    assert complete("ppfctl status -") == ["--json", "-i"]
    assert complete("ppfctl watch -i ") == []
    assert complete("ppfctl watch -i 2 -") == ["--json", "-i", "-n", "-t"]
    assert complete("ppfctl get -") == ["--json"]


def test_files() -> None:
    for cmd in ("save", "load", "export", "import"):
        assert complete("ppfctl %s " % cmd) == ["FILES"]
    assert complete("ppfctl save x ") == []
