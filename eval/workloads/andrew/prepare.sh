#!/usr/bin/env bash
# Prepare the `andrew` workload's input tree (not traced).
#
# Downloads the pinned libz-sys crate from crates.io (a .tar.gz that vendors
# zlib 1.3.1 with its test programs), checks its sha256, and installs the zlib
# sources this workload compiles, plus this directory's Makefile, as the
# read-only input tree  $SCRATCH/src.  andrew.sh then copies, stats, reads and
# compiles that tree inside $SCRATCH.  Nothing is written into the repository.
#
#   PPF_WORKDIR   work area (default /var/tmp/ppf-work); this workload uses
#                 $PPF_WORKDIR/andrew/ (crate cache) and $PPF_WORKDIR/andrew/scratch
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
W="${PPF_WORKDIR:-/var/tmp/ppf-work}/andrew"
SCRATCH="${ANDREW_SCRATCH:-$W/scratch}"

CRATE=libz-sys
CRATE_VERSION=1.1.16          # vendors zlib 1.3.1 incl. test/example.c, test/minigzip.c
CRATE_SHA256=5e143b5e666b2695d28f6bca6497720813f699c9602dd7f5cac91008b8ada7f9
ZLIB_VERSION=1.3.1
CRATE_FILE="$W/$CRATE-$CRATE_VERSION.crate"
say() { printf 'andrew/prepare: %s\n' "$*" >&2; }
die() { say "ERROR: $*"; exit 1; }
. "$HERE/../lib.sh"

ppf_fetch_crate "$CRATE" "$CRATE_VERSION" "$CRATE_SHA256" "$CRATE_FILE"

# Extract only the zlib sources from the crate.
EX="$W/extract"
rm -rf "$EX"; mkdir -p "$EX"
tar -xzf "$CRATE_FILE" -C "$EX" --strip-components=3 "$CRATE-$CRATE_VERSION/src/zlib"
grep -q "define ZLIB_VERSION \"$ZLIB_VERSION\"" "$EX/zlib.h" \
  || die "crate does not hold zlib $ZLIB_VERSION"

# The input tree: the 15 library .c files and their headers, the two test
# programs, the small top-level documents, and the project's Makefile.
SRC="$SCRATCH/src"
[[ -d "$SCRATCH" ]] && chmod -R u+w "$SCRATCH"
rm -rf "$SCRATCH"; mkdir -p "$SRC/test"
( cd "$EX" && cp -p ./*.c ./*.h README LICENSE ChangeLog FAQ INDEX zlib.3 "$SRC/" )
cp -p "$EX/test/example.c" "$EX/test/minigzip.c" "$SRC/test/"
cp "$HERE/Makefile" "$SRC/Makefile"
chmod -R a-w "$SRC"
rm -rf "$EX"

nc=$(find "$SRC" -name '*.c' | wc -l)
read -r lines bytes < <(find "$SRC" -name '*.c' -exec cat {} + | wc -lc)
nf=$(find "$SRC" -type f | wc -l)
say "input tree $SRC: $nf files; $nc C files, $lines lines, $bytes bytes of C"
