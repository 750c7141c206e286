#!/usr/bin/env bash
# The ppf `pbuild` workload: a parallel build of liblzma and the xz program
# (xz 5.2, 90 objects) with `make -jN`, inside the scratch directory.
#
#   usage: pbuild.sh SCRATCH JOBS
#
# SCRATCH/src is the read-only input tree made by prepare.sh.  Every run first
# removes SCRATCH/obj, so it can be run any number of times (twice by
# `ppf-trace record --untraced-run`).  gcc's temporary files go to SCRATCH/tmp.
# The build ends with the built xz compressing and decompressing a line, so a
# broken build fails the recording.
set -euo pipefail

SCRATCH="$1"
JOBS="$2"
[[ -f "$SCRATCH/src/Makefile" ]] || { echo "pbuild: no input tree in $SCRATCH/src" >&2; exit 1; }
export LC_ALL=C
export TMPDIR="$SCRATCH/tmp"
cd "$SCRATCH"
rm -rf obj tmp
mkdir -p tmp
make -s -C src -j"$JOBS"
[[ "$(echo ppf | obj/xz | obj/xz -d)" == ppf ]]
