"""Every tool refuses bad input up front: one clear line on stderr, the
documented exit status (2: a malformed command line; 1: what it names
cannot be used, or the work failed), no traceback, no signal; a closed
output pipe ends the tool quietly; --version from the one VERSION file;
--help says the exit statuses.

The tools: ppf-trace (Python), ppf-replay (C), ppf-sim and ppf-bench (C,
built into build/ by the top Makefile), ppfctl (C), and the evaluation
harness's argument checks (python3 -m eval.harness), none of which may
install a package or start a VM before refusing.
"""
from __future__ import annotations

import gzip
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Optional, Sequence

import pytest

TOP = Path(__file__).resolve().parents[2]
TOOLS = TOP / "userspace" / "trace-replay"
PPF_TRACE = [sys.executable, str(TOOLS / "ppf-trace")]
REPLAY = TOOLS / "replay" / "ppf-replay-dyn"
SIM = TOP / "build" / "ppf-sim"
BENCH = TOP / "build" / "ppf-bench"
PPFCTL = TOP / "userspace" / "ppfctl" / "ppfctl"
HARNESS = [sys.executable, "-m", "eval.harness"]
TRACE = TOP / "eval" / "workloads" / "andrew" / "andrew.trace.gz"
BIG_TRACE = TOP / "eval" / "workloads" / "glimpse" / "glimpse.trace.gz"
VERSION = (TOP / "VERSION").read_text().strip()


@pytest.fixture(scope="module", autouse=True)
def built() -> None:
    """The C tools, built as make builds them."""
    subprocess.run(["make", "-s", "-C", str(TOOLS), "libppftrace.a", "replay/ppf-replay-dyn"],
                   check=True)
    subprocess.run(["make", "-s", "-C", str(TOP), "build/ppf-sim", "build/ppf-bench"], check=True)
    subprocess.run(["make", "-s", "-C", str(PPFCTL.parent), "ppfctl"], check=True)


def run(argv: Sequence[object], cwd: Optional[Path] = None,
        env: Optional[Dict[str, str]] = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(a) for a in argv], capture_output=True, text=True, cwd=cwd or TOP,
                          env=env, stdin=subprocess.DEVNULL, timeout=120)


def refused(res: subprocess.CompletedProcess[str], status: int, pattern: str,
            lines: int = 1) -> None:
    """Exit status as documented, not a signal; stderr's first line matches
    pattern; `lines` lines in all (ppfctl adds its usage to an unknown
    command); no traceback."""
    what = "%s\nrc %d\nstdout %r\nstderr %r" % (res.args, res.returncode, res.stdout[:300],
                                              res.stderr[:2000])
    assert res.returncode >= 0, "killed by signal %d: %s" % (-res.returncode, what)
    assert res.returncode == status, what
    assert "Traceback" not in res.stderr, what
    err = res.stderr.splitlines()
    assert err, "nothing on stderr: " + what
    assert re.search(pattern, err[0]), "first line does not match %r: %s" % (pattern, what)
    if lines == 1:
        assert len(err) == 1, "more than one line: " + what


# ------------------------------------------------------------------ ppf-trace

needs_strace = pytest.mark.skipif(shutil.which("strace") is None, reason="strace not installed")


@needs_strace
@pytest.mark.parametrize("args,status,pattern", [
    (["-o", "/nonexistent/dir/x.trace.gz"], 1, r"-o /nonexistent/dir/x.trace.gz: cannot write"),
    (["-o", "/"], 1, r"-o /: cannot write: Is a directory"),
    (["-o", "OUT", "--calib-calls", "-5"], 2, r"--calib-calls: -5: not a number in 100\.\."),
    (["-o", "OUT", "--calib-calls", "abc"], 2, r"--calib-calls: abc: not a number"),
    (["-o", "OUT", "--root", "/nonexistent"], 1, r"--root /nonexistent: no such directory"),
    (["-o", "OUT", "--root", "/etc/passwd"], 1, r"--root /etc/passwd: not a directory"),
    (["-o", "OUT", "--keep-raw", "/etc/passwd"], 1, r"--keep-raw /etc/passwd: not a directory"),
    (["-o", "OUT", "--frobnicate"], 2, r"unrecognized arguments: --frobnicate|--frobnicate"),
    (["--calib-calls", "100"], 2, r"required: -o/--output"),
])
def test_trace_record_refuses_before_running(tmp_path: Path, args: List[str], status: int,
                                             pattern: str) -> None:
    """The command (which would leave a marker) never runs."""
    marker = tmp_path / "ran"
    argv = [a.replace("OUT", str(tmp_path / "x.trace")) for a in args]
    res = run(PPF_TRACE + ["record"] + argv + ["--", "touch", str(marker)], cwd=tmp_path)
    refused(res, status, "^ppf-trace record: .*" + pattern)
    assert not marker.exists(), "the command ran before the refusal"
    assert not (tmp_path / "x.trace").exists()


@needs_strace
def test_trace_record_command_not_found(tmp_path: Path) -> None:
    out = tmp_path / "x.trace"
    refused(run(PPF_TRACE + ["record", "-o", out, "--", "/no/such/cmd"]), 127,
            r"^ppf-trace record: /no/such/cmd: command not found$")
    refused(run(PPF_TRACE + ["record", "-o", out, "--", "no-such-command-ppf"]), 127,
            r"^ppf-trace record: no-such-command-ppf: command not found$")
    refused(run(PPF_TRACE + ["record", "-o", out, "--", "/etc/passwd"]), 126,
            r"^ppf-trace record: /etc/passwd: not executable$")
    refused(run(PPF_TRACE + ["record", "-o", out]), 2, r"^ppf-trace record: no command given")
    assert not out.exists()


@needs_strace
def test_trace_record_passes_exit_status_through(tmp_path: Path) -> None:
    out = tmp_path / "x.trace"
    res = run(PPF_TRACE + ["record", "-o", out, "--no-calibrate", "--", "sh", "-c", "exit 3"],
              cwd=tmp_path)
    assert res.returncode == 3, res.stderr
    assert "Traceback" not in res.stderr and out.is_file(), res.stderr
    res = run(PPF_TRACE + ["record", "-o", out, "--no-calibrate", "--", "sh", "-c",
                           "kill -TERM $$"], cwd=tmp_path)
    assert res.returncode == 128 + 15, res.stderr


@pytest.mark.parametrize("args,status,pattern", [
    ([], 2, r"^ppf-trace: the following arguments are required"),
    (["frobnicate"], 2, r"^ppf-trace: .*invalid choice: 'frobnicate'"),
    (["info"], 2, r"^ppf-trace info: the following arguments are required: file"),
    (["info", "/nonexistent.trace"], 1, r"^/nonexistent.trace:0: cannot open: No such file"),
    (["info", "/etc/passwd"], 1, r"^/etc/passwd:1: "),
    (["info", "/"], 1, r"^/:0: cannot open: Is a directory"),
    (["calibrate", "--calls", "5"], 2, r"^ppf-trace calibrate: .*--calls: 5: not a number"),
])
def test_trace_bad_arguments(args: List[str], status: int, pattern: str) -> None:
    refused(run(PPF_TRACE + args), status, pattern)


def test_trace_info_broken_pipe_is_quiet() -> None:
    """ppf-trace info F | head: no BrokenPipeError traceback, status 0."""
    quiet_on_closed_pipe(PPF_TRACE + ["info", str(BIG_TRACE)])


def quiet_on_closed_pipe(argv: Sequence[str]) -> None:
    """The reader is gone before the tool writes: it ends quietly with 0."""
    r, w = os.pipe()
    os.close(r)
    try:
        res = subprocess.run(argv, stdout=w, stderr=subprocess.PIPE, text=True, timeout=120,
                             cwd=TOP, stdin=subprocess.DEVNULL)
    finally:
        os.close(w)
    assert res.returncode == 0, (argv, res.returncode, res.stderr)
    assert res.stderr == "", (argv, res.stderr)


# ------------------------------------------------------------------ ppf-replay

@pytest.mark.parametrize("args,status,pattern", [
    ([], 2, r"^ppf-replay: no command"),
    (["frobnicate"], 2, r"^ppf-replay: unknown command 'frobnicate'"),
    (["run"], 2, r"^ppf-replay run: needs TRACE and DIR"),
    (["run", "--think=fast", "TRACE", "TREE"], 2, r"^ppf-replay run: --think=fast: not spin or sleep"),
    (["run", "--spin-rate=abc", "TRACE", "TREE"], 2, r"^ppf-replay run: --spin-rate=abc: not a number"),
    (["run", "--spin-rate=-1", "TRACE", "TREE"], 2, r"^ppf-replay run: --spin-rate=-1: not a number"),
    (["run", "--frobnicate", "TRACE", "TREE"], 2, r"^ppf-replay run: unknown option --frobnicate"),
    (["run", "TRACE", "TREE", "extra"], 2, r"^ppf-replay run: too many arguments"),
    (["run", "--json"], 2, r"^ppf-replay run: --json needs a FILE"),
    (["run", "/nonexistent.trace", "TREE"], 1, r"^ppf-replay: /nonexistent.trace:0: cannot open"),
    (["run", "TRACE", "/nonexistent"], 1, r"^ppf-replay: /nonexistent is not a directory"),
    (["run", "TRACE", "TREE"], 1,
     r"^ppf-replay: .* does not hold .*andrew.trace.gz's starting state: \d+ of its \d+ .*"
     r"build-tree"),
    (["run", "--json", "/nonexistent/dir/r.json", "TRACE", "TREE"], 1,
     r"^ppf-replay: --json /nonexistent/dir/r.json: cannot write"),
    (["run", "--events", "/", "TRACE", "TREE"], 1, r"^ppf-replay: --events /: cannot write"),
    (["build-tree"], 2, r"^ppf-replay build-tree: needs TRACE and DIR"),
    (["build-tree", "--frobnicate", "TRACE", "TREE"], 2, r"^ppf-replay build-tree: unknown option"),
])
def test_replay_bad_arguments(tmp_path: Path, args: List[str], status: int, pattern: str) -> None:
    """TREE is an empty directory: not the trace's starting state."""
    (tmp_path / "tree").mkdir()
    subst = {"TRACE": str(TRACE), "TREE": str(tmp_path / "tree")}
    refused(run([REPLAY] + [subst.get(a, a) for a in args]), status, pattern)


def test_replay_empty_tree_refused_json_not_written(tmp_path: Path) -> None:
    """An empty DIR: refused before the run (it reported 367 unexpected
    errors and exited 0); no JSON written; --no-tree-check replays anyway."""
    tree = tmp_path / "tree"
    tree.mkdir()
    out = tmp_path / "r.json"
    refused(run([REPLAY, "run", "--quiet", "--json", out, TRACE, tree]), 1, r"does not hold")
    assert not out.exists()
    res = run([REPLAY, "run", "--quiet", "--no-tree-check", "--spin-rate=100", "--json", out,
               TRACE, tree])
    assert res.returncode == 0, res.stderr
    assert json.loads(out.read_text())["errors"]["unexpected"] > 0


# ------------------------------------------------------------------ ppf-sim

@pytest.mark.parametrize("args,status,pattern", [
    ([], 2, r"^ppf-sim: no TRACE given"),
    (["--frobnicate", "TRACE"], 2, r"^ppf-sim: unknown option --frobnicate"),
    (["-x", "TRACE"], 2, r"^ppf-sim: unknown option -x"),
    (["-m"], 2, r"^ppf-sim: -m needs a value"),
    (["-t", "abc", "TRACE"], 2, r"^ppf-sim: --threshold abc: not a number"),
    (["-r", "-1", "TRACE"], 2, r"^ppf-sim: --passes needs a non-negative number"),
    (["-m", "ppm", "TRACE"], 2, r"^ppf-sim: --model ppm: not"),
    (["/nonexistent.trace"], 1, r"^ppf-sim: /nonexistent.trace:0: cannot open"),
    (["TRACE", "/nonexistent.trace"], 1, r"^ppf-sim: /nonexistent.trace:0: cannot open"),
    (["-j", "/nonexistent/dir/x.json", "TRACE"], 1,
     r"^ppf-sim: --json /nonexistent/dir/x.json: cannot write"),
    (["-j", "/", "TRACE"], 1, r"^ppf-sim: --json /: cannot write: Is a directory"),
])
def test_sim_bad_arguments(args: List[str], status: int, pattern: str) -> None:
    """Refused before any trace is scored: nothing on stdout."""
    res = run([SIM] + [str(TRACE) if a == "TRACE" else a for a in args])
    refused(res, status, pattern)
    assert res.stdout == ""


def test_sim_json_to_stdout(tmp_path: Path) -> None:
    """-j -: the JSON on stdout (it wrote a file named "-"), the table on stderr."""
    res = run([SIM, "-m", "last_successor", "-j", "-", TRACE], cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["results"][0]["model"] == "last_successor"
    assert "precis" in res.stderr
    assert not (tmp_path / "-").exists()


def test_sim_broken_pipe_is_quiet(tmp_path: Path) -> None:
    """ppf-sim ... | head: quiet, and the JSON is still written."""
    out = tmp_path / "r.json"
    quiet_on_closed_pipe([str(SIM), "-m", "last_successor", "-j", str(out), str(TRACE)])
    assert json.loads(out.read_text())["results"][0]["model"] == "last_successor"


def test_bench_broken_pipe_is_quiet() -> None:
    """ppf-bench | head stops after the first row, quietly (it went on for minutes)."""
    quiet_on_closed_pipe([str(BENCH), "1000"])


# ------------------------------------------------------------------ ppf-bench

@pytest.mark.parametrize("args,status,pattern", [
    (["one", "epcm", "random", "abc", "10"], 2, r"^ppf-bench: FILES abc: not a number"),
    (["one", "epcm", "random", "0", "10"], 2, r"^ppf-bench: FILES 0: not a number in 1\.\."),
    (["one", "epcm", "random", "10", "-1"], 2, r"^ppf-bench: EVENTS -1: not a number"),
    (["one", "ppm", "random", "10", "10"], 2, r"^ppf-bench: MODEL ppm: not"),
    (["one", "epcm", "sorted", "10", "10"], 2, r"^ppf-bench: stream sorted: not random or"),
    (["one", "epcm"], 2, r"^ppf-bench: one needs MODEL"),
    (["--frobnicate"], 2, r"^ppf-bench: unknown option --frobnicate"),
    (["abc"], 2, r"^ppf-bench: MAX_FILES abc: not a number"),
    (["1000", "2"], 2, r"^ppf-bench: too many arguments"),
])
def test_bench_bad_arguments(args: List[str], status: int, pattern: str) -> None:
    res = run([BENCH, *args])
    refused(res, status, pattern)
    assert res.stdout == ""


def test_bench_one_runs() -> None:
    res = run([BENCH, "one", "epcm", "repetitive", "100", "1000"])
    assert res.returncode == 0 and "epcm repetitive 100 files" in res.stdout, res


# ------------------------------------------------------------------ ppfctl

@pytest.mark.parametrize("args,status,pattern,lines", [
    ([], 2, r"^ppfctl: no command", 1),
    (["frobnicate"], 2, r"^ppfctl: unknown command 'frobnicate'$", 0),
    (["watch", "-i", "abc"], 2, r"^ppfctl: -i abc: not a number of seconds", 1),
    (["watch", "-i"], 2, r"^ppfctl: -i needs a value", 1),
    (["watch", "-n", "-3"], 2, r"^ppfctl: -n -3: not a count", 1),
    (["watch", "-i", "0"], 2, r"^ppfctl: watch: -i needs an interval above 0", 1),
    (["status", "-i", "99999"], 2, r"^ppfctl: -i 99999: not a number of seconds in 0\.\.86400", 1),
    (["--frobnicate"], 2, r"^ppfctl: unknown option --frobnicate", 1),
    (["set", "threshold"], 2, r"^ppfctl: set: wrong number of arguments", 0),
    (["get", "a", "b", "c", "d"], 2, r"^ppfctl: too many arguments", 1),
])
def test_ppfctl_bad_arguments(args: List[str], status: int, pattern: str, lines: int) -> None:
    refused(run([PPFCTL, *args]), status, pattern, lines)


@pytest.mark.skipif(os.path.exists("/proc/predictive_prefetch"), reason="ppf is loaded here")
def test_ppfctl_not_loaded() -> None:
    """Not loaded: one line saying how to load it, exit 1; --json says
    "loaded": false (it was the constant true)."""
    res = run([PPFCTL, "status", "--json"])
    refused(res, 1, r"^ppfctl: ppf is not loaded .*modprobe predictive_prefetch")
    assert json.loads(res.stdout) == {"loaded": False, "enabled": False}
    refused(run([PPFCTL, "watch", "-t", "-n", "1"]), 1, r"^ppfctl: ppf is not loaded")


# ------------------------------------------------------------------ harness

@pytest.mark.parametrize("args,status,pattern", [
    (["calibrate", "bogus"], 2, r"calibrate: unknown profile bogus"),
    (["realcheck", "nosuch"], 2, r"realcheck: no real-tree recipe for workload 'nosuch'"),
    (["realcheck", "glimpse", "--profile", "bogus"], 2, r"realcheck: unknown profile bogus"),
    (["run", "-j", "0", "x"], 2, r"-j/--jobs: 0: not a number of VMs"),
    (["run", "no-such-experiment"], 1, r"^harness: no experiment 'no-such-experiment'"),
    (["run", "--trace", "/nonexistent.trace.gz", "--profile", "hdd"], 1,
     r"^harness: trace /nonexistent.trace.gz: no such file"),
    (["run", "andrew-hdd2001", "--only", "bogus"], 2,
     r"run --only: no configuration bogus in andrew-hdd2001"),
    (["run", "--trace", "EMPTY", "--profile", "hdd"], 1, r"^harness: trace .*: no events"),
    (["spread", "andrew-hdd2001", "--phases", "9"], 2,
     r"--phases: 9: not a number of phases in 2..4"),
    (["spread", "andrew-hdd2001", "--only", "bogus"], 2,
     r"spread --only: no configuration bogus in andrew-hdd2001"),
    (["spread", "no-such-experiment"], 1, r"^harness: no experiment 'no-such-experiment'"),
])
def test_harness_refuses_before_installing(tmp_path: Path, args: List[str], status: int,
                                           pattern: str) -> None:
    """With a PATH without apt-get or make, anything it tried to install or
    build would fail loudly: the refusal must come first.  EMPTY stands for
    a trace with a header and no event."""
    empty = tmp_path / "empty.trace.gz"
    with gzip.open(empty, "wt") as f:
        f.write("ppf-trace 2\n")
    args = [str(empty) if a == "EMPTY" else a for a in args]
    env = dict(os.environ, PATH=str(tmp_path), PYTHONPATH=str(TOP))
    refused(run(HARNESS + args, env=env), status, pattern)


# ------------------------------------------------------------------ every tool

TOOL_ARGV = {
    "ppf-trace": PPF_TRACE,
    "ppf-replay": [str(REPLAY)],
    "ppf-sim": [str(SIM)],
    "ppf-bench": [str(BENCH)],
    "ppfctl": [str(PPFCTL)],
}


@pytest.mark.parametrize("tool", sorted(TOOL_ARGV))
def test_version_and_help(tool: str) -> None:
    res = run(TOOL_ARGV[tool] + ["--version"])
    assert res.returncode == 0 and res.stdout == "%s (ppf) %s\n" % (tool, VERSION), res
    res = run(TOOL_ARGV[tool] + ["--help"])
    assert res.returncode == 0 and res.stderr == "", res
    assert re.search(r"(?i)exit status", res.stdout), res.stdout
    for status in ("0", "1", "2"):
        assert re.search(r"(?m)^\s*%s\b|\b%s a\b|%s done|; %s " % (status, status, status, status),
                         res.stdout), (tool, status, res.stdout)
