#!/usr/bin/env bash
# The ppf `mixed` workload: two unrelated workloads at the same time.  The
# Andrew benchmark (eval/workloads/andrew: a serial build of zlib) runs while
# an interactive user starts a plotting application (eval/workloads/pystart)
# three times, one after the other.  Their opens interleave differently on
# every run.
#
#   usage: mixed.sh SCRATCH        (SCRATCH/andrew from andrew's prepare.sh,
#                                   SCRATCH/plot.py from pystart)
set -euo pipefail
SCRATCH="$1"
export LC_ALL=C
export MPLCONFIGDIR="$SCRATCH/mpl"
cd "$SCRATCH"
bash ./andrew/andrew.sh "$SCRATCH/andrew" 2>/dev/null &
build=$!
for i in 1 2 3; do
  /usr/bin/python3 plot.py "figure-$i.png"
done
wait "$build"
