#!/usr/bin/env bash
# The ppf `andrew` workload: the five phases of the Andrew benchmark over a
# zlib 1.3.1 source tree (17 C files), run inside the scratch directory.
#
#   usage: andrew.sh [SCRATCH]     (default ${PPF_WORKDIR:-/var/tmp/ppf-work}/andrew/scratch)
#
# SCRATCH/src is the read-only input tree made by prepare.sh; this script
# never changes it.  Every run first removes what an earlier run left
# (SCRATCH/tree, SCRATCH/tmp), so it can be run any number of times, e.g.
# twice by `ppf-trace record --untraced-run`.  Then:
#   phase 1  MakeDir  mkdir -p every directory of src/ under tree/
#   phase 2  Copy     cp every file of src/ into tree/ (read/write, no reflink)
#   phase 3  ScanDir  ls -l (stat) every file and directory of tree/
#   phase 4  ReadAll  cat every byte of every file of tree/
#   phase 5  Make     make -j1 in tree/: gcc -O2 compiles 17 C files into
#                     libzcore.a, libzgz.a and the executable zexample
# gcc's temporary files go to SCRATCH/tmp (TMPDIR), so the whole workload's
# file activity, apart from the toolchain and system files, stays in SCRATCH.
# Phase times go to stderr.  Only shell builtins are used between phases.
set -euo pipefail

SCRATCH="${1:-${ANDREW_SCRATCH:-${PPF_WORKDIR:-/var/tmp/ppf-work}/andrew/scratch}}"
SRC="$SCRATCH/src"
TREE="$SCRATCH/tree"

say() { printf 'andrew: %s\n' "$*" >&2; }
die() { say "ERROR: $*"; exit 1; }

[[ -f "$SRC/Makefile" && -f "$SRC/zlib.h" && -f "$SRC/test/example.c" ]] \
  || die "no input tree at $SRC: run eval/workloads/andrew/prepare.sh first"

export LC_ALL=C
export TMPDIR="$SCRATCH/tmp"

t_start=$EPOCHREALTIME
t_last=$t_start
phase_done() {   # phase_done NAME  -- print the phase's wall time (bash builtins only)
  local now=$EPOCHREALTIME
  local us=$(( ${now/./} - ${t_last/./} ))
  printf 'andrew: %-22s %d.%06d s\n' "$1" $((us / 1000000)) $((us % 1000000)) >&2
  t_last=$now
}

# Phase 0: start from a clean scratch directory (keep only the input tree).
rm -rf "$TREE" "$TMPDIR"
mkdir "$TMPDIR"
phase_done "phase 0 clean"

cd "$SRC"

# Phase 1: make the directory tree.
find . -type d -exec mkdir -p "$TREE/{}" \;
phase_done "phase 1 mkdir"

# Phase 2: copy every file.  --reflink=never makes coreutils 9 cp move the
# data with read()/write(), as the original's cp did, instead of one
# copy_file_range() that a read/write trace would not show.
find . -type f -exec cp --reflink=never {} "$TREE/{}" \;
phase_done "phase 2 copy"

cd "$TREE"

# Phase 3: stat every file and directory.
find . -exec ls -ld {} \; >/dev/null
phase_done "phase 3 stat (ls -l)"

# Phase 4: read every byte of every file.
find . -type f -exec cat {} \; >/dev/null
phase_done "phase 4 read (cat)"

# Phase 5: compile, serially.
make -j1 --no-print-directory >/dev/null
phase_done "phase 5 make -j1"

[[ -x zexample && -f libzcore.a && -f libzgz.a ]] || die "build products missing"
t_end=$EPOCHREALTIME
t_last=$t_start; phase_done "total"
