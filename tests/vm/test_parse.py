"""eval/vm/parse.py on recorded consoles (tests/vm/test_data/, like kunit's).

kernel-*.log are the console logs of two kernel tests (tests/kernel/run_tests.py
--only predict / --only sysctl on the base test kernel), eval-selftest-none.log
one VM of make test's short evaluation, as run.py wrote them.
"""

from __future__ import annotations

import base64
import io
import sys
import tarfile
import tempfile
import unittest
from pathlib import Path

sys.dont_write_bytecode = True
from eval.vm import parse  # noqa: E402
from eval.vm.config import DEFAULT_NONCE  # noqa: E402

DATA = Path(__file__).resolve().parent / "test_data"


def scan_file(name: str) -> parse.Result:
    res = parse.Result()
    for line in (DATA / name).read_text().splitlines(keepends=True):
        parse.scan_line(line, DEFAULT_NONCE, res, 0.0)
    return res


class RecordedConsoleTest(unittest.TestCase):
    def test_predict_markers(self) -> None:
        res = scan_file("kernel-predict.log")
        self.assertEqual(res.splats, [])
        self.assertEqual(res.guest_rc, 0)
        self.assertEqual((res.guest_start_uptime_s, res.guest_end_uptime_s), (1.26, 46.55))
        parse.classify(res, False, 0)
        self.assertEqual((res.status, res.exit_code), ("ok", 0))

    def test_evaluation_console(self) -> None:
        res = scan_file("eval-selftest-none.log")
        parse.classify(res, False, 0)
        self.assertEqual((res.status, res.guest_rc, res.splats), ("ok", 0, []))
        text = (DATA / "eval-selftest-none.log").read_text()
        self.assertEqual(parse.count_checks(text), (0, 0, 0))

    def test_checks(self) -> None:
        self.assertEqual(parse.count_checks((DATA / "kernel-predict.log").read_text()),
                         (56, 0, 0))
        self.assertEqual(parse.count_checks((DATA / "kernel-sysctl.log").read_text()),
                         (179, 0, 0))

    def test_skipped_and_failed_checks(self) -> None:
        self.assertEqual(parse.count_checks(
            "KTAP version 1\n1..3\nok 1 a\nok 2 b # SKIP why\nnot ok 3 c\n"
            "# premise failed: d\n# Totals: pass:1 fail:2 xfail:0 xpass:0 skip:1 error:0\n"),
            (1, 2, 1))

    def test_no_checks(self) -> None:
        self.assertEqual(parse.count_checks("KTAP version 1\n1..1\nok 1 x\nnot a count\n"),
                         (0, 0, 0))
        self.assertEqual(parse.count_checks("Bail out! mount\n"), (0, 0, 0))
        # The last totals line counts: a guest command may run a test twice.
        self.assertEqual(parse.count_checks(
            "# Totals: pass:1 fail:2 xfail:0 xpass:0 skip:0 error:0\n"
            "# Totals: pass:3 fail:0 xfail:0 xpass:0 skip:0 error:0\n"), (3, 0, 0))

    def test_a_failed_check_counts_once(self) -> None:
        # The script's non-zero exit is its failed check, not a failure more.
        failed = parse.Result(status="failed", exit_code=1, guest_rc=1)
        self.assertEqual(parse.boot_checks(failed, parse.Checks(55, 1, 0)),
                         ((55, 1, 0), None))

    def test_a_failed_boot_counts_one_more(self) -> None:
        for status, code in (("splat", parse.EXIT_SPLAT), ("timeout", parse.EXIT_TIMEOUT),
                             ("no-marker", parse.EXIT_NO_MARKER)):
            res = parse.Result(status=status, exit_code=code)
            checks, why = parse.boot_checks(res, parse.Checks(56, 0, 0))
            self.assertEqual(checks, (56, 1, 0))
            self.assertIn(status, why or "")
        # A script that failed with no failure in its totals.
        res = parse.Result(status="failed", exit_code=1, guest_rc=1)
        self.assertEqual(parse.boot_checks(res, parse.Checks(56, 0, 0))[0], (56, 1, 0))
        # A splat and a failed check: both count.
        res = parse.Result(status="splat", exit_code=parse.EXIT_SPLAT, guest_rc=1)
        self.assertEqual(parse.boot_checks(res, parse.Checks(55, 1, 0))[0], (55, 2, 0))

    def test_a_boot_that_checked_nothing_fails(self) -> None:
        ok = parse.Result(status="ok", exit_code=0, guest_rc=0)
        checks, why = parse.boot_checks(ok, parse.Checks(0, 0, 0))
        self.assertEqual(checks, (0, 1, 0))
        self.assertIn("no KTAP totals", why or "")
        self.assertEqual(parse.boot_checks(ok, parse.Checks(56, 0, 0)), ((56, 0, 0), None))

    def test_a_splat_in_a_recorded_boot(self) -> None:
        lines = (DATA / "kernel-sysctl.log").read_text().splitlines(keepends=True)
        lines.insert(100, "[   12.345678] BUG: KASAN: slab-use-after-free in ppf_x+0x1/0x2\n")
        res = parse.Result()
        for line in lines:
            parse.scan_line(line, DEFAULT_NONCE, res, 0.0)
        parse.classify(res, False, 0)
        self.assertEqual((res.status, res.exit_code), ("splat", parse.EXIT_SPLAT))
        self.assertEqual(len(res.splats), 1)

    def test_watchdog_reports(self) -> None:
        """The detectors' reports as each kernel words them are splats."""
        for line in [
            "[   31.000001] watchdog: BUG: soft lockup - CPU#0 stuck for 22s! [ppf-worker:77]",
            "[   31.000001] BUG: soft lockup - CPU#1 stuck for 23s! [cat:90]",
            "[   31.000001] NMI watchdog: Watchdog detected hard LOCKUP on cpu 1",
            "[  123.000001] INFO: task cat:91 blocked for more than 120 seconds.",
        ]:
            res = parse.Result()
            parse.scan_line(line + "\n", DEFAULT_NONCE, res, 0.0)
            self.assertEqual(len(res.splats), 1, line)
        res = parse.Result()
        parse.scan_line("ok 1 the guest's own text: BUG: soft lockup\n", DEFAULT_NONCE, res, 0.0)
        self.assertEqual(res.splats, [])

    def test_cut_off_boot(self) -> None:
        text = (DATA / "kernel-predict.log").read_text()
        res = parse.Result()
        for line in text[:text.index("<<<PPF-EXIT")].splitlines(keepends=True):
            parse.scan_line(line, DEFAULT_NONCE, res, 0.0)
        parse.classify(res, False, 0)
        self.assertEqual((res.status, res.exit_code), ("no-marker", parse.EXIT_NO_MARKER))
        parse.classify(res, True, None)
        self.assertEqual(res.exit_code, parse.EXIT_SPLAT)  # the no-marker note counts


class ExtractTest(unittest.TestCase):
    @staticmethod
    def console(files: dict[str, bytes]) -> str:
        """What run-experiment.sh prints: tar czf - . | base64, between markers,
        inside kernel and shell output."""
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w:gz") as tf:
            for name, data in files.items():
                info = tarfile.TarInfo(f"./{name}")
                info.size = len(data)
                tf.addfile(info, io.BytesIO(data))
        b64 = base64.encodebytes(buf.getvalue()).decode()
        return ("[    5.000000] ext4: unmounting\nppf_worker 1\n<<<PPF-EVAL-RESULTS>>>\n"
                + b64.replace("\n", "\r\n") + "<<<PPF-EVAL-RESULTS-END>>>\n"
                "<<<PPF-EXIT nonce=x rc=0 uptime=9.00>>>\n")

    def test_extract(self) -> None:
        text = self.console({"cold-1.json": b'{"elapsed_ns": 1}\n', "sub/x.txt": b"x"})
        with tempfile.TemporaryDirectory() as tmp:
            self.assertTrue(parse.extract(text, Path(tmp)))
            self.assertEqual((Path(tmp) / "cold-1.json").read_bytes(), b'{"elapsed_ns": 1}\n')
            self.assertEqual((Path(tmp) / "sub/x.txt").read_bytes(), b"x")

    def test_no_results(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            self.assertFalse(parse.extract((DATA / "kernel-predict.log").read_text(),
                                           Path(tmp)))


if __name__ == "__main__":
    unittest.main()
