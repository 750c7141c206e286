"""Where the guest's instructions go: a QEMU plugin (eval/profile/insnprof.c)
counts the instructions of every translated block, snapshotted each time the
guest reads /proc/stat (show_stat(), which only run-experiment.sh's counters
around each measured run call); `profile` gives, per kernel function, what a
configuration ran in its measured run against another's.  Under -icount an
instruction is the guest's unit of time, so the difference is exactly the
difference in elapsed time that the CPU made (waits for the device aside).

    python3 -m eval.harness run EXP --only hot,epcm-hot --insn-profile
    python3 -m eval.harness profile EXP hot epcm-hot
"""
import bisect
import subprocess
from collections import Counter
from pathlib import Path
from typing import Dict, List, Tuple

TOP = Path(__file__).resolve().parents[2]
SOURCE = TOP / "eval" / "profile" / "insnprof.c"
TRIGGER = "show_stat"
SNAPSHOT = "insnprof"  # the plugin writes CONFIG_DIR/insnprof.N


def plugin(cache: Path) -> Path:
    """The plugin, built from its source into @cache when it changed."""
    so = cache / "insnprof.so"
    if not so.exists() or so.stat().st_mtime < SOURCE.stat().st_mtime:
        cache.mkdir(parents=True, exist_ok=True)
        subprocess.run(["gcc", "-O2", "-shared", "-fPIC", "-fvisibility=hidden", "-Wall",
                        "-o", str(so), str(SOURCE)], check=True)
    return so


def kernel_symbols(kdir: Path) -> Tuple[List[int], List[str], int]:
    """System.map's text symbols (sorted addresses, names) and _etext."""
    syms: List[Tuple[int, str]] = []
    etext = 0
    for line in (kdir / "System.map").read_text().splitlines():
        f = line.split()
        if len(f) < 3:
            continue
        if f[2] == "_etext":
            etext = int(f[0], 16)
        if f[1] in ("t", "T", "w", "W"):
            syms.append((int(f[0], 16), f[2]))
    syms.sort()
    return [a for a, _ in syms], [n for _, n in syms], etext


def qemu_args(kdir: Path, cache: Path) -> List[str]:
    """-plugin with the trigger's address; {out} is the configuration's directory."""
    addrs, names, _ = kernel_symbols(kdir)
    at = addrs[names.index(TRIGGER)]
    return ["-plugin", f"{plugin(cache)},trigger={at:#x},out={{out}}/{SNAPSHOT}"]


def snapshot(p: Path) -> Dict[str, int]:
    out: Dict[str, int] = {}
    for line in p.read_text().splitlines():
        k, v = line.split()
        out[k] = int(v)
    return out


def module_symbols(d: Path) -> Tuple[List[int], List[str]]:
    """ppf's module's functions where the boot in @d loaded them (its
    module-kallsyms.txt, /proc/kallsyms' lines of the module); none if absent."""
    p = d / "module-kallsyms.txt"
    syms: List[Tuple[int, str]] = []
    if p.exists():
        for line in p.read_text().splitlines():
            f = line.split()
            if len(f) >= 3 and f[1] in ("t", "T") and int(f[0], 16):
                syms.append((int(f[0], 16), "ppf:" + f[2]))
    syms.sort()
    return [a for a, _ in syms], [n for _, n in syms]


def by_function(before: Dict[str, int], after: Dict[str, int], kdir: Path,
                d: Path) -> "Counter[str]":
    """Instructions between two snapshots per kernel function; [user] for
    user space; past the kernel's text, ppf's functions as "ppf:NAME" (when
    the boot in @d recorded where they were) and [modules] for the rest."""
    addrs, names, etext = kernel_symbols(kdir)
    maddrs, mnames = module_symbols(d)
    c: "Counter[str]" = Counter()
    for k, v in after.items():
        dv = v - before.get(k, 0)
        if not dv:
            continue
        if k == "user":
            c["[user]"] += dv
            continue
        va = int(k, 16)
        if va >= etext:
            j = bisect.bisect_right(maddrs, va) - 1
            c[mnames[j] if j >= 0 and va - maddrs[j] < 0x10000 else "[modules]"] += dv
            continue
        i = bisect.bisect_right(addrs, va) - 1
        c[names[i] if i >= 0 else "?"] += dv
    return c


def measured_window(d: Path) -> Tuple[Path, Path]:
    """The snapshots around the first measured run: the last two the boot
    wrote (the counters before and after it; a boot of one measured run)."""
    snaps = sorted(d.glob(f"{SNAPSHOT}.*"), key=lambda p: int(p.suffix[1:]))
    if len(snaps) < 2:
        raise SystemExit(f"profile: {d} has {len(snaps)} snapshots; run the experiment "
                         "with --insn-profile and one measured run")
    return snaps[-2], snaps[-1]


def compare(root: Path, a: str, b: str, kdir: Path, top: int = 40) -> str:
    """The table: per function, configuration @b's instructions in its
    measured run minus @a's."""
    def run_of(config: str) -> "Counter[str]":
        before, after = measured_window(root / config)
        return by_function(snapshot(before), snapshot(after), kdir, root / config)
    ca, cb = run_of(a), run_of(b)
    ta, tb = sum(ca.values()), sum(cb.values())
    ppf = sum(v for k, v in cb.items() if k.startswith("ppf:")) - \
        sum(v for k, v in ca.items() if k.startswith("ppf:"))
    out = [f"instructions in the measured run: {a} {ta:,}, {b} {tb:,}, "
           f"difference {tb - ta:+,} ({(tb - ta) / 1e6:+.1f} ms at 1 ns an instruction), "
           f"of which in ppf's module {ppf:+,}",
           "", f"| function | {b} - {a} | {a} | {b} |", "|---|---|---|---|"]
    keys = sorted(set(ca) | set(cb), key=lambda k: -abs(cb[k] - ca[k]))
    for k in keys[:top]:
        out.append(f"| {k} | {cb[k] - ca[k]:+,} | {ca[k]:,} | {cb[k]:,} |")
    return "\n".join(out)
