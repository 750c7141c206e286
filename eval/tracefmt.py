"""The recorder's trace format for eval/: ppftrace.fmt, imported in one place.

The trace format's Python writer and strict reader live with the recorder,
in userspace/trace-replay/ppftrace/ (docs/trace-format.md), the package
`ppftrace` its CLI ppf-trace imports from beside it.  That directory's name
has a hyphen, so no import path through the tree reaches it: this module
loads the package from its directory under its own name, once (importlib's
recipe for importing a source file directly; sys.path is left as it is),
and eval/ imports the format from here instead of parsing or writing trace
lines by hand.  Under pytest the package is importable as it is
(pytest.ini's pythonpath); whichever import comes first, both read the same
files and share one module.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

RECORDER = Path(__file__).resolve().parents[1] / "userspace" / "trace-replay" / "ppftrace"


def _load_recorder() -> None:
    """sys.modules["ppftrace"]: the recorder's package from RECORDER, unless
    an import made it already."""
    if "ppftrace" in sys.modules:
        return
    spec = importlib.util.spec_from_file_location("ppftrace", RECORDER / "__init__.py")
    if spec is None or spec.loader is None:
        raise ImportError(f"no recorder package at {RECORDER}")
    package = importlib.util.module_from_spec(spec)
    sys.modules["ppftrace"] = package
    spec.loader.exec_module(package)


_load_recorder()

from ppftrace.fmt import (ORIGINS, VERSION, TraceError, load_trace,  # noqa: E402,F401
                          parse_trace, write_trace)
from ppftrace.think import think_and_compute, think_time  # noqa: E402,F401
