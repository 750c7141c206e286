#!/usr/bin/env bash
# Build a busybox initramfs (newc cpio) for ppf's test VM.
#
# Usage: eval/vm/initramfs.sh -o OUT.cpio[.gz] [options]
#   -o FILE            output; compressed with gzip when FILE ends in .gz
#                      (uncompressed unpacks faster under TCG; gzip is smaller)
#   --cmd 'CMD'        bake a default command into /ppf/cmd.sh
#   --script FILE      bake FILE in as /ppf/cmd.sh (run with /bin/sh)
#   --add SRC[:DEST]   copy a file or directory (DEST default: /ppf/<name>)
#   --bin PATH[:DEST]  copy an executable plus the shared libraries ldd lists
#                      (DEST default: /usr/bin/<name>); static binaries work too
#   --fio              shorthand for --bin fio (Debian package fio)
#   --blktrace         shorthand for --bin blktrace --bin blkparse --bin btt
#
# Always included: busybox (static, all applets in /bin), /init, and
# /usr/bin/ppf-clock (prints CLOCK_MONOTONIC in ns; see ppf-clock.c).
# The /init it installs mounts proc, sys, devtmpfs, tmpfs (/tmp, /run), debugfs
# and tracefs, then runs the first of:
#   /ppf/cmd.sh                  (baked in, or appended at boot by run.py as a
#                                 second cpio archive)
#   ppf.cmd64=<base64 of CMD>    on the kernel command line
# and prints "<<<PPF-EXIT nonce=N rc=RC>>>" (N from ppf.nonce= on the command
# line), then powers off.  See eval/vm/README.md.
set -euo pipefail
umask 022  # the archive's modes do not depend on the caller's umask

STAGING=
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=
cmd=
script=
adds=()
bins=()
pkgs=(busybox-static cpio gcc libc6-dev)

while [[ $# -gt 0 ]]; do
    case $1 in
        -o) out=$2; shift ;;
        --cmd) cmd=$2; shift ;;
        --script) script=$2; shift ;;
        --add) adds+=("$2"); shift ;;
        --bin) bins+=("$2"); shift ;;
        --fio) bins+=(/usr/bin/fio); pkgs+=(fio) ;;
        --blktrace) bins+=(/usr/sbin/blktrace /usr/bin/blkparse /usr/bin/btt); pkgs+=(blktrace) ;;
        -h|--help) sed -n '2,26p' "$0"; exit 0 ;;
        *) echo "initramfs.sh: unknown argument $1" >&2; exit 2 ;;
    esac
    shift
done
[[ -n $out ]] || { echo "initramfs.sh: -o OUT is required" >&2; exit 2; }

log() { echo "initramfs.sh: $*" >&2; }

install_packages() {
    "$HERE/../../scripts/install-deps.sh" --packages "$@" >&2
}

# copy_bin ROOT PATH DEST: executable + its ldd libraries at their host paths
copy_bin() {
    local root=$1 src=$2 dest=$3 lib
    [[ $src == */* ]] || src=$(command -v "$src")
    install -D -m 0755 "$src" "$root$dest"
    # "not a dynamic executable" (static) makes ldd fail: nothing to copy then
    while read -r lib; do
        [[ -n $lib && -e $lib ]] || continue
        [[ -e $root$lib ]] || install -D -m 0755 "$(readlink -f "$lib")" "$root$lib"
    done < <(ldd "$src" 2>/dev/null | awk '/=>/ {print $3} /^[ \t]*\// {print $1}')
}

main() {
    install_packages "${pkgs[@]}"
    local item src dest applet root
    root=$(mktemp -d)
    STAGING=$root
    trap 'rm -rf "$STAGING"' EXIT
    mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,dev,proc,sys,tmp,run,mnt,root,etc,lib,lib64,ppf}
    install -m 0755 /bin/busybox "$root/bin/busybox"
    for applet in $(/bin/busybox --list); do
        [[ $applet == busybox ]] || ln -sf busybox "$root/bin/$applet"
    done
    install -m 0755 "$HERE/init" "$root/init"
    # guest clock in ns for timing inside the guest (busybox date has no %N)
    gcc -static -O2 -Wall -o "$root/usr/bin/ppf-clock" "$HERE/ppf-clock.c"
    # initial console; without root the node is skipped and /init redirects
    # to /dev/console after mounting devtmpfs
    mknod -m 0600 "$root/dev/console" c 5 1 2>/dev/null || true
    echo "root:x:0:0:root:/root:/bin/sh" >"$root/etc/passwd"
    echo "root:x:0:" >"$root/etc/group"

    if [[ -n $script ]]; then
        install -m 0755 "$script" "$root/ppf/cmd.sh"
    elif [[ -n $cmd ]]; then
        printf '%s\n' "$cmd" >"$root/ppf/cmd.sh"
    fi
    for item in "${bins[@]}"; do
        src=${item%%:*}
        dest=${item#*:}
        [[ $dest == "$item" ]] && dest=/usr/bin/$(basename "$src")
        copy_bin "$root" "$src" "$dest"
    done
    for item in "${adds[@]}"; do
        src=${item%%:*}
        dest=${item#*:}
        [[ $dest == "$item" ]] && dest=/ppf/$(basename "$src")
        mkdir -p "$(dirname "$root$dest")"
        cp -a "$src" "$root$dest"
    done

    # One fixed mtime (the guest's RTC base, 2025-01-01): the archive is then
    # the same bytes at every rebuild.  It must be: the kernel parses every
    # cpio header digit by digit (lib/earlycpio.c for ACPI table overrides,
    # init/initramfs.c), a hex letter costs more instructions than a digit, and
    # under -icount instructions are time.  The build time in the headers made
    # the boot a few microseconds longer or shorter, and the measurements of
    # one harness run 0.014 % apart from another's (docs/results.md).
    find "$root" -mindepth 1 -exec touch -h -d @1735689600 {} +
    local tmpout
    tmpout=$(mktemp "$(dirname "$out")/.initramfs.XXXXXX")
    (cd "$root" && find . -mindepth 1 | LC_ALL=C sort |
        cpio --quiet -o -H newc -R 0:0 --reproducible) >"$tmpout.cpio"
    if [[ $out == *.gz ]]; then
        gzip -n -6 <"$tmpout.cpio" >"$tmpout"
        rm -f "$tmpout.cpio"
    else
        mv "$tmpout.cpio" "$tmpout"
    fi
    chmod 0644 "$tmpout"
    mv "$tmpout" "$out"
    log "wrote $out ($(du -h "$out" | cut -f1))"
}

main
