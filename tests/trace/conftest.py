"""Shared paths for the trace tests."""
import os
import subprocess

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
TOOLS = os.path.normpath(os.path.join(HERE, "..", "..", "userspace", "trace-replay"))
PPF_TRACE = os.path.join(TOOLS, "ppf-trace")
CHECK = os.path.join(TOOLS, "ppf-trace-check")


@pytest.fixture(scope="session")
def check_bin():
    subprocess.run(["make", "-s", "-C", TOOLS, "ppf-trace-check"], check=True)
    return CHECK
