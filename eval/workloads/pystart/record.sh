#!/usr/bin/env bash
# Record the `pystart` workload: Python 3.11 starting, importing matplotlib,
# numpy and parts of the standard library, and saving one figure.
#
#   eval/workloads/pystart/record.sh [RUNS]          (default 3)
#
# Writes eval/workloads/pystart/pystart-I.trace.gz for I = 1..RUNS (start-ups
# repeat exactly; several recordings let an experiment train on some and
# measure on another).  Installs what is missing from Debian (as root):
# python3 python3-matplotlib strace.  Uses /usr/bin/python3 (Debian's), not
# whatever python3 comes first in PATH, so that its modules are Debian's
# byte-compiled ones.
#
# Environment: PPF_WORKDIR (default /var/tmp/ppf-work; uses $PPF_WORKDIR/pystart),
# PPF_TRACE (default <repo>/userspace/trace-replay/ppf-trace).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$HERE/../lib.sh"
ppf_record_begin pystart "${1:-3}"  # say die REPO W SCRATCH PPF_TRACE RUNS, the C locale
unset PYTHONPATH PYTHONHOME PYTHONDONTWRITEBYTECODE
PY=/usr/bin/python3

PKGS=(python3 python3-matplotlib strace)
ppf_ensure_packages "${PKGS[@]}"
ppf_need_recorder

rm -rf "$SCRATCH"; mkdir -p "$SCRATCH"
cp "$HERE/plot.py" "$SCRATCH/plot.py"
# one start-up first, untraced, so that matplotlib's font cache exists (a
# user's second start-up, not the first ever) and every .pyc is compiled
MPLCONFIGDIR="$SCRATCH/mpl" "$PY" "$SCRATCH/plot.py" "$SCRATCH/warm.png"
export MPLCONFIGDIR="$SCRATCH/mpl"
say "$("$PY" --version); matplotlib $("$PY" -c 'import matplotlib; print(matplotlib.__version__)')"

for i in $(seq 1 "$RUNS"); do
  name="pystart-$i"
  out="$HERE/$name.trace.gz"
  tmp="$W/$name.trace.gz"
  rm -f "$tmp" "$SCRATCH/figure.png"
  say "recording $name"
  ( cd "$SCRATCH" && "$PPF_TRACE" record -o "$tmp" --root "$SCRATCH" --name "$name" \
      --untraced-run -- "$PY" plot.py figure.png )
  [[ -s "$tmp" && -s "$SCRATCH/figure.png" ]] || die "no trace or no figure"
  mv "$tmp" "$out"
  "$PPF_TRACE" info "$out" >"$W/$name.info" && head -12 "$W/$name.info"
done
