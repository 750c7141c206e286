#!/usr/bin/env bash
# Prepare the `pbuild` workload's input tree (not traced).
#
# Downloads the pinned lzma-sys crate from crates.io (a .tar.gz that vendors
# xz 5.2's sources), checks its sha256, and installs liblzma's and the xz
# program's sources, the crate's config.h and this directory's Makefile as the
# read-only input tree $SCRATCH/src.  pbuild.sh builds it into $SCRATCH/obj.
# Nothing is written into the repository.
#
#   PPF_WORKDIR   work area (default /var/tmp/ppf-work); this workload uses
#                 $PPF_WORKDIR/pbuild/ (crate cache) and $PPF_WORKDIR/pbuild/scratch
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
W="${PPF_WORKDIR:-/var/tmp/ppf-work}/pbuild"
SCRATCH="$W/scratch"

CRATE=lzma-sys
CRATE_VERSION=0.1.20          # vendors xz 5.2 (src/liblzma, src/common, src/xz)
CRATE_SHA256=5fda04ab3764e6cde78b9974eec4f779acaba7c4e84b36eca3cf77c581b85d27
CRATE_FILE="$W/$CRATE-$CRATE_VERSION.crate"
say() { printf 'pbuild/prepare: %s\n' "$*" >&2; }
die() { say "ERROR: $*"; exit 1; }
. "$HERE/../lib.sh"

ppf_fetch_crate "$CRATE" "$CRATE_VERSION" "$CRATE_SHA256" "$CRATE_FILE"

EX="$W/extract"
rm -rf "$EX"; mkdir -p "$EX"
tar -xzf "$CRATE_FILE" -C "$EX" --strip-components=1
SRC="$SCRATCH/src"
[[ -d "$SCRATCH" ]] && chmod -R u+w "$SCRATCH"
rm -rf "$SCRATCH"; mkdir -p "$SRC"
cp -a "$EX/xz-5.2/src/liblzma" "$EX/xz-5.2/src/common" "$EX/xz-5.2/src/xz" "$SRC/"
cp -p "$EX/config.h" "$SRC/"
cp "$HERE/Makefile" "$SRC/Makefile"
chmod -R a-w "$SRC"
rm -rf "$EX"
nc=$(find "$SRC" -name '*.c' | wc -l)
nf=$(find "$SRC" -type f | wc -l)
say "input tree $SRC: $nf files, $nc C files"
