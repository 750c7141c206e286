"""python3 -m eval.harness {run,report,spread,calibrate,demo,selftest,workloads,realcheck} ...

run --trace FILE --profile P --models none,epcm --hot: any recorded trace
(adhoc.py), without an experiment file."""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any, List, NoReturn, Optional, Tuple

from . import adhoc
from .profiles import PROFILES


class Parser(argparse.ArgumentParser):
    """A bad command line in one line (not usage and error), exit 2."""

    def error(self, message: str) -> NoReturn:
        print(f"{self.prog}: {message} (see {self.prog} --help)", file=sys.stderr)
        sys.exit(2)


def jobs(s: str) -> int:
    """-j: VMs at a time, 1..64."""
    try:
        n = int(s)
    except ValueError:
        n = 0
    if not 1 <= n <= 64:
        raise argparse.ArgumentTypeError(f"{s}: not a number of VMs in 1..64")
    return n


def check_args(ap: argparse.ArgumentParser, a: argparse.Namespace) -> None:
    """What calibrate and realcheck name, checked before anything is installed."""
    if a.cmd == "calibrate":
        unknown = [n for n in a.profiles if n not in PROFILES]
        if unknown:
            ap.error(f"calibrate: unknown profile {', '.join(unknown)} "
                     f"(profiles: {', '.join(PROFILES)})")
        if not 0 <= a.icount_shift <= 10:
            ap.error(f"calibrate: --icount-shift {a.icount_shift}: not in 0..10")
    if a.cmd == "realcheck":
        from .realcheck import REAL_TREES
        if a.workload not in REAL_TREES:
            ap.error(f"realcheck: no real-tree recipe for workload {a.workload!r} "
                     f"(have: {', '.join(REAL_TREES)})")
        if a.profile not in PROFILES:
            ap.error(f"realcheck: unknown profile {a.profile} ({', '.join(PROFILES)})")


def check_run(ap: argparse.ArgumentParser, a: argparse.Namespace) -> None:
    """run: experiment names, or --trace with --profile."""
    if not a.experiments and not a.trace:
        ap.error("run: name experiments, or give --trace FILE --profile P")
    if a.trace and not a.profile:
        ap.error("run --trace: --profile is required (" + ", ".join(PROFILES) + ")")
    if a.profile and a.profile not in PROFILES:
        ap.error(f"run: unknown profile {a.profile} (" + ", ".join(PROFILES) + ")")


def check_only(ap: argparse.ArgumentParser, cmd: str, exps: List[Any],
               only: Optional[List[str]]) -> Optional[List[str]]:
    """--only's names (repeated or comma-separated), each a configuration of
    one of exps: a name none has would build everything to boot nothing."""
    if not only:
        return None
    names = [n for arg in only for n in arg.split(",") if n]
    have = {c.name for e in exps for c in e.configs}
    unknown = sorted(set(names) - have)
    if unknown:
        ap.error(f"{cmd} --only: no configuration {', '.join(unknown)} in "
                 f"{', '.join(e.name for e in exps)} (have: {', '.join(sorted(have))})")
    return names


def phases(s: str) -> int:
    """spread --phases: 2..len(PHASES_US)."""
    from .spread import PHASES_US
    try:
        n = int(s)
    except ValueError:
        n = 0
    if not 2 <= n <= len(PHASES_US):
        raise argparse.ArgumentTypeError(f"{s}: not a number of phases in 2..{len(PHASES_US)}")
    return n


def show_workloads(names: List[str]) -> int:
    """One JSON line per workload: trace statistics and the VM's derived needs
    (for a VM that replays the trace 5 times: 3 warm-ups, 2 measured runs)."""
    from pathlib import Path

    from .workloads import WORKLOADS, from_trace, workload
    for n in names or list(WORKLOADS):
        w = from_trace(Path(n)) if n.endswith(".gz") or "/" in n else workload(n)
        print(json.dumps({"name": w.name, **w.derived(5)}))
    return 0


def parser() -> argparse.ArgumentParser:
    ap = Parser(prog="python3 -m eval.harness",
                description="ppf's deterministic evaluation in a test VM",
                epilog="exit status: 0 done, 1 a failure (a run, a build, a missing file), "
                       "2 a bad command line")
    sub = ap.add_subparsers(dest="cmd", required=True, parser_class=Parser)
    r = sub.add_parser("run", help="run experiments (eval/experiments/NAME.json), "
                                   "or any trace (--trace)")
    r.add_argument("experiments", nargs="*")
    r.add_argument("--only", action="append",
                   help="only these configurations (repeated, or NAME,NAME)")
    r.add_argument("-j", "--jobs", type=jobs, default=2, help="VMs at a time (default 2)")
    r.add_argument("--wall-clock", action="store_true",
                   help="no -icount: wall-clock timing (real hardware, KVM)")
    r.add_argument("--report", action="store_true", help="report afterwards")
    r.add_argument("--insn-profile", action="store_true",
                   help="count the guest's instructions per kernel function around each "
                        "measured run (insnprof.py; then: profile EXP CONFIG CONFIG)")
    adhoc.add_options(r)
    p = sub.add_parser("report", help="tables, JSON and figures from collected results")
    p.add_argument("experiments", nargs="*",
                   help="default: none, only eval/results/summary.json again from the "
                        "experiments' summaries")
    p.add_argument("--no-figures", action="store_true")
    p.add_argument("--commit", action="store_true",
                   help="a run --trace experiment's summary and figures into eval/results and "
                        "docs/figures too (by default they stay beside its results)")
    m = sub.add_parser("matrix", help="every workload on every profile, from "
                                      "eval/results/summary.json (matrix.py)")
    m.add_argument("--write", action="store_true",
                   help="and put it into docs/results.md between its markers")
    c = sub.add_parser("calibrate", help="check disk profiles with fio in the guest")
    c.add_argument("profiles", nargs="*", help="default: every profile")
    c.add_argument("--icount-shift", type=int, default=0,
                   help="guest clock: 2^N ns per instruction (default 0, the experiments')")
    d = sub.add_parser("demo", help="GNU ld cold: no prefetching vs EPCM")
    d.add_argument("-j", "--jobs", type=jobs, default=2)
    t = sub.add_parser("selftest", help="short deterministic evaluation (make test)")
    t.add_argument("-j", "--jobs", type=jobs, default=2, help="VMs at a time (default 2)")
    w = sub.add_parser("workloads", help="the workloads found in eval/workloads (or trace "
                                         "files) and what their VMs get, derived from the trace")
    w.add_argument("names", nargs="*", help="workload names or trace files (default: all)")
    f = sub.add_parser("profile", help="per kernel function, the instructions of one "
                                       "configuration's measured run against another's "
                                       "(run --insn-profile first)")
    f.add_argument("experiment")
    f.add_argument("base", help="the configuration to compare against (e.g. hot)")
    f.add_argument("config", help="the configuration compared (e.g. epcm-hot)")
    f.add_argument("--top", type=int, default=40, help="functions shown (default 40)")
    k = sub.add_parser("realcheck", help="the workload's real program against its replay, "
                                         "cold and hot, in one VM (realcheck.py)")
    k.add_argument("workload", help="a workload with a real-tree recipe (glimpse; "
                                   "pystart, pbuild-j2, pbuild-j4: the recording "
                                   "their experiment measures; andrew)")
    k.add_argument("--profile", default="hdd-2001", help="disk profile (default hdd-2001)")
    k.add_argument("--spin-rate", help="the replay's spin rate (iterations/us; default "
                                       "the experiments': think scaled to compute time)")
    k.add_argument("--experiment", help="the experiment whose none and hot replays the "
                                        "table adds (default WORKLOAD-PROFILE, e.g. "
                                        "glimpse-hdd2001)")
    k.add_argument("--no-boot", action="store_true",
                   help="the table again from the last boot's results")
    k.add_argument("--fault-around-bytes", type=int, metavar="N",
                   help="the guest's fault_around_bytes for every run (4096: every page "
                        "a mapping touches faults, and the traced real run lists it)")
    k.add_argument("--save-faults", action="store_true",
                   help="write TRACE.faults.gz beside the trace from the boot's traced "
                        "real cold run (what the experiments' replays of it then use)")
    sp = sub.add_parser("spread", help="how far each figure of experiments moves when "
                                       "only the run's phase does (spread.py)")
    sp.add_argument("experiments", nargs="+")
    sp.add_argument("--only", action="append",
                    help="configurations to run (repeat or comma-separate; with none "
                         "and hot for the share of the gap)")
    sp.add_argument("--phases", type=phases, default=4,
                    help="phases, the first N of 0, 1009, 2003, 3001 us (default 4)")
    sp.add_argument("-j", "--jobs", type=jobs, default=2, help="VMs at a time (default 2)")
    sp.add_argument("--no-run", action="store_true",
                    help="only tabulate what the phases' runs left in the results")
    return ap


def main(argv: List[str]) -> int:
    ap = parser()
    a = ap.parse_args(argv)
    if a.cmd == "run":
        check_run(ap, a)
    check_args(ap, a)
    if a.cmd == "spread":
        from . import runner
        exps = [runner.load_experiment(e) for e in a.experiments]
        a.only = check_only(ap, "spread", exps, a.only)
        if a.no_run:
            from . import spread
            return spread.main(None, exps, a.phases, a.only, measure=False)

    if a.cmd == "workloads":
        return show_workloads(a.names)
    if a.cmd == "matrix":
        from . import matrix
        return matrix.main(a.write)
    from . import build
    if a.cmd == "selftest":
        from . import selftest
        return selftest.main(a.jobs)
    if a.cmd == "report":
        from . import report
        for e in a.experiments:
            report.report(e, figures=not a.no_figures, commit=a.commit)
        if not a.experiments:
            print(f"every configuration: {report.write_summary()}")
        return 0
    if a.cmd == "demo":
        from . import demo
        return demo.main(a.jobs)
    if a.cmd == "run":  # experiments and traces read before anything is installed
        from . import runner
        exps = [runner.load_experiment(e) for e in a.experiments]
        if a.trace:
            exps.append(runner.from_spec(adhoc.spec(a), adhoc.name(a), f"--trace {a.trace}"))
        a.only = check_only(ap, "run", exps, a.only)
    build.ensure_packages(["fio"] if a.cmd == "calibrate" else
                          ["glimpse"] if a.cmd == "realcheck" else [])
    if a.cmd == "realcheck":
        from . import realcheck
        return realcheck.main(a.workload, a.profile, a.spin_rate, a.experiment,
                              a.no_boot, a.save_faults, a.fault_around_bytes)
    from . import runner
    if a.cmd == "calibrate":
        from . import calibrate
        b = build.Built(fio=True)
        results = [calibrate.calibrate(b, PROFILES[n], a.icount_shift)
                   for n in a.profiles or PROFILES]
        for res in results:
            print(json.dumps(res))
        print(calibrate.table(results))
        return 0
    b = build.Built()
    if a.cmd == "profile":
        from . import insnprof
        exp = runner.load_experiment(a.experiment)
        print(insnprof.compare(runner.results_dir(exp), a.base, a.config, b.kdir, a.top))
        return 0
    if a.cmd == "spread":
        from . import spread
        return spread.main(runner.Runner(b, jobs=a.jobs), exps, a.phases, a.only)
    extra: Tuple[str, ...] = ()
    if a.insn_profile:
        from . import insnprof
        extra = tuple(insnprof.qemu_args(b.kdir, build.CACHE / "profile"))
    run = runner.Runner(b, wall_clock=a.wall_clock, jobs=a.jobs, qemu_args=extra)
    for exp in exps:
        run.run(exp, a.only)
        if a.report:
            from . import report
            report.report(exp.name)
        else:
            print(f"report: python3 -m eval.harness report {exp.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
