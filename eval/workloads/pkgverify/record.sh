#!/usr/bin/env bash
# Record the `pkgverify` workload: the installed files of three packages
# checked against their recorded checksums, as debsums(1) does and as an
# administrator does after a disk scare: md5sum -c over each package's
# /var/lib/dpkg/info/PKG.md5sums, one md5sum process a package, each
# reading its package's files whole, in the list's order, across the
# package's directories (perl-modules-5.36: 1,199 files; git: 702;
# libpython3.11-stdlib: 321).
#
#   eval/workloads/pkgverify/record.sh [RUNS]        (default 2)
#
# Writes eval/workloads/pkgverify/pkgverify-I.trace.gz for I = 1..RUNS.
# Installs what is missing from Debian (as root): strace, and the three
# packages.  Recorded by the session that built task runs
# (docs/admin-guide.md, "Task runs"), as a workload that mechanism was not
# tuned on.
#
# Environment: PPF_WORKDIR (default /var/tmp/ppf-work; uses $PPF_WORKDIR/pkgverify),
# PPF_TRACE (default <repo>/userspace/trace-replay/ppf-trace).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$HERE/../lib.sh"
ppf_record_begin pkgverify "${1:-}"  # say die REPO W SCRATCH PPF_TRACE RUNS, the C locale
ppf_ensure_packages strace perl-modules-5.36 git libpython3.11-stdlib
ppf_need_recorder
command -v md5sum >/dev/null || die "md5sum not found (install coreutils)"

rm -rf "$W"; mkdir -p "$SCRATCH"
cat > "$SCRATCH/work.sh" <<'WORK'
cd /
for p in perl-modules-5.36 git libpython3.11-stdlib:amd64; do
  md5sum -c --quiet "/var/lib/dpkg/info/$p.md5sums" > /dev/null 2>&1
done
WORK

ppf_record_runs pkgverify "$RUNS" sh "$SCRATCH/work.sh"
