#!/usr/bin/env bash
# Build ppf's test kernel (Debian linux-source-6.12, tinyconfig + fragments), cached.
#
# Usage: eval/kernel/build.sh [--debug | --series DIR] [--print-dir | --print-src] [-j N]
#   --debug      also apply config/debug.config (KASAN, lockdep, kmemleak, ...)
#   --series DIR the tree with DIR/*.patch applied (scripts/make-patch-series.sh)
#                and config/series.config (CONFIG_PREDICTIVE_PREFETCH=y): ppf
#                built in, as a kernel tree would have it
#   --print-dir  print the build directory and exit without building
#   --print-src  unpack the 6.12 source if needed (with --series: patched),
#                print its directory, exit
#   -j N         parallel jobs (default: nproc)
#
# stdout: exactly one line, the build directory (KDIR), which holds
#   arch/x86/boot/bzImage and is what external modules build against:
#   make -C "$KDIR" M="$PWD"
# Everything else (progress, errors) goes to stderr; the full make output goes
# to $KDIR/build.log.
#
# Cache (outside the repo): ${PPF_CACHE:-/var/cache/ppf}
#   src/linux-source-<debver>/                 unpacked once
#   build/<debver>-<variant>-<hash12>/         O= build dir, one per config
#     .ppf-built                               stamp: complete build
#     ppf-build-key                            inputs of the hash
#     build.log                                make output
# The hash covers the Debian source version, the compiler version, this
# script's RECIPE version and the merged fragments, so a repeated run with the
# same inputs rebuilds nothing and base/debug variants live side by side.
set -Eeuo pipefail

RECIPE=1   # bump when the steps below change in a way that changes the output
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CACHE=${PPF_CACHE:-/var/cache/ppf}
PACKAGES=(linux-source-6.12 build-essential bc bison flex libelf-dev libssl-dev
          cpio xz-utils kmod)

variant=base
print_only=0
print_src=0
series=
jobs=$(nproc)
while [[ $# -gt 0 ]]; do
    case $1 in
        --debug) variant=debug ;;
        --series) variant=series; series=$(realpath "$2"); shift ;;
        --print-dir) print_only=1 ;;
        --print-src) print_src=1 ;;
        -j) jobs=$2; shift ;;
        -j*) jobs=${1#-j} ;;
        -h|--help) sed -n '2,28p' "$0"; exit 0 ;;
        *) echo "build.sh: unknown argument $1" >&2; exit 2 ;;
    esac
    shift
done

log() { echo "build.sh: $*" >&2; }
trap 'log "failed (line $LINENO: $BASH_COMMAND)"' ERR

# Only what is missing; its progress goes to stderr (stdout is KDIR alone).
install_packages() {
    "$HERE/../../scripts/install-deps.sh" --packages "${PACKAGES[@]}" >&2
}

fragments() {
    echo "$HERE/config/base.config"
    [[ $variant == debug ]] && echo "$HERE/config/debug.config"
    [[ $variant == series ]] && echo "$HERE/config/series.config"
    return 0
}

# Unpack /usr/src/linux-source-6.12.tar.xz once; prints the source dir.
unpack_source() {
    local src=$1 tarball=/usr/src/linux-source-6.12.tar.xz
    [[ -f $src/.ppf-unpacked ]] && return 0
    mkdir -p "$CACHE/src"
    (
        flock 9
        [[ -f $src/.ppf-unpacked ]] && exit 0
        log "unpacking $tarball into $src"
        local tmp
        tmp=$(mktemp -d "$CACHE/src/.unpack.XXXXXX")
        tar -C "$tmp" -xJf "$tarball"
        rm -rf "$src"
        mv "$tmp/linux-source-6.12" "$src"
        rmdir "$tmp"
        touch "$src/.ppf-unpacked"
    ) 9>"$src.lock"
}

build_key() {
    local debver=$1 f
    echo "recipe=$RECIPE"
    echo "source=linux-source-6.12 $debver"
    echo "cc=$(gcc --version | head -n1)"
    echo "variant=$variant"
    for f in $(fragments); do
        echo "--- $(basename "$f")"
        cat "$f"
    done
    if [[ -n $series ]]; then
        for f in "$series"/*.patch; do
            echo "--- $(basename "$f") $(sha256sum <"$f" | cut -c1-16)"
        done
    fi
}

# The source with the series applied, beside the pristine one: hard links
# to it, except for the files the patches touch.  Prints its directory.
patched_source() {
    local src=$1 hash=$2 dst f
    dst=$src-series-$hash
    if [[ ! -f $dst/.ppf-patched ]]; then
        log "applying $series/*.patch to a copy of $src"
        rm -rf "$dst"
        cp -al "$src" "$dst"
        for f in $(sed -n 's|^+++ b/||p' "$series"/*.patch | sort -u); do
            if [[ -f $dst/$f ]]; then
                cp --remove-destination "$src/$f" "$dst/$f"
            fi
        done
        for f in "$series"/*.patch; do
            patch -s -p1 -d "$dst" <"$f" >&2
        done
        touch "$dst/.ppf-patched"
    fi
    echo "$dst"
}

# A new config starts from a copy of the newest complete build of the same
# source (same variant preferred): Kbuild then recompiles only what the config
# change affects.  Kbuild tracks config and flags per object, so this is safe.
seed_from_sibling() {
    local out=$1 prefix sib=
    [[ -e $out/.config ]] && return 0
    prefix=${out%-*-*}
    sib=$( (ls -dt "$prefix-$variant"-*/.ppf-built "$prefix"-*/.ppf-built 2>/dev/null || true) |
           head -n1)
    [[ -n $sib ]] || return 0
    sib=$(dirname "$sib")
    log "seeding $out from $sib (incremental rebuild)"
    mkdir -p "$out"
    cp -a "$sib/." "$out/"
    rm -f "$out/.ppf-built" "$out/ppf-build-key" "$out/build.log"
}

# Configure and build in $1 (O= dir) from source $2.
do_build() {
    local out=$1 src=$2 t0 frags
    mapfile -t frags < <(fragments)
    t0=$(date +%s)
    local mk=(make -C "$src" O="$out" ARCH=x86_64 -j"$jobs"
              KBUILD_BUILD_USER=ppf KBUILD_BUILD_HOST=ppf
              KBUILD_BUILD_TIMESTAMP="1970-01-01")
    seed_from_sibling "$out"
    mkdir -p "$out"
    : >"$out/build.log"
    log "configuring $out (tinyconfig + ${frags[*]##*/})"
    {
        "${mk[@]}" tinyconfig
        (cd "$src" && ARCH=x86_64 scripts/kconfig/merge_config.sh -m -O "$out" \
            "$out/.config" "${frags[@]}")
        "${mk[@]}" olddefconfig
    } >>"$out/build.log" 2>&1 || { tail -n 40 "$out/build.log" >&2; return 1; }
    "$HERE/check-config.sh" "$out/.config" "${frags[@]}"
    log "building (-j$jobs), log in $out/build.log"
    if ! "${mk[@]}" all >>"$out/build.log" 2>&1; then
        grep -E 'error|Error' "$out/build.log" | tail -n 20 >&2 || true
        tail -n 20 "$out/build.log" >&2
        return 1
    fi
    log "built in $(( $(date +%s) - t0 )) s"
}

main() {
    install_packages
    local debver key hash src out
    debver=$(dpkg-query -W -f '${Version}' linux-source-6.12 | tr '~:' '__')
    key=$(build_key "$debver")
    hash=$(printf '%s\n' "$key" | sha256sum | cut -c1-12)
    src=$CACHE/src/linux-source-$debver
    out=$CACHE/build/$debver-$variant-$hash
    if [[ $print_only -eq 1 ]]; then
        echo "$out"
        return 0
    fi
    # the source is needed even when cached: KDIR's Makefile points into it
    unpack_source "$src"
    [[ -n $series ]] && src=$(patched_source "$src" "$hash")
    if [[ $print_src -eq 1 ]]; then
        echo "$src"
        return 0
    fi
    if [[ -f $out/.ppf-built && -f $out/arch/x86/boot/bzImage ]]; then
        log "cached: $out"
        echo "$out"
        return 0
    fi
    mkdir -p "$CACHE/build"
    (
        flock 9
        if [[ ! -f $out/.ppf-built ]]; then
            rm -f "$out/.ppf-built"
            do_build "$out" "$src"
            printf '%s\n' "$key" >"$out/ppf-build-key"
            touch "$out/.ppf-built"
        fi
    ) 9>"$out.lock"
    echo "$out"
}

main
