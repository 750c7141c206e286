"""Shared helpers for the ppf-replay tests."""
import json
import os
import subprocess

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
TOOLS = os.path.join(REPO, "userspace", "trace-replay")
REPLAY = os.path.join(TOOLS, "replay", "ppf-replay")
PPF_TRACE = os.path.join(TOOLS, "ppf-trace")
CHECK = os.path.join(TOOLS, "ppf-trace-check")
ANDREW = os.path.join(REPO, "eval", "workloads", "andrew", "andrew.trace.gz")


@pytest.fixture(scope="session", autouse=True)
def built():
    subprocess.run(["make", "-s", "-C", TOOLS, "libppftrace.a", "ppf-trace-check", "replay"],
                   check=True)


def write_trace(path, files, events, meta=(), version=2):
    """files: [(size, origin, path)], events: lines 'START DUR PID OP FILE ARGS'."""
    lines = ["ppf-trace %d" % version] + ["meta %s %s" % kv for kv in meta]
    lines += ["file %d %d %s %s" % (i, s, o, p) for i, (s, o, p) in enumerate(files)]
    lines += list(events)
    path.write_text("\n".join(lines) + "\n")
    return path


def replay(*args, check=True):
    res = subprocess.run([REPLAY] + [str(a) for a in args], capture_output=True, text=True)
    if check and res.returncode != 0:
        raise AssertionError("ppf-replay %s: rc %d\n%s%s" % (args, res.returncode, res.stdout,
                                                            res.stderr))
    return res


def run_json(trace, tree, tmp_path, *opts, name="r.json"):
    out = tmp_path / name
    replay("run", "--quiet", "--json", out, *opts, trace, tree)
    return json.loads(out.read_text())


def is_root():
    return os.geteuid() == 0


def fs_type(path):
    res = subprocess.run(["stat", "-f", "-c", "%T", str(path)], capture_output=True, text=True)
    return res.stdout.strip()
