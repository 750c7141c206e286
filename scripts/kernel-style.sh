#!/usr/bin/env bash
# kernel-style.sh - the kernel's own style checks on the kernel-side C
#
# checkpatch.pl --strict and kernel-doc (-Wall) from the 6.12 source tree
# that eval/kernel/build.sh unpacks (so this runs after it, or unpacks it).
# Prints one line per finding and closes with "N passed, N failed" (one check
# per file and tool).
set -uo pipefail
cd "$(dirname "$0")/.."
CACHE=${PPF_CACHE:-/var/cache/ppf}
src=$(ls -d "$CACHE"/src/linux-source-6.12* 2>/dev/null | head -n 1)
if [[ -z $src ]]; then
	eval/kernel/build.sh --print-dir >/dev/null 2>&1 || true
	src=$(ls -d "$CACHE"/src/linux-source-6.12* 2>/dev/null | head -n 1)
fi
if [[ -z $src || ! -x $src/scripts/checkpatch.pl ]]; then
	echo "kernel-style: no 6.12 source tree under $CACHE/src (run eval/kernel/build.sh)"
	echo "0 passed, 1 failed"
	exit 1
fi
files=(Kbuild Kconfig fs/hooks/*.[ch] mm/prefetch/*.[ch] models/*.[ch]
	eval/blkdev/Kbuild eval/blkdev/*.[ch])
pass=0
fail=0
for f in "${files[@]}"; do
	ignore=()
	# The one place that tests the kernel's version, on purpose (its header
	# says why): the version tests themselves, and the argument 6.10's
	# __assign_str() no longer takes.
	[[ $f == mm/prefetch/compat.h ]] &&
		ignore=(--ignore LINUX_VERSION_CODE,CONSTANT_COMPARISON,MACRO_ARG_UNUSED)
	out=$("$src/scripts/checkpatch.pl" --strict --no-tree --terse --show-types "${ignore[@]}" -f "$f" 2>&1 | grep -v '^total:')
	if [[ -n $out ]]; then echo "$out"; fail=$((fail + 1)); else pass=$((pass + 1)); fi
	case $f in
	*.c|*.h)
		out=$("$src/scripts/kernel-doc" -none -Wall "$f" 2>&1)
		if [[ -n $out ]]; then echo "$out"; fail=$((fail + 1)); else pass=$((pass + 1)); fi
		;;
	esac
done
echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
