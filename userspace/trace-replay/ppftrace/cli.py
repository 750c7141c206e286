"""What ppf-trace does as every ppf tool does: its version from the tree's
VERSION file, one line and exit 2 for a bad command line, output paths
checked writable before the work, a broken pipe ending quietly (exit 0),
no traceback for an interrupt."""
import argparse
import errno
import os
import sys
from typing import Callable, NoReturn

EXIT_FAIL, EXIT_USAGE = 1, 2


def version() -> str:
    """The tree's VERSION (userspace/trace-replay/ppftrace/../../../VERSION)."""
    here = os.path.dirname(os.path.realpath(__file__))
    for p in (os.path.join(here, "..", "..", "..", "VERSION"), os.path.join(here, "VERSION")):
        try:
            with open(p) as f:
                return f.read().strip()
        except OSError:
            continue
    return "unknown"


def usage_error(line: str) -> NoReturn:
    """One line on stderr, exit 2."""
    print(line, file=sys.stderr)
    sys.exit(EXIT_USAGE)


def fail(line: str) -> NoReturn:
    """One line on stderr, exit 1."""
    print(line, file=sys.stderr)
    sys.exit(EXIT_FAIL)


def int_in(opt: str, lo: int, hi: int) -> Callable[[str], int]:
    """An argparse type: an integer in lo..hi, else an error naming opt."""
    def parse(s: str) -> int:
        try:
            v = int(s)
        except ValueError:
            v = lo - 1
        if not lo <= v <= hi:
            raise argparse.ArgumentTypeError("%s: not a number in %d..%d" % (s, lo, hi))
        return v
    parse.__name__ = opt
    return parse


def unwritable(path: str) -> str:
    """Why path cannot be written (created, or replaced), or "" if it can."""
    if not path:
        return os.strerror(errno.ENOENT)
    if os.path.isdir(path):
        return os.strerror(errno.EISDIR)
    if os.path.exists(path):
        return "" if os.access(path, os.W_OK) else os.strerror(errno.EACCES)
    d = os.path.dirname(path) or "."
    if not os.path.exists(d):
        return "no directory %s" % d
    if not os.path.isdir(d):
        return "%s: %s" % (d, os.strerror(errno.ENOTDIR))
    return "" if os.access(d, os.W_OK | os.X_OK) else os.strerror(errno.EACCES)


def run(main: Callable[[], int]) -> int:
    """main() with a closed stdout (| head) ending quietly (0) and ^C as 130."""
    try:
        rc = main()
        sys.stdout.flush()
        return rc
    except BrokenPipeError:
        # Nothing more can be written; keep the interpreter's final flush quiet.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        print("", file=sys.stderr)
        return 130
