#!/usr/bin/env bash
# Record the `dpkgquery` workload: package queries as an administrator makes
# them: which package owns a file (dpkg -S, which reads every installed
# package's file list under /var/lib/dpkg/info), what a package installed
# (dpkg -L), a package's status (dpkg -s, the status database) and the list
# of installed packages (dpkg-query -W).  Many small files read whole, one
# large one, and short processes.
#
#   eval/workloads/dpkgquery/record.sh [RUNS]        (default 2)
#
# Writes eval/workloads/dpkgquery/dpkgquery-I.trace.gz for I = 1..RUNS.
# Installs what is missing from Debian (as root): strace.  Recorded by a
# session as a workload ppf was not tuned on.  The queries are of packages
# every Debian system has; what they read is this machine's database.
#
# Environment: PPF_WORKDIR (default /var/tmp/ppf-work; uses $PPF_WORKDIR/dpkgquery),
# PPF_TRACE (default <repo>/userspace/trace-replay/ppf-trace).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$HERE/../lib.sh"
ppf_record_begin dpkgquery "${1:-}"  # say die REPO W SCRATCH PPF_TRACE RUNS, the C locale
ppf_ensure_packages strace
ppf_need_recorder
command -v dpkg-query >/dev/null || die "dpkg-query not found (a Debian system is needed)"

rm -rf "$W"; mkdir -p "$SCRATCH"
cat > "$SCRATCH/work.sh" <<'WORK'
for f in /usr/bin/ls /usr/bin/perl /usr/sbin/ldconfig /etc/passwd; do
  dpkg -S "$f" > /dev/null 2>&1
done
for p in coreutils bash dpkg tar gzip grep sed findutils; do
  dpkg -L "$p" > /dev/null 2>&1
  dpkg -s "$p" > /dev/null 2>&1
done
dpkg-query -W > /dev/null 2>&1
WORK

ppf_record_runs dpkgquery "$RUNS" sh "$SCRATCH/work.sh"
