#!/usr/bin/env bash
# Re-record the ppf `andrew` workload trace from scratch.
#
#   eval/workloads/andrew/record.sh
#
# 1. installs what it needs from Debian (as root, only what is missing):
#      gcc make binutils strace curl ca-certificates python3 tar gzip
#      coreutils findutils
# 2. prepare.sh: downloads the pinned libz-sys crate (zlib 1.3.1) from
#    crates.io, checks its sha256, installs the input tree in the scratch dir
# 3. runs the recorder on andrew.sh with --root set to the scratch dir:
#      userspace/trace-replay/ppf-trace record --untraced-run ...
# 4. writes eval/workloads/andrew/andrew.trace.gz and prints `ppf-trace info`
#
# Environment:
#   PPF_WORKDIR          work area (default /var/tmp/ppf-work); uses $PPF_WORKDIR/andrew
#   PPF_TRACE            recorder (default <repo>/userspace/trace-replay/ppf-trace)
#   ANDREW_DROP_CACHES=1 sync and drop the page cache before recording
#                        (machine-wide; off by default)
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$HERE/../lib.sh"
ppf_messages andrew/record
ppf_recording andrew   # REPO W SCRATCH PPF_TRACE, the C locale (andrew.sh sets it too)
OUT="$HERE/andrew.trace.gz"

# --- 1. packages -----------------------------------------------------------
PKGS=(gcc make binutils strace curl ca-certificates python3 tar gzip coreutils findutils)
ppf_ensure_packages "${PKGS[@]}"
say "$(gcc --version | head -1); $(make --version | head -1); $(strace -V | head -1)"

# --- 2. sources --------------------------------------------------------------
"$HERE/prepare.sh"
# The driver runs from inside the root, so the whole workload but the system
# and toolchain files lies under the root.
cp "$HERE/andrew.sh" "$SCRATCH/andrew.sh"

# --- 3. record -------------------------------------------------------------------
[[ -x "$PPF_TRACE" ]] || die "recorder not found at $PPF_TRACE"
if [[ "${ANDREW_DROP_CACHES:-0}" == 1 ]]; then
  say "dropping the page cache"
  sync; echo 3 >/proc/sys/vm/drop_caches
fi
TMP_OUT="$W/andrew.trace"
rm -f "$TMP_OUT" "$TMP_OUT.gz"
say "recording: $PPF_TRACE record --root $SCRATCH --name andrew --untraced-run -- bash ./andrew.sh $SCRATCH"
( cd "$SCRATCH" && "$PPF_TRACE" record -o "$TMP_OUT" --root "$SCRATCH" --name andrew \
    --untraced-run -- bash ./andrew.sh "$SCRATCH" )
[[ -s "$TMP_OUT" ]] || die "recorder wrote no trace"

# Sanity check the build the traced run made (not traced).
( cd "$SCRATCH/tmp" && "$SCRATCH/tree/zexample" "$SCRATCH/tmp/check.gz" >/dev/null ) \
  || die "the built zexample failed its self-test"
rm -f "$SCRATCH/tmp/check.gz"

# --- 4. install + report -----------------------------------------------------
if [[ "$(head -c2 "$TMP_OUT" | od -An -tx1 | tr -d ' ')" == 1f8b ]]; then
  mv "$TMP_OUT" "$OUT"            # the recorder already compressed it
else
  gzip -9 -n -c "$TMP_OUT" >"$OUT.part" && mv "$OUT.part" "$OUT" && rm -f "$TMP_OUT"
fi
say "wrote $OUT ($(stat -c %s "$OUT") bytes)"
"$PPF_TRACE" info "$OUT"
