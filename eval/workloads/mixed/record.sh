#!/usr/bin/env bash
# Record the `mixed` workload: andrew and three pystart start-ups at once.
#
#   eval/workloads/mixed/record.sh [RUNS]          (default 2)
#
# Writes eval/workloads/mixed/mixed-I.trace.gz for I = 1..RUNS.  Uses the
# recipes of eval/workloads/andrew (prepare.sh: the zlib input tree) and
# eval/workloads/pystart (plot.py); installs what both need from Debian.
#
# Environment: PPF_WORKDIR (default /var/tmp/ppf-work; uses $PPF_WORKDIR/mixed),
# PPF_TRACE (default <repo>/userspace/trace-replay/ppf-trace).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$HERE/../lib.sh"
ppf_record_begin mixed "${1:-}"  # say die REPO W SCRATCH PPF_TRACE RUNS, the C locale
unset PYTHONPATH PYTHONHOME PYTHONDONTWRITEBYTECODE
# andrew's and pystart's packages (their record.sh list the same)
ppf_ensure_packages gcc make binutils strace curl ca-certificates python3 tar gzip \
  coreutils findutils python3-matplotlib
ppf_need_recorder

[[ -d "$SCRATCH" ]] && chmod -R u+w "$SCRATCH"
rm -rf "$SCRATCH"; mkdir -p "$SCRATCH"
ANDREW_SCRATCH="$SCRATCH/andrew" PPF_WORKDIR="${PPF_WORKDIR:-/var/tmp/ppf-work}" \
  "$REPO/eval/workloads/andrew/prepare.sh"
cp "$REPO/eval/workloads/andrew/andrew.sh" "$SCRATCH/andrew/andrew.sh"
cp "$REPO/eval/workloads/pystart/plot.py" "$HERE/mixed.sh" "$SCRATCH/"
# matplotlib's font cache made once, untraced (as in pystart)
MPLCONFIGDIR="$SCRATCH/mpl" /usr/bin/python3 "$SCRATCH/plot.py" "$SCRATCH/warm.png"

for i in $(seq 1 "$RUNS"); do
  name="mixed-$i"
  out="$HERE/$name.trace.gz"
  tmp="$W/$name.trace.gz"
  rm -f "$tmp" "$SCRATCH"/figure-*.png
  say "recording $name"
  ( cd "$SCRATCH" && "$PPF_TRACE" record -o "$tmp" --root "$SCRATCH" --name "$name" \
      --untraced-run -- bash ./mixed.sh "$SCRATCH" )
  [[ -s "$tmp" ]] || die "recorder wrote no trace"
  mv "$tmp" "$out"
  "$PPF_TRACE" info "$out" >"$W/$name.info" && head -12 "$W/$name.info"
done
