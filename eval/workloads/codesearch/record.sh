#!/usr/bin/env bash
# Record the `codesearch` workload: a developer searching two header trees
# for a name, as `grep -rn` does: LLVM 14's headers (1,680 files) and
# libstdc++ 12's (783), each file read whole, in the order readdir(3) gives
# (a hashed directory's order, not the order the files were written), one
# grep process a tree.  Each run searches for a different name, so the
# measured run is not the run the model was trained on, only the same
# files.
#
#   eval/workloads/codesearch/record.sh [RUNS]        (default 2)
#
# Writes eval/workloads/codesearch/codesearch-I.trace.gz for I = 1..RUNS.
# Installs what is missing from Debian (as root): strace, llvm-14-dev and
# libstdc++-12-dev.  Recorded as a workload no mechanism of ppf was tuned
# on (docs/results.md, "A sixth workload ppf was never tuned on").
#
# Environment: PPF_WORKDIR (default /var/tmp/ppf-work; uses $PPF_WORKDIR/codesearch),
# PPF_TRACE (default <repo>/userspace/trace-replay/ppf-trace).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$HERE/../lib.sh"
ppf_record_begin codesearch "${1:-}"  # say die REPO W SCRATCH PPF_TRACE RUNS, the C locale
ppf_ensure_packages strace grep llvm-14-dev libstdc++-12-dev
ppf_need_recorder

# The names searched for, one a run (round robin past the fourth).
NAMES=(getParent allocator_traits DenseMap basic_string_view)

rm -rf "$W"; mkdir -p "$SCRATCH"
for i in $(seq 1 "$RUNS"); do
  name=${NAMES[$(((i - 1) % ${#NAMES[@]}))]}
  cat > "$SCRATCH/work-$i.sh" <<WORK
cd /usr/include
grep -rn -- '$name' llvm-14 > /dev/null || true
grep -rn -- '$name' c++/12 > /dev/null || true
WORK
done

ppf_record_runs codesearch "$RUNS" sh "$SCRATCH/work-{I}.sh"
