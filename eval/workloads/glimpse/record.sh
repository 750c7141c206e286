#!/usr/bin/env bash
# Re-record the "glimpse" workload: glimpseindex over the Documentation/ tree of Debian's
# linux-source-6.12 (a tree fixed by a package version), traced by ppf-trace.
#
# Works on a fresh Debian 12 machine as root: installs glimpse, linux-source-6.12 (pinned
# version), strace, python3, xz-utils; unpacks its own copy of Documentation/ into
# ${PPF_WORKDIR:-/var/tmp/ppf-work}/glimpse/src, keeps the index in .../glimpse/index
# (both outside the repo), and writes eval/workloads/glimpse/glimpse.trace.gz.
#
# Environment:
#   PPF_WORKDIR                    work area (default /var/tmp/ppf-work)
#   PPF_TRACE                      recorder (default <repo>/userspace/trace-replay/ppf-trace)
#   PPF_GLIMPSE_ALLOW_OTHER_TREE=1 go on even if the pinned linux-source-6.12 version is not
#                                  available or the unpacked tree differs from the pinned one
#                                  (the trace is then NOT comparable with the committed one)
#   PPF_GLIMPSE_OUT                output trace (default: glimpse.trace.gz beside this script)
set -euo pipefail

say()  { printf 'glimpse/record.sh: %s\n' "$*" >&2; }
die()  { say "ERROR: $*"; exit 1; }

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/../lib.sh"
ppf_recording glimpse  # REPO W PPF_TRACE, the C locale; W itself is the recorded root

SRC="$W/src"
TREE="$SRC/linux-source-6.12/Documentation"
INDEX="$W/index"
OUT="${PPF_GLIMPSE_OUT:-$HERE/glimpse.trace.gz}"
TARBALL=/usr/src/linux-source-6.12.tar.xz

# The tree is pinned by this package version; its content by the digest below
# (sha256 of `sha256sum` over all regular files, paths relative to linux-source-6.12/,
# sorted bytewise), plus the file count and byte total.
LINUX_SOURCE_VERSION="6.12.117-1~deb12u1"
TREE_SHA256="0349464b75308ebe7904280352e8947c0d8f7a16c7dc220b98b5bbdafb64162b"
TREE_FILES=10126
TREE_BYTES=49528053
GLIMPSE_VERSION="4.18.7-6"

allow_other=${PPF_GLIMPSE_ALLOW_OTHER_TREE:-0}
mismatch() {
    if [ "$allow_other" = 1 ]; then
        say "WARNING: $* (going on: PPF_GLIMPSE_ALLOW_OTHER_TREE=1; this trace is not comparable)"
    else
        die "$* -- set PPF_GLIMPSE_ALLOW_OTHER_TREE=1 to record anyway (not comparable)"
    fi
}

pkg_version() { dpkg-query -W -f='${Status} ${Version}\n' "$1" 2>/dev/null \
                  | awk '$3=="installed"{print $4}'; }

# ---------------------------------------------------------------- 1. packages
[ "$(id -u)" = 0 ] || die "run as root (installs packages with apt-get)"
command -v apt-get >/dev/null || die "apt-get not found: this script is for Debian 12"

APT=(apt-get -y -q -o DPkg::Lock::Timeout=900)
export DEBIAN_FRONTEND=noninteractive
updated=0
apt_update_once() { [ $updated = 1 ] || { say "apt-get update"; "${APT[@]}" update >/dev/null; updated=1; }; }

need=()
for p in glimpse strace python3 xz-utils tar gzip; do
    [ -n "$(pkg_version "$p")" ] || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
    apt_update_once
    say "installing: ${need[*]}"
    "${APT[@]}" install "${need[@]}" >/dev/null
fi
gv=$(pkg_version glimpse)
[ "$gv" = "$GLIMPSE_VERSION" ] || say "WARNING: glimpse $gv installed, the committed trace used $GLIMPSE_VERSION"

lv=$(pkg_version linux-source-6.12)
if [ "$lv" != "$LINUX_SOURCE_VERSION" ]; then
    apt_update_once
    if apt-cache madison linux-source-6.12 | awk -F'|' '{gsub(/ /,"",$2); print $2}' \
         | grep -qxF "$LINUX_SOURCE_VERSION"; then
        say "installing linux-source-6.12=$LINUX_SOURCE_VERSION (was: ${lv:-not installed})"
        "${APT[@]}" install --allow-downgrades "linux-source-6.12=$LINUX_SOURCE_VERSION" >/dev/null
    else
        mismatch "linux-source-6.12 $LINUX_SOURCE_VERSION is no longer offered by apt"
        if [ -z "$lv" ]; then
            say "installing the newest linux-source-6.12 instead"
            "${APT[@]}" install linux-source-6.12 >/dev/null
        fi
    fi
fi
[ -f "$TARBALL" ] || die "$TARBALL missing after installing linux-source-6.12"
say "using glimpse $(pkg_version glimpse), linux-source-6.12 $(pkg_version linux-source-6.12)"

# ---------------------------------------------------------------- 2. the tree
# Always a fresh copy of our own (never the /usr/src tree others may build in).
say "unpacking Documentation/ from $TARBALL into $SRC"
# An empty index dir too: the recorder snapshots the root before the run, and index files
# left by an earlier run would be recorded as pre-existing ("pre") instead of created ("new").
rm -rf "$SRC" "$INDEX"
mkdir -p "$SRC" "$INDEX"
tar -xJf "$TARBALL" -C "$SRC" linux-source-6.12/Documentation
[ -d "$TREE" ] || die "tarball did not contain linux-source-6.12/Documentation"

read -r nfiles nbytes < <(find "$TREE" -type f -printf '%s\n' | awk '{s+=$1; n++} END {print n+0, s+0}')
digest=$(cd "$SRC/linux-source-6.12" && find Documentation -type f -print0 | LC_ALL=C sort -z \
           | xargs -0 sha256sum | sha256sum | cut -d' ' -f1)
say "tree: $nfiles files, $nbytes bytes, digest $digest"
if [ "$digest" != "$TREE_SHA256" ] || [ "$nfiles" != "$TREE_FILES" ] || [ "$nbytes" != "$TREE_BYTES" ]; then
    mismatch "tree differs from the pinned one ($TREE_FILES files, $TREE_BYTES bytes, $TREE_SHA256)"
fi

# ---------------------------------------------------------------- 3. record
[ -x "$PPF_TRACE" ] || [ -f "$PPF_TRACE" ] || die "recorder not found: $PPF_TRACE"

# The recorded command. It removes the previous index first, so it can run any number of
# times (the recorder's --untraced-run runs it twice). It removes the whole index directory
# with rm -rf, which unlinks the old files without stat-ing them: `rm -f DIR/.glimpse_*`
# would put stats of the untraced run's index files into the trace, before those files are
# created ("new") in the traced run. LC_ALL=C: the helpers glimpseindex runs through sh
# (sort, mv, echo, sync) then map no locale files, whatever the machine's locale is.
CMD=(env LC_ALL=C sh -c 'rm -rf "$1" && mkdir "$1" && exec glimpseindex -H "$1" "$2"'
     glimpse-run "$INDEX" "$TREE")

say "recording: ${CMD[*]}"
tmp="$OUT.tmp.$$"
trap 'rm -f "$tmp"' EXIT
# Run from the work dir, in the C locale (so /usr/bin/env itself maps no locale files), with
# the recorder's stdout and stderr going to a pipe: were they a regular file (record.sh > log),
# the workload's writes to fds 1 and 2 would be recorded as writes to that file.
(cd "$W" && LC_ALL=C python3 "$PPF_TRACE" record -o "$tmp" --root "$W" --name glimpse \
    --untraced-run -- "${CMD[@]}") 2>&1 | sed -u '/^Warning: ignoring very long word/d'
[ -s "$tmp" ] || die "recorder wrote no trace"
# Compress unless the recorder already wrote gzip.
if gzip -t "$tmp" 2>/dev/null; then mv -f "$tmp" "$OUT"; else gzip -9 -n -c "$tmp" > "$OUT"; rm -f "$tmp"; fi
trap - EXIT

size=$(stat -c %s "$OUT")
say "wrote $OUT ($size bytes)"
[ "$size" -lt $((20 * 1024 * 1024)) ] || say "WARNING: trace is over 20 MB compressed"
python3 "$PPF_TRACE" info "$OUT"
