"""The recorder's trace format for eval/: ppftrace.fmt, imported in one place.

The trace format's Python writer and strict reader live with the recorder,
in userspace/trace-replay/ppftrace/ (docs/trace-format.md), beside its CLI
ppf-trace.  That directory's name has a hyphen, so no import path reaches it
from here: this module puts it on sys.path once, and eval/ imports the
format from here instead of parsing or writing trace lines by hand.
"""

from __future__ import annotations

import sys
from pathlib import Path

_RECORDER = Path(__file__).resolve().parents[1] / "userspace" / "trace-replay"
if str(_RECORDER) not in sys.path:
    sys.path.insert(0, str(_RECORDER))

from ppftrace.fmt import (ORIGINS, VERSION, TraceError, load_trace,  # noqa: E402,F401
                          parse_trace, write_trace)
from ppftrace.think import think_and_compute, think_time  # noqa: E402,F401
