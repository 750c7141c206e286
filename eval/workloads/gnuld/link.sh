#!/usr/bin/env bash
# The traced command of the `gnuld` workload: reset the link outputs of an
# already-built Linux tree, then redo only the link steps (no compilation).
#
#   link.sh direct KDIR   the link steps on a reset tree, as a plain script
#                         (KDIR/.ppf-gnuld-link-cmds.sh, made by gen-link-cmds.py
#                         from kbuild's .cmd files): what the recorder runs
#   link.sh make KDIR     the same through `make vmlinux` (adds make's
#                         up-to-date checks: ~1.1 M stats, 3,700 .cmd files read)
#   link.sh reset KDIR    reset only
#
# The recorder runs the command twice with --untraced-run (untraced
# calibration run, then the traced run), and each run needs the link outputs
# reset first. To keep the reset out of the trace:
#   - record.sh resets the tree (link.sh reset) before starting the recorder;
#   - a run that is NOT under a tracer (TracerPid 0 in /proc/self/status, read
#     with a bash builtin, so no process is started) resets the tree again at
#     its end, after the link: the untraced run leaves the tree ready for the
#     traced run;
#   - a run that finds vmlinux.o at its start resets first anyway (robustness;
#     then rm's lstat calls appear in a trace as stat events: rm -f does one
#     newfstatat + unlinkat per name, and unlinkat is not traced).
# So the traced run's trace holds exactly the link steps, plus bash's startup
# and one failed stat of vmlinux.o by the [[ -e ]] test below. Inside the link
# steps themselves kbuild deletes files too (`rm -f X.a` before each `ar`):
# those are the trace's unlink events.
#
# The reset deletes, with one `rm -f` over a fixed list: vmlinux, vmlinux.o,
# vmlinux.a, vmlinux.symvers, System.map, .tmp_vmlinux*, modules.builtin*,
# arch/x86/boot/compressed/vmlinux.relocs, and every
# built-in.a / lib.a archive of the tree. The list is computed once (find)
# and cached in KDIR/.ppf-gnuld-reset.list.
#
# What the link steps are (`make vmlinux` on a reset tree; no .c is compiled):
#   AR  <dir>/built-in.a, <dir>/lib.a    thin archives (ar cDPrST / cDPrsT)
#   AR  vmlinux.a                        thin archive of all built-in.a
#   LD  vmlinux.o                        ld -r --whole-archive vmlinux.a + objtool --link
#   OBJCOPY modules.builtin.modinfo, GEN modules.builtin
#   MODPOST vmlinux.symvers              modpost reads vmlinux.o
#   scripts/link-vmlinux.sh:
#     KSYMS/AS .tmp_vmlinux0.kallsyms.{S,o}   (empty kallsyms table)
#     LD .tmp_vmlinux1, NM, KSYMS/AS .tmp_vmlinux1.kallsyms.{S,o}
#     LD .tmp_vmlinux2, NM, KSYMS/AS .tmp_vmlinux2.kallsyms.{S,o}
#     LD vmlinux, NM System.map, SORTTAB vmlinux
#   arch/x86/Makefile.postlink: RELOCS vmlinux.relocs, RSTRIP vmlinux
# The only compiler runs are the assembler runs of the kallsyms tables
# (gcc -c .tmp_vmlinuxN.kallsyms.S: cc1 preprocesses, as assembles).
set -euo pipefail

MODE="${1:-}"
KDIR="${2:-}"
[[ "$MODE" =~ ^(direct|make|reset)$ && -n "$KDIR" ]] || { echo "usage: link.sh direct|make|reset KDIR" >&2; exit 2; }
cd "$KDIR"

# Same build identity as the object build (record.sh). KBUILD_BUILD_VERSION is
# pinned so that include/generated/utsversion.h does not change between links:
# otherwise init/build-version bumps .version on every link and
# init/version-timestamp.c is recompiled inside link-vmlinux.sh.
export KBUILD_BUILD_USER=ppf KBUILD_BUILD_HOST=ppf
export KBUILD_BUILD_TIMESTAMP="Thu Jan  1 00:00:00 UTC 2026"
export KBUILD_BUILD_VERSION=1
export LC_ALL=C

reset() {
    local LIST=.ppf-gnuld-reset.list
    if [[ ! -s "$LIST" ]]; then
        # list the archives while they all exist (right after the build)
        [[ -f vmlinux.a ]] || { echo "link.sh: $LIST missing and tree not fully built" >&2; exit 1; }
        { printf '%s\n' vmlinux vmlinux.o vmlinux.a vmlinux.symvers System.map \
              modules.builtin modules.builtin.modinfo \
              .tmp_vmlinux1 .tmp_vmlinux2 .tmp_vmlinux3 \
              .tmp_vmlinux1.kallsyms.S .tmp_vmlinux1.kallsyms.o \
              .tmp_vmlinux2.kallsyms.S .tmp_vmlinux2.kallsyms.o \
              .tmp_vmlinux3.kallsyms.S .tmp_vmlinux3.kallsyms.o \
              .tmp_vmlinux.nm-sort .tmp_vmlinux1.syms .tmp_vmlinux2.syms
          find . -path ./.git -prune -o -type f \( -name built-in.a -o -name lib.a \) -printf '%P\n' | LC_ALL=C sort
        } >"$LIST.tmp"
        mv "$LIST.tmp" "$LIST"
    fi
    xargs rm -f <"$LIST"
    # kallsyms temporaries (names vary: .tmp_vmlinux0.kallsyms.S, .tmp_vmlinux1.kallsyms.o.sym,
    # .tmp_vmlinux.kallsyms0.syms, ...) and the x86 post-link output
    rm -f .tmp_vmlinux* arch/x86/boot/compressed/vmlinux.relocs
}

if [[ "$MODE" == reset ]]; then reset; exit 0; fi
[[ -e vmlinux.o ]] && reset

traced=0
while read -r k v; do
    [[ "$k" == TracerPid: ]] && { [[ "$v" != 0 ]] && traced=1; break; }
done </proc/self/status

# -j1 on purpose: the link steps are serial anyway (one ld after another), and
# a single job gives a deterministic order of file accesses, like the paper's
# uniprocessor runs.
if [[ "$MODE" == make ]]; then
    make -j"${LINK_JOBS:-1}" vmlinux
else
    sh .ppf-gnuld-link-cmds.sh
fi
((traced)) || reset
exit 0
