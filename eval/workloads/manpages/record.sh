#!/usr/bin/env bash
# Record the `manpages` workload: man(1) formatting 24 manual pages, as a
# user looking things up does: man-db, preconv, tbl, nroff, groff, troff
# and grotty, short processes that map libstdc++ and read groff's macro and
# font files, each page gzip-compressed under /usr/share/man.
#
#   eval/workloads/manpages/record.sh [RUNS]         (default 2)
#
# Writes eval/workloads/manpages/manpages-I.trace.gz for I = 1..RUNS.  Each
# page is formatted from its file (man -l), so that no page formatted
# before is read back from man-db's cache.  Installs what is missing from
# Debian (as root): man-db groff-base manpages strace.  Recorded by a
# session as a workload ppf was not tuned on.
#
# Environment: PPF_WORKDIR (default /var/tmp/ppf-work; uses $PPF_WORKDIR/manpages),
# PPF_TRACE (default <repo>/userspace/trace-replay/ppf-trace).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$HERE/../lib.sh"
ppf_record_begin manpages "${1:-}"  # say die REPO W SCRATCH PPF_TRACE RUNS, the C locale
ppf_ensure_packages man-db groff-base manpages strace
ppf_need_recorder

PAGES="ls cp find grep sed tar bash ssh git make gzip xz chmod ps top
  kill mount dd rsync date sort uniq tr awk"
rm -rf "$W"; mkdir -p "$SCRATCH"
files=()
for p in $PAGES; do
  f=$(man -w "$p" 2>/dev/null) || continue
  files+=("$f")
done
((${#files[@]} >= 12)) || die "only ${#files[@]} of the pages are installed"
say "${#files[@]} pages"
{
  echo 'export MANPAGER=cat MANWIDTH=80'
  for f in "${files[@]}"; do echo "man -l '$f' > /dev/null 2>&1"; done
} > "$SCRATCH/work.sh"

ppf_record_runs manpages "$RUNS" bash "$SCRATCH/work.sh"
