"""Unit tests (no VM) of realcheck: the real image's pieces (the host's files
placed with their symlinks, ldd's list, the recipe's pins and digest), the
recipes' commands, and the reading of the guest's samples and traced pages."""

from __future__ import annotations

import collections
import dataclasses
import gzip
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

sys.dont_write_bytecode = True
from eval.harness import __main__ as cli  # noqa: E402
from eval.harness import realcheck  # noqa: E402
from eval.harness.profiles import PROFILES  # noqa: E402
from eval.harness.workloads import TOP  # noqa: E402

# Two samples as realcheck.sh writes them (from a boot on hdd-2001): the
# stat lines are /sys/block/simdisk0/stat before and after.
SAMPLE = """clk0=10011116568
cpu0=279
stat0=      13       34      370       71      474    57207   461448     1617        0
clk1=88018816488
cpu1=3303
stat1=   11487      692   162242    43741      801    57644   520408     9187        0
rc=0
"""


class TestRealImage(unittest.TestCase):
    def setUp(self) -> None:
        self.tmp = Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, self.tmp)

    def test_place_keeps_symlinks_on_the_way(self) -> None:
        host = self.tmp / "host"
        (host / "usr" / "lib").mkdir(parents=True)
        (host / "usr" / "lib" / "libx.so.1.2").write_bytes(b"ELF?")
        os.symlink("libx.so.1.2", host / "usr" / "lib" / "libx.so.1")
        os.symlink("usr/lib", host / "lib")
        root = self.tmp / "root"
        realcheck.place(f"{host}/lib/libx.so.1", root)
        inside = root / host.relative_to("/")
        self.assertEqual(os.readlink(inside / "lib"), "usr/lib")
        self.assertEqual(os.readlink(inside / "usr" / "lib" / "libx.so.1"), "libx.so.1.2")
        self.assertEqual((inside / "lib" / "libx.so.1").read_bytes(), b"ELF?")

    def test_place_refuses_a_directory_where_the_host_has_a_link(self) -> None:
        host = self.tmp / "host"
        (host / "usr" / "lib").mkdir(parents=True)
        (host / "usr" / "lib" / "f").write_text("x")
        os.symlink("usr/lib", host / "lib")
        root = self.tmp / "root"
        (root / host.relative_to("/") / "lib").mkdir(parents=True)
        with self.assertRaises(SystemExit):
            realcheck.place(f"{host}/lib/f", root)

    def test_needed_by_lists_libc_and_the_loader(self) -> None:
        libs = realcheck.needed_by("/bin/ls")
        self.assertTrue(any("libc.so" in p for p in libs), libs)
        self.assertTrue(any("ld-linux" in p for p in libs), libs)
        text = self.tmp / "script"
        text.write_text("#!/bin/sh\n")
        self.assertEqual(realcheck.needed_by(str(text)), [])

    def test_digest_is_record_sh_s(self) -> None:
        """The digest of record.sh's shell pipeline, on a small tree."""
        for rel, data in (("D/a.txt", b"a\n"), ("D/sub/b.rst", b"bb\n"), ("D/Z", b"")):
            (self.tmp / rel).parent.mkdir(parents=True, exist_ok=True)
            (self.tmp / rel).write_bytes(data)
        os.symlink("a.txt", self.tmp / "D" / "link")
        sh = subprocess.run(
            "find D -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum",
            shell=True, cwd=self.tmp, text=True, stdout=subprocess.PIPE, check=True)
        self.assertEqual(realcheck.tree_digest(self.tmp, "D"),
                         (3, 5, sh.stdout.split()[0]))

    def test_glimpse_pins(self) -> None:
        pins = realcheck.record_pins(TOP / "eval" / "workloads" / "glimpse" / "record.sh")
        self.assertEqual(pins["TREE_FILES"], "10126")
        self.assertEqual(pins["TARBALL"], "/usr/src/linux-source-6.12.tar.xz")
        self.assertEqual(len(pins["TREE_SHA256"]), 64)

    def test_host_files_places_the_recipe_s_own(self) -> None:
        host = self.tmp / "host"
        (host / "bin").mkdir(parents=True)
        (host / "bin" / "tool-12").write_text("#!/bin/sh\n")
        os.symlink("tool-12", host / "bin" / "tool")
        root = self.tmp / "root"
        info = realcheck.host_files([], root, "", also=[f"{host}/bin/tool"])
        self.assertIn(f"{host}/bin/tool", info["added"])
        inside = root / host.relative_to("/") / "bin"
        self.assertEqual(os.readlink(inside / "tool"), "tool-12")
        self.assertEqual((inside / "tool-12").read_text(), "#!/bin/sh\n")

    def test_tree_differs_names_each_file(self) -> None:
        F = collections.namedtuple("F", "size new path is_dir")
        files = [F(3, False, b"src/a.c", False), F(5, False, b"src/b.h", False),
                 F(0, False, b"src/d", True), F(0, True, b"obj/a.o", False),
                 F(9, False, b"/usr/include/x.h", False), F(1, False, b"src/gone.c", False),
                 F(2, False, b"other", False)]
        (self.tmp / "src").mkdir()
        (self.tmp / "src" / "a.c").write_text("abc")
        (self.tmp / "src" / "b.h").write_text("abcd")
        self.assertEqual(realcheck.tree_differs(self.tmp, files,
                                                lambda p: p.startswith(b"src/")),
                         ["src/b.h: 4 bytes, the trace's 5",
                          "src/gone.c: missing (the trace's is 1 bytes)"])

    def test_require_tree_names_what_differs_and_why(self) -> None:
        """A recipe's tree that is not its trace's is refused, with the files
        that differ (at most `most` of them) and the likely cause; one that
        is passes."""
        trace = realcheck.workload("andrew").trace
        want = {f.path.decode(): f.size for f in realcheck.tracefmt.load_trace(trace)["files"]
                if f.path.startswith(b"src/") and not f.new and not f.is_dir}
        self.assertGreater(len(want), 2)  # premise: more files than named below
        with self.assertRaises(SystemExit) as e:
            realcheck.require_tree(self.tmp, trace, "andrew",
                                   lambda p: p.startswith(b"src/"), "a cause", most=2)
        msg = str(e.exception)
        self.assertTrue(msg.startswith("realcheck: andrew's tree is not andrew.trace.gz's "
                                       "(a cause): "), msg)
        self.assertEqual(msg.count("missing"), 2)
        for path, size in want.items():
            (self.tmp / path).parent.mkdir(parents=True, exist_ok=True)
            (self.tmp / path).write_bytes(b"x" * size)
        realcheck.require_tree(self.tmp, trace, "andrew", lambda p: p.startswith(b"src/"))

    def test_no_recipe_is_a_clear_error(self) -> None:
        w = realcheck.workload("gitwork-2")
        with self.assertRaisesRegex(SystemExit, "no recipe for gitwork-2's real tree"):
            realcheck.real_image(w)


class TestRecipes(unittest.TestCase):
    def test_recipe_of_a_recording(self) -> None:
        self.assertEqual(realcheck.recipe("glimpse"), "glimpse")
        self.assertEqual(realcheck.recipe("pystart-3"), "pystart")
        self.assertEqual(realcheck.recipe("pbuild-j2-4"), "pbuild-j2")
        self.assertEqual(realcheck.recipe("pbuild-j4-3"), "pbuild-j4")
        self.assertEqual(realcheck.recipe("andrew"), "andrew")
        self.assertEqual(realcheck.recipe("gnuld"), "gnuld")
        with self.assertRaisesRegex(SystemExit, "no recipe for gitwork-2"):
            realcheck.recipe("gitwork-2")

    def test_pystart_is_the_recording_its_experiment_measures(self) -> None:
        self.assertEqual(realcheck.measured_workload("pystart", "pystart-hdd2001").name,
                         "pystart-3")
        self.assertEqual(realcheck.measured_workload("glimpse", "glimpse-hdd2001").name,
                         "glimpse")
        with self.assertRaisesRegex(SystemExit, "no workload 'pystart'"):
            realcheck.measured_workload("pystart", "glimpse-hdd2001")
        self.assertEqual(realcheck.measured_workload("pbuild-j2", "pbuild-j2-hdd2001").name,
                         "pbuild-j2-4")
        self.assertEqual(realcheck.measured_workload("pbuild-j4", "pbuild-j4-hdd2001").name,
                         "pbuild-j4-3")

    def test_pbuild_real_command(self) -> None:
        """pbuild's recorded command in its root (make's relative paths),
        with pbuild.sh's LC_ALL and TMPDIR; the root, the image's mount point,
        is the trace's."""
        w = realcheck.measured_workload("pbuild-j2", "pbuild-j2-hdd2001")
        root = realcheck.meta_text(w.trace, "root")
        command = realcheck.meta_text(w.trace, "command")
        self.assertEqual(root, "/var/tmp/ppf-work/pbuild/scratch")
        self.assertEqual(command, f"bash ./pbuild.sh {root} 2")
        self.assertEqual(realcheck.real_command(w.name, command, root),
                         f"LC_ALL=C TMPDIR={root}/tmp chroot $NEW /bin/sh -c "
                         f"'cd {root} && exec bash ./pbuild.sh {root} 2'")
        cmd = realcheck.real_command(w.name, "echo $PWD $TMPDIR $LC_ALL", "/tmp")
        r = subprocess.run(["sh", "-c", 'chroot() { shift; "$@"; }; NEW=/x; eval "$CMD"'],
                           env={"PATH": os.environ["PATH"], "CMD": cmd},
                           text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.assertEqual(r.stdout, "/tmp /tmp/tmp C\n", r.stderr)
        run = realcheck.REAL_RUNS["pbuild-j2"]
        self.assertEqual((run.before, run.output, run.cpu), ("rm -rf obj tmp", "obj", ""))

    def test_pbuild_host_files(self) -> None:
        """The compilers the trace execs are outside its root (placed from the
        host); the names they are run by are the recipe's."""
        w = realcheck.measured_workload("pbuild-j2", "pbuild-j2-hdd2001")
        t = realcheck.tracefmt.load_trace(w.trace)
        execs = {t["files"][e.fid].path.decode() for e in t["events"] if e.op == "exec"}
        for p in ("/usr/lib/gcc/x86_64-linux-gnu/12/cc1",
                  "/usr/lib/gcc/x86_64-linux-gnu/12/collect2",
                  "/usr/bin/x86_64-linux-gnu-as", "/usr/bin/x86_64-linux-gnu-ld.bfd",
                  "/usr/bin/x86_64-linux-gnu-gcc-12", "/usr/bin/x86_64-linux-gnu-ar"):
            self.assertIn(p, execs)
        # by the names PATH finds, which the trace does not have
        files = {f.path.decode() for f in t["files"]}
        for p in realcheck.REAL_RUNS["pbuild-j2"].host:
            self.assertNotIn(p, files)

    def test_andrew_real_command(self) -> None:
        """Andrew's recorded command in its root, with LC_ALL as recorded
        (andrew.sh sets TMPDIR and empties tree/ and tmp/ itself)."""
        w = realcheck.measured_workload("andrew", "andrew-hdd2001")
        root = realcheck.meta_text(w.trace, "root")
        command = realcheck.meta_text(w.trace, "command")
        self.assertEqual(root, "/var/tmp/ppf-work/andrew/scratch")
        self.assertEqual(command, f"bash ./andrew.sh {root}")
        self.assertEqual(realcheck.real_command(w.name, command, root),
                         f"LC_ALL=C chroot $NEW /bin/sh -c "
                         f"'cd {root} && exec bash ./andrew.sh {root}'")
        run = realcheck.REAL_RUNS["andrew"]
        self.assertEqual((run.before, run.output, run.cpu), ("", "tree", ""))

    def test_andrew_host_files(self) -> None:
        """As pbuild's: the compilers are the trace's, the names PATH finds
        them by and ar's plugin directory the recipe's (the recording's ar
        mapped libLLVM through LLVMgold: the real run must load it too)."""
        w = realcheck.measured_workload("andrew", "andrew-hdd2001")
        t = realcheck.tracefmt.load_trace(w.trace)
        files = {f.path.decode() for f in t["files"]}
        self.assertIn("/usr/lib/x86_64-linux-gnu/libLLVM-14.so.1", files)
        host = realcheck.REAL_RUNS["andrew"].host
        self.assertIn("/usr/lib/bfd-plugins/LLVMgold-14.so", host)
        for p in host:
            self.assertNotIn(p, files)

    def test_mixed_is_andrew_and_pystart(self) -> None:
        """mixed's recordings are a recipe's (mixed-hdd2001 measures mixed-2);
        its run is mixed.sh in its root, on the CPU numpy needs, with
        Andrew's host files and the python3 mixed.sh runs by name."""
        self.assertEqual(realcheck.recipe("mixed-2"), "mixed")
        w = realcheck.measured_workload("mixed", "mixed-hdd2001")
        self.assertEqual(w.name, "mixed-2")
        root = realcheck.meta_text(w.trace, "root")
        self.assertEqual(realcheck.meta_text(w.trace, "command"), f"bash ./mixed.sh {root}")
        run = realcheck.REAL_RUNS["mixed"]
        self.assertEqual((run.before, run.cpu), ("rm -f figure-*.png", "max"))
        self.assertEqual(set(run.host) - set(realcheck.REAL_RUNS["andrew"].host),
                         {"/usr/bin/python3"})
        files = {f.path.decode() for f in realcheck.tracefmt.load_trace(w.trace)["files"]}
        self.assertNotIn("/usr/bin/python3", files)
        for p in ("andrew/andrew.sh", "plot.py", "mixed.sh", "andrew/src/zlib.h"):
            self.assertIn(p, files)

    def test_gnuld_runs_link_sh_as_recorded(self) -> None:
        """gnuld's command is the recording checkout's link.sh by its
        absolute path (a host file, placed); it is run through env (its #!)
        and runs the toolchain by the names PATH finds, none of which the
        trace has; the tools it execs by their own names it has."""
        w = realcheck.measured_workload("gnuld", "gnuld-hdd2001")
        root = realcheck.meta_text(w.trace, "root")
        command = realcheck.meta_text(w.trace, "command")
        self.assertEqual(command.split()[1:], ["direct", root])
        self.assertTrue(command.split()[0].endswith("/eval/workloads/gnuld/link.sh"))
        self.assertEqual(realcheck.real_command(w.name, command, root),
                         f"chroot $NEW {command}")
        t = realcheck.tracefmt.load_trace(w.trace)
        files = {f.path.decode() for f in t["files"]}
        execs = {t["files"][e.fid].path.decode() for e in t["events"] if e.op == "exec"}
        for p in ("/usr/bin/x86_64-linux-gnu-ar", "/usr/bin/x86_64-linux-gnu-ld.bfd",
                  "tools/objtool/objtool", "scripts/kallsyms"):
            self.assertIn(p, execs)
        host = realcheck.REAL_RUNS["gnuld"].host
        self.assertIn("/usr/bin/env", host)
        for p in host:
            self.assertNotIn(p, files)

    def test_the_image_is_the_recipe_s(self) -> None:
        """The cached image's name changes with the recipe's host files: a
        recipe that gains one is not served the image built without it."""
        w = realcheck.workload("andrew")
        old = realcheck.REAL_RUNS["andrew"]
        key = realcheck.image_key(w)
        try:
            realcheck.REAL_RUNS["andrew"] = dataclasses.replace(old, host=old.host[:-1])
            self.assertNotEqual(realcheck.image_key(w), key)
        finally:
            realcheck.REAL_RUNS["andrew"] = old
        self.assertEqual(realcheck.image_key(w), key)

    def test_real_command(self) -> None:
        """glimpse's as before (chrooted, as recorded); pystart's in its root
        with record.sh's environment, and runnable by a shell."""
        self.assertEqual(realcheck.real_command("glimpse", "env LC_ALL=C glimpseindex x", "/r"),
                         "chroot $NEW env LC_ALL=C glimpseindex x")
        root = "/var/tmp/ppf-work/pystart/scratch"
        cmd = realcheck.real_command("pystart-3", "/usr/bin/python3 plot.py figure.png", root)
        self.assertEqual(cmd, f"LC_ALL=C MPLCONFIGDIR={root}/mpl chroot $NEW /bin/sh -c "
                              f"'cd {root} && exec /usr/bin/python3 plot.py figure.png'")
        # what realcheck.sh's eval runs, with chroot replaced by a function
        # and the root by one that exists here
        cmd = realcheck.real_command("pystart-3", "echo $PWD $MPLCONFIGDIR $LC_ALL", "/tmp")
        r = subprocess.run(["sh", "-c", 'chroot() { shift; "$@"; }; NEW=/x; eval "$CMD"'],
                           env={"PATH": os.environ["PATH"], "CMD": cmd},
                           text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.assertEqual(r.stdout, "/tmp /tmp/mpl C\n", r.stderr)

    def test_guest_path(self) -> None:
        root = "/var/tmp/ppf-work/pystart/scratch"
        self.assertEqual(realcheck.guest_path("/mnt/w/t/_abs/usr/lib/x.so", root),
                         "/usr/lib/x.so")
        self.assertEqual(realcheck.guest_path("/mnt/w/t/mpl/f.json", root), f"{root}/mpl/f.json")
        self.assertEqual(realcheck.guest_path("/mnt/w/t", root), root)


# The traced real cold run of `realcheck pystart --profile hdd-2001`
# (realcheck.sh's real-cold-traced.pages.gz, its first 24 events of inode
# 0x3dd and its first 3; .inodes, dev): libgfortran's pages and faults, the
# block device's own pages (bdevfs, ino = its dev_t 251:0).
PAGES = """A python3-108 251:0 3dd 0 0
A python3-108 251:0 3dd 1 0
A python3-108 251:0 3dd 2 0
A python3-108 251:0 3dd 3 0
F python3-108 251:0 3dd 713
A python3-108 251:0 3dd 697 0
A python3-108 251:0 3dd 698 0
A python3-108 251:0 3dd 699 0
A python3-108 251:0 3dd 700 0
A python3-108 251:0 3dd 701 0
A python3-108 251:0 3dd 702 0
A python3-108 251:0 3dd 703 0
A python3-108 251:0 3dd 704 0
A python3-108 251:0 3dd 705 0
A python3-108 251:0 3dd 706 0
A python3-108 251:0 3dd 707 0
A python3-108 251:0 3dd 708 0
A python3-108 251:0 3dd 709 0
A python3-108 251:0 3dd 710 0
A python3-108 251:0 3dd 711 0
A python3-108 251:0 3dd 712 0
A python3-108 251:0 3dd 713 0
F python3-108 251:0 3dd 713
F python3-108 251:0 3dd 22
A python3-108 0:3 fb00000 5175 0
A python3-108 0:3 fb00000 5209 0
A python3-108 0:3 fb00000 5210 0
"""
INODES = """12 /mnt/w/t
1084 /mnt/w/t/plot.py
989 /mnt/w/t/_abs/usr/lib/x86_64-linux-gnu/libgfortran.so.5.0.0
988 /mnt/w/t/_abs/usr/lib/x86_64-linux-gnu/libgfortran.so.5
"""


def traced_run(out: Path) -> Path:
    """A real run's traced results in out, from the captured samples."""
    (out / "dev").write_text("251:0\n")
    (out / "real.inodes").write_text(INODES)
    with gzip.open(out / "real.pages.gz", "wt") as f:
        f.write(PAGES)
    return out


class TestPages(unittest.TestCase):
    def test_traced_pages(self) -> None:
        with tempfile.TemporaryDirectory() as d:
            out = traced_run(Path(d))
            got = realcheck.traced_pages(out, "real", "/var/tmp/ppf-work/pystart/scratch")
        self.assertEqual(got, {
            "/usr/lib/x86_64-linux-gnu/libgfortran.so.5.0.0":
                {"pages": 21, "folios": 21, "faults": 3},
            "(block device 251:0: metadata)": {"pages": 3, "folios": 3, "faults": 0}})

    def test_guest_dev_is_not_the_image(self) -> None:
        """/dev bind-mounted in the tree (older real runs' .inodes): its inode
        numbers are devtmpfs's, not the image's, and do not name its pages."""
        with tempfile.TemporaryDirectory() as d:
            out = traced_run(Path(d))
            (out / "real.inodes").write_text(INODES + "1 /mnt/w/t/_abs/dev\n"
                                             "989 /mnt/w/t/_abs/dev/ttyd1\n")
            got = realcheck.traced_pages(out, "real", "/r")
            self.assertIn("/usr/lib/x86_64-linux-gnu/libgfortran.so.5.0.0", got)
            self.assertEqual(realcheck.inode_paths(out, "real", "/r")[1084], "/r/plot.py")
            self.assertNotIn(1, realcheck.inode_paths(out, "real", "/r"))

    def test_page_comparison(self) -> None:
        lib = "/usr/lib/x86_64-linux-gnu/libgfortran.so.5.0.0"
        meta = "(block device 251:0: metadata)"
        real = {lib: {"pages": 166, "faults": 9}, meta: {"pages": 127, "faults": 0},
                "/r/plot.py": {"pages": 1, "faults": 0}}
        replay = {lib: {"pages": 713, "faults": 0}, meta: {"pages": 196, "faults": 0},
                  "/r/plot.py": {"pages": 1, "faults": 0}}
        access = {lib: ("mmap+read", 2918064), "/r/plot.py": ("read", 1072)}
        c = realcheck.page_comparison(real, replay, access)
        self.assertEqual([f["file"] for f in c["files"]], [lib, meta, "/r/plot.py"])
        self.assertEqual(c["totals"]["mapped"],
                         {"files": 1, "real_pages": 166, "replay_pages": 713})
        self.assertEqual(c["totals"]["total"],
                         {"files": 3, "real_pages": 294, "replay_pages": 910})
        t = realcheck.page_table(c)
        self.assertIn(f"| {lib} | mmap+read | 2.92 | 0.68 | 2.92 | 2.24 | 9 |", t)
        self.assertIn("| **total** (3 files) | | | 1.20 | 3.73 | 2.52 | |", t)


class TestFaults(unittest.TestCase):
    """The faults file: the real run's fault events per mapped file, first
    fault first, each page once; where it goes; what the guest gets."""

    def test_fault_pages_and_file(self) -> None:
        lib = "/usr/lib/x86_64-linux-gnu/libgfortran.so.5.0.0"
        with tempfile.TemporaryDirectory() as d:
            out = traced_run(Path(d))
            # mapped in the trace: its faults, 713 once (its fault retried)
            got = realcheck.fault_pages(out, "real", "/r", {lib: ("mmap+read", 2918064)})
            self.assertEqual(got, {lib: [713, 22]})
            # only read: no faults listed
            self.assertEqual(realcheck.fault_pages(out, "real", "/r", {lib: ("read", 1)}), {})
            realcheck.write_faults({lib: list(range(20)), "mpl/x.so": [3]},
                                   out / "t.faults.gz", "a test")
            text = gzip.decompress((out / "t.faults.gz").read_bytes()).decode()
            again = out / "u.faults.gz"
            realcheck.write_faults({lib: list(range(20)), "mpl/x.so": [3]}, again, "a test")
            self.assertEqual((out / "t.faults.gz").read_bytes(), again.read_bytes())
        lines = text.splitlines()
        self.assertEqual(lines[0], "ppf-faults 1")
        body = [x for x in lines if not x.startswith("#")]
        self.assertEqual(body[1:], [f"file {lib}", " ".join(map(str, range(16))),
                                    "16 17 18 19", "file mpl/x.so", "3"])

    def test_save_faults_by_window(self) -> None:
        """--save-faults writes TRACE.faults.gz from a boot at the default
        fault-around window (or one from before the window was recorded),
        TRACE.touched.faults.gz from one at a page, and refuses any other."""
        src = TOP / "eval" / "workloads" / "pystart" / "pystart-3.trace.gz"
        with tempfile.TemporaryDirectory() as d:
            out = Path(d) / "out"
            out.mkdir()
            traced_run(out)
            for x in ("inodes", "pages.gz"):
                (out / f"real.{x}").rename(out / f"real-cold-traced.{x}")
            trace = Path(d) / src.name
            shutil.copy(src, trace)
            for window, name in ((None, "pystart-3.faults.gz"),
                                 (65536, "pystart-3.faults.gz"),
                                 (4096, "pystart-3.touched.faults.gz")):
                if window is not None:
                    (out / "fault_around_bytes").write_text(f"{window}\n")
                self.assertEqual(realcheck.save_faults(out, trace, True), trace.with_name(name))
                self.assertTrue(trace.with_name(name).is_file())
            (out / "fault_around_bytes").write_text("16384\n")
            with self.assertRaisesRegex(SystemExit, "window was 16384 bytes"):
                realcheck.save_faults(out, trace, True)
            self.assertIsNone(realcheck.save_faults(out, trace, False))

    def test_where_and_what_the_guest_gets(self) -> None:
        from eval.harness import runner
        py = TOP / "eval" / "workloads" / "pystart" / "pystart-3.trace.gz"
        self.assertEqual(runner.faults_path(py), py.with_name("pystart-3.faults.gz"))
        self.assertEqual(runner.faults_path(Path("/x/a.trace")), Path("/x/a.faults.gz"))
        git = TOP / "eval" / "workloads" / "gitwork" / "gitwork-2.trace.gz"
        self.assertIsNone(runner.faults_of(git))
        self.assertEqual(runner.faults_adds(git, "/ppf/trace.gz"), [])
        self.assertIsNotNone(runner.faults_of(py))
        self.assertEqual(runner.faults_adds(py, "/ppf/trace.gz"),
                         [f"{runner.faults_path(py)}:/ppf/trace.faults.gz"])
        # the measured trace and each warm-up's (pystart-1 and -2: the same
        # program, the same 72 mapped files) get their own, beside them
        # (pystart-hdd2001's: every page the real start-up touched)
        exp = runner.load_experiment("pystart-hdd2001")
        adds = runner.trace_files(exp)
        self.assertIn(f"{runner.faults_path(py, 'touched')}:/ppf/trace.faults.gz", adds)
        for t, g in runner.warmup_guest_paths(exp):
            self.assertIn(f"{runner.faults_path(t, 'touched')}:{g[:-3]}.faults.gz", adds)
        self.assertEqual(sum(a.endswith(".faults.gz") for a in adds),
                         1 + len(runner.warmup_guest_paths(exp)))


class TestSamples(unittest.TestCase):
    def test_run_sample(self) -> None:
        with tempfile.NamedTemporaryFile("w", suffix=".txt") as f:
            f.write(SAMPLE)
            f.flush()
            r = realcheck.run_sample(Path(f.name))
        self.assertAlmostEqual(r["elapsed_s"], 78.00769992)
        self.assertAlmostEqual(r["cpu_s"], 30.24)
        self.assertEqual(r["device_reads"], 11474)
        self.assertAlmostEqual(r["device_read_mb"], (162242 - 370) * 512 / 1e6)
        self.assertAlmostEqual(r["device_read_s"], 43.67)
        self.assertAlmostEqual(r["device_write_mb"], (520408 - 461448) * 512 / 1e6)

    def test_pct(self) -> None:
        self.assertEqual(realcheck.pct(68.0, 80.0), "-15.0 %")
        self.assertEqual(realcheck.pct(1.0, 0.0), "-")

    def test_cli(self) -> None:
        a = cli.parser().parse_args(["realcheck", "glimpse", "--spin-rate", "658"])
        self.assertEqual((a.workload, a.profile, a.spin_rate), ("glimpse", "hdd-2001", "658"))
        ap = cli.parser()
        cli.check_args(ap, ap.parse_args(["realcheck", "pbuild-j2"]))  # a recipe: no error
        with self.assertRaisesRegex(SystemExit, "unknown profile"):
            realcheck.main("glimpse", "floppy")

    def test_fault_around(self) -> None:
        """--fault-around-bytes reaches the guest's eval.conf and the
        results' name; a size the kernel would round is refused."""
        a = cli.parser().parse_args(["realcheck", "andrew", "--fault-around-bytes", "4096"])
        self.assertEqual(a.fault_around_bytes, 4096)
        self.assertIsNone(cli.parser().parse_args(["realcheck", "andrew"]).fault_around_bytes)
        w = realcheck.measured_workload("andrew", "andrew-hdd2001")
        prof = PROFILES["ssd"]
        conf = realcheck.conf(w, prof, 96, "1.0", 4096)
        self.assertIn("FAULT_AROUND_BYTES=4096\n", conf)
        self.assertNotIn("FAULT_AROUND", realcheck.conf(w, prof, 96, "1.0"))
        for bad in (0, 100, 6144):
            with self.assertRaisesRegex(SystemExit, "not a power of two"):
                realcheck.main("andrew", "ssd", fault_around=bad)
        # the guest script sets it before the first run and records it
        script = realcheck.GUEST_SCRIPT.read_text()
        self.assertLess(script.index("FAULT_AROUND_BYTES"), script.index("timed real-cold real"))
        with tempfile.TemporaryDirectory() as d:
            self.assertIsNone(realcheck.read_fault_around(Path(d)))
            (Path(d) / "fault_around_bytes").write_text("4096\n")
            self.assertEqual(realcheck.read_fault_around(Path(d)), 4096)


if __name__ == "__main__":
    unittest.main()
