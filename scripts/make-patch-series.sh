#!/usr/bin/env bash
# make-patch-series.sh [--tree SRC] OUTDIR - ppf as a patch series for a 6.12 tree
#
# Writes OUTDIR/0001-*.patch ... (git format-patch) that add ppf to a Linux
# 6.12 tree as mm/ppf/, built in with CONFIG_PREDICTIVE_PREFETCH=y or as a
# module with =m, and its admin guide as
# Documentation/admin-guide/mm/predictive_prefetch.rst:
#
#   1. the models (mm/ppf/models/), portable C, and the MAINTAINERS entry
#   2. compat.h, the one header that knows kernel versions (it is what lets
#      the same sources build as a module for 6.1), resolved for the tree's
#      version by scripts/resolve-kernel-version.py: the series tests none
#   3. the hooks and the prefetch engine, Kconfig and Kbuild, wired into
#      mm/Kconfig and mm/Makefile
#   4. the admin guide, converted from docs/admin-guide.md by pandoc
#
# The sources are the project's own files, unchanged but for compat.h's
# resolved version tests: the series is a way
# to deliver them, not a fork.  SRC (default: the 6.12 tree eval/kernel/build.sh
# unpacks) gives the three files the series edits; the patches apply with
# `git am` or `patch -p1`.  PPF_SIGNOFF overrides the Signed-off-by
# (default: "ppf developers <ppf@localhost>"); a real submission carries its
# author's own.  tests/series/test_series.py applies the series, runs
# checkpatch on it and builds the tree with CONFIG_PREDICTIVE_PREFETCH=y.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
tree=
while [[ $# -gt 1 ]]; do
	case $1 in
	--tree) tree=$2; shift 2 ;;
	*) echo "make-patch-series: unknown option $1" >&2; exit 2 ;;
	esac
done
[[ $# -eq 1 ]] || { echo "usage: make-patch-series.sh [--tree SRC] OUTDIR" >&2; exit 2; }
out=$(realpath -m "$1")
[[ -n $tree ]] || tree=$("$TOP/eval/kernel/build.sh" --print-src)
for f in mm/Makefile mm/Kconfig Documentation/admin-guide/mm/index.rst MAINTAINERS; do
	[[ -f $tree/$f ]] || { echo "make-patch-series: $tree is not a kernel tree (no $f)" >&2; exit 1; }
done
# The tree's version, for compat.h (its top Makefile's VERSION and PATCHLEVEL).
kver=$(awk -F' = ' '$1 == "VERSION" { v = $2 } $1 == "PATCHLEVEL" { p = $2 }
	END { if (v != "" && p != "") print v "." p }' "$tree/Makefile")
[[ -n $kver ]] || { echo "make-patch-series: no VERSION and PATCHLEVEL in $tree/Makefile" >&2; exit 1; }
command -v pandoc >/dev/null || "$TOP/scripts/install-deps.sh" --packages pandoc
command -v git >/dev/null || "$TOP/scripts/install-deps.sh" --packages git

signoff=${PPF_SIGNOFF:-ppf developers <ppf@localhost>}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
repo=$work/linux
mkdir -p "$repo"
cd "$repo"
export GIT_AUTHOR_NAME=${signoff% <*} GIT_AUTHOR_EMAIL=${signoff##*<}
GIT_AUTHOR_EMAIL=${GIT_AUTHOR_EMAIL%>}
export GIT_COMMITTER_NAME=$GIT_AUTHOR_NAME GIT_COMMITTER_EMAIL=$GIT_AUTHOR_EMAIL
export GIT_AUTHOR_DATE="2026-01-01T00:00:00Z" GIT_COMMITTER_DATE="2026-01-01T00:00:00Z"
git init -q
for f in mm/Makefile mm/Kconfig Documentation/admin-guide/mm/index.rst MAINTAINERS; do
	install -D -m 0644 "$tree/$f" "$f"
done
git add -A
git commit -q -m "base: the files of the tree the series edits"

commit() {	# SUBJECT BODY: commit what is staged
	git add -A
	git commit -q -F - <<-MSG
	$1

	$2

	Signed-off-by: $signoff
	MSG
}

# 1. The models, and who maintains the whole.
mkdir -p mm/ppf/models
cp "$TOP"/models/*.[ch] mm/ppf/models/
python3 - MAINTAINERS <<'PY'
import re
import sys
path = sys.argv[1]
title = "PREDICTIVE PAGE-CACHE PREFETCHING (PPF)"
entry = [title, "M:\tppf developers <ppf@localhost>", "L:\tlinux-mm@kvack.org",
         "S:\tMaintained", "F:\tDocumentation/admin-guide/mm/predictive_prefetch.rst",
         "F:\tmm/ppf/", ""]
lines = open(path).read().split("\n")
# A section is a title line followed by "X:<tab>" lines; they are sorted.
for i in range(len(lines) - 1):
    if (lines[i] and not lines[i][0].isspace() and re.match(r"[A-Z]:\t", lines[i + 1])
            and lines[i] > title):
        lines[i:i] = entry
        break
else:
    raise SystemExit("make-patch-series: no place for the MAINTAINERS entry")
open(path, "w").write("\n".join(lines))
PY
commit "mm/ppf: file-open prediction models (last successor, PCM, EPCM)" \
"Predictive page-cache prefetching learns the order in which files are
opened and reads the files a program is about to need before it asks.
This adds the models it predicts with, after Kroeger and Long, USENIX
2001: last successor, and the partitioned context models PCM and EPCM,
with the format a learnt state is saved in and its parser.
They are portable C (no libc, no allocation after creation, no floating
point) shared with the project's userspace simulator and tests; nothing
builds them yet."

# 2. The version seam, resolved for the tree: code in a tree targets that
# tree, so the series carries no LINUX_VERSION_CODE test.
mkdir -p mm/ppf/mm/prefetch
python3 "$TOP/scripts/resolve-kernel-version.py" "$kver" "$TOP/mm/prefetch/compat.h" \
	> "$work/compat.h"
cp "$work/compat.h" mm/ppf/mm/prefetch/
commit "mm/ppf: one header for the interfaces that changed since 6.1" \
"The same sources also build as an external module for Debian 12's 6.1
kernel.  The interfaces that changed between 6.1 and 6.12 are wrapped in
this one header, each under the version that brought it; for this tree
the wrappers are written as $kver spells them, with no version test."

# 3. The module, wired into mm/ (compat.h as step 2 wrote it).
mkdir -p mm/ppf/fs/hooks
cp "$TOP"/fs/hooks/*.[ch] mm/ppf/fs/hooks/
cp "$TOP"/mm/prefetch/*.[ch] mm/ppf/mm/prefetch/
cp "$work/compat.h" mm/ppf/mm/prefetch/
cp "$TOP/Kbuild" "$TOP/Kconfig" mm/ppf/
printf '\nobj-$(CONFIG_PREDICTIVE_PREFETCH) += ppf/\n' >> mm/Makefile
python3 - mm/Kconfig <<'PY'
import sys
path = sys.argv[1]
text = open(path).read()
anchor = 'source "mm/damon/Kconfig"\n'
if anchor not in text:
    raise SystemExit("make-patch-series: mm/Kconfig has no " + anchor.strip())
open(path, "w").write(text.replace(anchor, anchor + '\nsource "mm/ppf/Kconfig"\n', 1))
PY
commit "mm/ppf: predictive page-cache prefetching" \
"Hooks file opens and execs (fsnotify superblock marks) and page-cache
reads (the filemap tracepoints), feeds them to the chosen model in a
worker, and starts asynchronous readahead of the files it predicts,
paced so that a task's own reads do not wait behind it, and paused on a
device where it does not pay.  Files are remembered by file handle,
never by reference.  Off until vm.predictive_prefetch.enabled=1; every
setting is a sysctl under vm.predictive_prefetch, the counters are in
/proc/predictive_prefetch, and tracepoints name each decision.  What was
learnt can be saved and loaded (across reboots) through
/proc/predictive_prefetch_state, by CAP_SYS_ADMIN only."

# 4. The admin guide.
rst=Documentation/admin-guide/mm/predictive_prefetch.rst
{
	echo ".. SPDX-License-Identifier: GPL-2.0"
	echo
	pandoc -f gfm -t rst --columns=80 "$TOP/docs/admin-guide.md" |
		awk 'NR == 1 { title = $0; next }
		     NR == 2 { print $0; print title; print $0; next }
		     { print }'
} > "$rst"
python3 - Documentation/admin-guide/mm/index.rst <<'PY'
import sys
path = sys.argv[1]
text = open(path).read()
if "   pagemap\n" not in text:
    raise SystemExit("make-patch-series: no pagemap entry in " + path)
open(path, "w").write(text.replace("   pagemap\n", "   pagemap\n   predictive_prefetch\n", 1))
PY
commit "Documentation/admin-guide/mm: predictive page-cache prefetching" \
"How to enable and tune predictive prefetching, its settings, counters,
tracepoints, cost, limits and security notes."

rm -rf "$out"
mkdir -p "$out"
git format-patch -q -o "$out" HEAD~4..HEAD
ls "$out"/*.patch
