"""Reading the console: what one boot produced, from the lines QEMU printed.

Shape after the kernel's tools/testing/kunit/kunit_parser.py.  The guest side
writes three things on the serial console:
  - /init's markers "<<<PPF-START|EXIT nonce=N [rc=RC] uptime=U>>>" (eval/vm/init);
  - a guest test's checks, in KTAP closed by a totals line (tests/kernel/guest/lib.sh);
  - the evaluation's results, a base64 tar between "<<<PPF-EVAL-RESULTS>>>"
    and "<<<PPF-EVAL-RESULTS-END>>>" (eval/guest/run-experiment.sh).
The kernel's own lines are scanned for splats.
"""

from __future__ import annotations

import base64
import dataclasses
import io
import re
import tarfile
import time
from pathlib import Path
from typing import List, NamedTuple, Optional, Tuple

EXIT_SPLAT = 100
EXIT_TIMEOUT = 101
EXIT_NO_MARKER = 102
EXIT_HARNESS = 103

# Kernel messages carry a "[    1.234567] " timestamp (CONFIG_PRINTK_TIME);
# matching only after one keeps the guest command's own output from counting.
_TS = r"\[\s*\d+\.\d{6}\]\s"
SPLAT_PATTERNS: List[Tuple[str, "re.Pattern[str]"]] = [
    (name, re.compile(_TS + rx)) for name, rx in [
        ("panic", r"Kernel panic - not syncing"),
        ("bug", r"BUG: "),
        ("bug", r"kernel BUG at "),
        ("oops", r"Oops: "),
        ("oops", r"general protection fault"),
        ("warning", r"WARNING: "),
        ("warning", r"------------\[ cut here \]------------"),
        ("ubsan", r"UBSAN: "),
        ("list-corruption", r"list_(add|del) corruption"),
        ("hung-task", r"INFO: task .* blocked for more than"),
        # Debian's kernels prefix the watchdog's reports with "watchdog: "
        ("soft-lockup", r"(?:\S+: )?BUG: soft lockup"),
        ("hard-lockup", r"(?:\S+ )?(?:\S+: )?Watchdog detected hard LOCKUP"),
        ("rcu-stall", r"rcu: INFO: .*stall"),
        ("kmemleak", r"kmemleak: \d+ new suspected memory leaks"),
        ("init-killed", r"Attempted to kill init"),
    ]
]
MARKER_RE = re.compile(r"<<<PPF-(START|EXIT) nonce=(\S+)(?: rc=(-?\d+))? uptime=([\d.]+)>>>")
# A guest test's KTAP totals line (kselftest's; tests/kernel/guest/lib.sh).
TOTALS_RE = re.compile(r"^# Totals: pass:(\d+) fail:(\d+) xfail:\d+ xpass:\d+ skip:(\d+) "
                       r"error:\d+\s*$", re.M)
RESULTS_RE = re.compile(r"<<<PPF-EVAL-RESULTS>>>\n(.*?)<<<PPF-EVAL-RESULTS-END>>>", re.S)
BASE64_LINE_RE = re.compile(r"[A-Za-z0-9+/=]+")


@dataclasses.dataclass
class Result:
    """What one boot produced."""
    status: str = "no-marker"          # ok | failed | splat | timeout | no-marker | error
    exit_code: int = EXIT_NO_MARKER
    guest_rc: Optional[int] = None
    splats: List[str] = dataclasses.field(default_factory=list)
    host_boot_s: Optional[float] = None     # host seconds from QEMU start to command start
    host_total_s: Optional[float] = None
    guest_start_uptime_s: Optional[float] = None  # guest /proc/uptime at command start
    guest_end_uptime_s: Optional[float] = None
    log: str = ""


def scan_line(line: str, nonce: str, res: Result, t0: float) -> None:
    """Note a splat or a marker of this boot (nonce) in res."""
    for name, rx in SPLAT_PATTERNS:
        if rx.search(line):
            res.splats.append(f"{name}: {line.strip()}")
            break
    m = MARKER_RE.search(line)
    if not m or m.group(2) != nonce:
        return
    if m.group(1) == "START":
        res.host_boot_s = time.monotonic() - t0
        res.guest_start_uptime_s = float(m.group(4))
    else:
        res.guest_rc = int(m.group(3))
        res.guest_end_uptime_s = float(m.group(4))


def classify(res: Result, timed_out: bool, qemu_rc: Optional[int]) -> None:
    """Set res.status and res.exit_code (run.py's exit status) from what was seen."""
    if res.splats:
        res.status, res.exit_code = "splat", EXIT_SPLAT
    elif res.guest_rc is not None:
        res.status = "ok" if res.guest_rc == 0 else "failed"
        res.exit_code = res.guest_rc if 0 <= res.guest_rc <= 99 else 99
    elif timed_out:
        res.status, res.exit_code = "timeout", EXIT_TIMEOUT
    else:
        res.status, res.exit_code = "no-marker", EXIT_NO_MARKER
        res.splats.append(f"QEMU exited (rc={qemu_rc}) before the command finished")


class Checks(NamedTuple):
    """A guest test's KTAP totals: checks passed, failed (a failed premise
    and a broken plan included) and skipped."""
    passed: int
    failed: int
    skipped: int


def count_checks(log_text: str) -> Checks:
    """The last KTAP totals line of the log; all zero if there is none."""
    m = TOTALS_RE.findall(log_text)
    if not m:
        return Checks(0, 0, 0)
    return Checks(int(m[-1][0]), int(m[-1][1]), int(m[-1][2]))


def boot_checks(res: Result, checks: Checks) -> Tuple[Checks, Optional[str]]:
    """What one guest test's boot counts, and why it counts a failure of its
    own (None if it does not).  A script that exits non-zero because of the
    failures its totals count adds nothing: each failed check is one
    failure.  A boot that did not end that way (a splat, a timeout, QEMU
    gone, a non-zero exit with no failure counted) is one failure more, and
    a boot that ended well but printed no totals checked nothing: one
    failure."""
    if res.status == "failed" and checks.failed:
        return checks, None
    if res.exit_code != 0:
        return (checks._replace(failed=checks.failed + 1),
                f"boot failed ({res.status}, run.py exit {res.exit_code})")
    if checks == (0, 0, 0):
        return checks._replace(failed=1), 'no KTAP totals line ("# Totals: pass:N fail:N ...")'
    return checks, None


def extract(log_text: str, dest: Path) -> bool:
    """Unpack the evaluation's results tar from the console into dest."""
    m = RESULTS_RE.search(log_text)
    if not m:
        return False
    data = base64.b64decode("".join(line.strip() for line in m.group(1).splitlines()
                                    if BASE64_LINE_RE.fullmatch(line.strip())))
    with tarfile.open(fileobj=io.BytesIO(data)) as tf:
        # filter: Python 3.11.4; Debian 12's mypy 1.0 has the older stub
        tf.extractall(dest, filter="data")  # type: ignore[call-arg]
    return True
