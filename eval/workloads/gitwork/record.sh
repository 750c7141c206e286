#!/usr/bin/env bash
# Record the `gitwork` workload: everyday git commands (status, log --stat,
# grep, diff --stat, show) on a repository of 1,600 files of the kernel's
# Documentation (networking/ and filesystems/), three commits, loose objects.
#
#   eval/workloads/gitwork/record.sh [RUNS]          (default 2)
#
# Writes eval/workloads/gitwork/gitwork-I.trace.gz for I = 1..RUNS.  Needs
# the 6.12 kernel source that eval/kernel/build.sh unpacks under
# ${PPF_CACHE:-/var/cache/ppf}/src (or SRC=DIR with a Documentation/), and
# installs what is missing from Debian (as root): git strace.  Recorded by
# a session as a workload ppf was not tuned on: git grep reads the tree
# with two threads from one work queue, so the order of its opens differs
# from run to run.
#
# Environment: PPF_WORKDIR (default /var/tmp/ppf-work; uses $PPF_WORKDIR/gitwork),
# PPF_TRACE (default <repo>/userspace/trace-replay/ppf-trace), SRC.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$HERE/../lib.sh"
ppf_record_begin gitwork "${1:-}"  # say die REPO W SCRATCH PPF_TRACE RUNS, the C locale
ppf_ensure_packages git strace
ppf_need_recorder
SRC="${SRC:-$(ls -d "${PPF_CACHE:-/var/cache/ppf}"/src/linux-source-6.12*/ 2>/dev/null | head -n 1)}"
D="${SRC%/}/Documentation"
[[ -d "$D/networking" && -d "$D/filesystems" ]] \
  || die "no kernel Documentation at '$D' (run eval/kernel/build.sh, or set SRC)"

rm -rf "$W"; mkdir -p "$SCRATCH/repo"
cp -r "$D/networking" "$D/filesystems" "$SCRATCH/repo/"
cd "$SCRATCH/repo"
git init -q
git config user.email ppf@example.org
git config user.name ppf
git add -A
git commit -qm one
git ls-files | head -300 | while read -r f; do echo changed >> "$f"; done
git commit -qam two
git ls-files | tail -300 | while read -r f; do echo again >> "$f"; done
git commit -qam three
say "$(git ls-files | wc -l) files, $(find .git/objects -type f | wc -l) objects"
cat > "$SCRATCH/work.sh" <<'EOS'
cd "$1"
git status > /dev/null
git log --stat -3 > /dev/null
git grep -n spin_lock > /dev/null
git diff HEAD~2 --stat > /dev/null
git show HEAD~1 > /dev/null
EOS

ppf_record_runs gitwork "$RUNS" bash "$SCRATCH/work.sh" "$SCRATCH/repo"
