#!/usr/bin/env bash
# Record the `pbuild` workload: make -jN of liblzma + xz, several times.
#
#   eval/workloads/pbuild/record.sh [JOBS [RUNS]]      (default: 2 4)
#
# Writes eval/workloads/pbuild/pbuild-jJOBS-I.trace.gz for I = 1..RUNS.  Every
# recording interleaves the compilers differently (make -j schedules by
# completion order), which is the point: an experiment trains on some of the
# recordings and measures on another (eval/experiments/pbuild-*.json).
#
# 1. installs what it needs from Debian (as root, only what is missing)
# 2. prepare.sh: the pinned lzma-sys crate (xz 5.2) as the input tree
# 3. ppf-trace record --untraced-run, RUNS times, each into its own trace
#
# Environment: PPF_WORKDIR (default /var/tmp/ppf-work; uses $PPF_WORKDIR/pbuild),
# PPF_TRACE (default <repo>/userspace/trace-replay/ppf-trace).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$HERE/../lib.sh"
ppf_messages pbuild/record
ppf_recording pbuild   # REPO W SCRATCH PPF_TRACE, the C locale
JOBS="${1:-2}"
RUNS="${2:-4}"
[[ "$JOBS" =~ ^[1-9][0-9]*$ && "$RUNS" =~ ^[1-9][0-9]*$ ]] || die "usage: record.sh [JOBS [RUNS]]"

PKGS=(gcc make binutils strace curl ca-certificates python3 tar gzip coreutils)
ppf_ensure_packages "${PKGS[@]}"
say "$(gcc --version | head -1); $(make --version | head -1); $(strace -V | head -1)"

"$HERE/prepare.sh"
cp "$HERE/pbuild.sh" "$SCRATCH/pbuild.sh"
ppf_need_recorder

for i in $(seq 1 "$RUNS"); do
  name="pbuild-j$JOBS-$i"
  out="$HERE/$name.trace.gz"
  tmp="$W/$name.trace.gz"
  rm -f "$tmp"
  say "recording $name: make -j$JOBS"
  ( cd "$SCRATCH" && "$PPF_TRACE" record -o "$tmp" --root "$SCRATCH" --name "$name" \
      --untraced-run --reset "rm -rf $SCRATCH/obj $SCRATCH/tmp" \
      -- bash ./pbuild.sh "$SCRATCH" "$JOBS" )
  [[ -s "$tmp" ]] || die "recorder wrote no trace"
  mv "$tmp" "$out"
  say "wrote $out ($(stat -c %s "$out") bytes)"
  "$PPF_TRACE" info "$out" >"$W/$name.info" && head -8 "$W/$name.info"
done
