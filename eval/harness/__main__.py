"""python3 -m eval.harness {run,report,calibrate,demo,selftest} ..."""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import List


def main(argv: List[str]) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m eval.harness",
                                 description="ppf's deterministic evaluation in a test VM")
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="run experiments (eval/experiments/NAME.json)")
    r.add_argument("experiments", nargs="+")
    r.add_argument("--only", action="append", help="only these configurations")
    r.add_argument("-j", "--jobs", type=int, default=2, help="VMs at a time (default 2)")
    r.add_argument("--wall-clock", action="store_true",
                   help="no -icount: wall-clock timing (real hardware, KVM)")
    r.add_argument("--report", action="store_true", help="report afterwards")
    p = sub.add_parser("report", help="tables, JSON and figures from collected results")
    p.add_argument("experiments", nargs="+")
    p.add_argument("--no-figures", action="store_true")
    c = sub.add_parser("calibrate", help="check disk profiles with fio in the guest")
    c.add_argument("profiles", nargs="*", help="default: every profile")
    c.add_argument("--icount-shift", type=int, default=2,
                   help="guest clock: 2^N ns per instruction (default 2, the experiments')")
    d = sub.add_parser("demo", help="GNU ld cold: no prefetching vs EPCM")
    d.add_argument("-j", "--jobs", type=int, default=2)
    sub.add_parser("selftest", help="short deterministic evaluation (make test)")
    a = ap.parse_args(argv)

    from . import build
    if a.cmd == "selftest":
        from . import selftest
        return selftest.main()
    if a.cmd == "report":
        from . import report
        for e in a.experiments:
            report.report(e, figures=not a.no_figures)
        return 0
    if a.cmd == "demo":
        from . import demo
        return demo.main(a.jobs)
    build.ensure_packages(["fio"] if a.cmd == "calibrate" else [])
    from . import runner
    if a.cmd == "calibrate":
        from . import calibrate
        from .profiles import PROFILES
        unknown = [n for n in a.profiles if n not in PROFILES]
        if unknown:
            raise SystemExit(f"harness: unknown profile {', '.join(unknown)} "
                             f"(profiles: {', '.join(PROFILES)})")
        b = build.Built(fio=True)
        results = [calibrate.calibrate(b, PROFILES[n], a.icount_shift)
                   for n in a.profiles or PROFILES]
        for res in results:
            print(json.dumps(res))
        print(calibrate.table(results))
        return 0
    b = build.Built()
    run = runner.Runner(b, wall_clock=a.wall_clock, jobs=a.jobs)
    for e in a.experiments:
        exp = runner.load_experiment(e)
        run.run(exp, a.only)
        if a.report:
            from . import report
            report.report(exp.name)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
