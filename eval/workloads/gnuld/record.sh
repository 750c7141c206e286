#!/usr/bin/env bash
# Re-record the `gnuld` workload trace: GNU ld linking a Linux 6.12 vmlinux.
#
#   eval/workloads/gnuld/record.sh            # install, unpack, build objects, record
#   eval/workloads/gnuld/record.sh --build-only
#   eval/workloads/gnuld/record.sh --prepare-only   # build, check the links and
#                                      # write the link script, then stop before
#                                      # recording (the tree realcheck runs)
#   GNULD_MODE=make eval/workloads/gnuld/record.sh   # record through make vmlinux
#                                      # instead (to gnuld-make.trace.gz)
#
# Everything big lives outside the repo in $PPF_WORKDIR/gnuld (default
# /var/tmp/ppf-work/gnuld). The object build is cached: it is skipped when the
# tree was already built with the same configuration (stamp file).
# Output: eval/workloads/gnuld/gnuld.trace.gz
# Environment: PPF_WORKDIR, PPF_TRACE (the recorder, default
# <repo>/userspace/trace-replay/ppf-trace), JOBS (default 2), GNULD_MODE.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
log() { printf '[gnuld %s] %s\n' "$(date +%H:%M:%S)" "$*"; }
die() { printf '[gnuld] ERROR: %s\n' "$*" >&2; exit 1; }
say() { log "$*"; }    # lib.sh's messages, as this script's
. "$HERE/../lib.sh"
ppf_recording gnuld    # REPO W PPF_TRACE, the C locale
SRC_TARBALL=/usr/src/linux-source-6.12.tar.xz
KDIR="$W/linux-source-6.12"
TRACE_OUT="$HERE/gnuld.trace.gz"
JOBS="${JOBS:-2}"
BUILD_ONLY=0 PREPARE_ONLY=0
[[ "${1:-}" == "--build-only" ]] && BUILD_ONLY=1
[[ "${1:-}" == "--prepare-only" ]] && PREPARE_ONLY=1

# Fixed build identity, so that the link is reproducible and the recipe is
# identical between runs (used by both the build and link.sh; LC_ALL=C
# comes with ppf_recording).
export KBUILD_BUILD_USER=ppf KBUILD_BUILD_HOST=ppf
export KBUILD_BUILD_TIMESTAMP="Thu Jan  1 00:00:00 UTC 2026"
export KBUILD_BUILD_VERSION=1

# --- 1. packages ------------------------------------------------------------
# dwarves (pahole): its version is part of the configuration
# (CONFIG_PAHOLE_VERSION in auto.conf and autoconf.h), so a tree prepared
# without it is not the recording's (realcheck refuses it)
PKGS=(linux-source-6.12 build-essential bc bison flex libelf-dev libssl-dev
      strace xz-utils cpio kmod python3 gzip dwarves)
ppf_ensure_packages "${PKGS[@]}"
[[ -f "$SRC_TARBALL" ]] || die "$SRC_TARBALL not found (linux-source-6.12 not installed?)"

# --- 2. unpack --------------------------------------------------------------
mkdir -p "$W"
if [[ ! -f "$KDIR/Makefile" ]]; then
    log "unpacking $SRC_TARBALL into $W (takes a minute)"
    tar -C "$W" -xf "$SRC_TARBALL"
else
    log "source already unpacked in $KDIR"
fi
cd "$KDIR"
log "kernel version: $(make -s kernelversion)"

# --- 3. configure -----------------------------------------------------------
# x86_64_defconfig (the upstream default x86-64 configuration), with loadable
# modules turned off: `make vmlinux` then builds exactly what the link uses and
# the build is shorter. Kconfig turns the former =m options into =y or off.
configure() {
    make -s x86_64_defconfig
    scripts/config --disable MODULES
    make -s olddefconfig
}
STAMP="$W/.built-config.sha256"
want_cfg=$( (cat arch/x86/configs/x86_64_defconfig; echo "MODULES=n";
             gcc --version | head -1; ld --version | head -1
             pahole --version 2>/dev/null) | sha256sum | cut -d' ' -f1)
# (vmlinux itself is no marker: link.sh deletes it; objects are never deleted)
if [[ -f "$STAMP" && "$(cat "$STAMP")" == "$want_cfg" && -f .config && -f init/main.o && -f kernel/fork.o ]]; then
    log "objects already built with this configuration (stamp $STAMP): skipping build"
else
    log "configuring: x86_64_defconfig, MODULES disabled"
    rm -f "$STAMP"
    configure
    # --- 4. build objects (once) -------------------------------------------
    log "building vmlinux with make -j$JOBS (20-40 min on 2 cores); log in $W/build.log"
    start=$(date +%s)
    if ! make -j"$JOBS" vmlinux >"$W/build.log" 2>&1; then
        tail -30 "$W/build.log" >&2
        die "kernel build failed, see $W/build.log"
    fi
    log "build done in $(( $(date +%s) - start )) s"
    echo "$want_cfg" >"$STAMP"
fi
((BUILD_ONLY)) && { log "--build-only: done"; exit 0; }

# --- 5. check the link steps; generate the direct script ---------------------
# (`make -n vmlinux` is no help here: kbuild's dry run prints recipes for
# FORCE/if_changed targets it cannot evaluate without running them, e.g.
# HOSTCC scripts/mod/*.o, and exits 2, while a real run compiles nothing.)
# Link 1 (link.sh make, untraced) may legitimately refresh init/version.o
# (utsversion-tmp.h, if the tree was built by something else than this script)
# and warms the page cache. Link 2 (make vmlinux) must compile nothing; its
# output gives the archive order for gen-link-cmds.py. Link 3 runs the
# generated script and must produce bit-identical vmlinux, vmlinux.o and
# System.map.
CHECK_LOG="$W/link-check.log"
"$HERE/link.sh" reset "$KDIR"
log "check link 1/3: link.sh make (untraced, about 30 s)"
"$HERE/link.sh" make "$KDIR" >"$CHECK_LOG" 2>&1 || {
    tail -30 "$CHECK_LOG" >&2; die "link failed, see $CHECK_LOG"; }
log "check link 2/3: make vmlinux"
"$HERE/link.sh" reset "$KDIR"
make vmlinux >"$CHECK_LOG" 2>&1 || { tail -30 "$CHECK_LOG" >&2; die "link failed, see $CHECK_LOG"; }
# the only assembler runs a link does by design are the kallsyms tables
if grep -E '^  (CC|AS|CPP|HOSTCC|HOSTLD) ' "$CHECK_LOG" | grep -v kallsyms; then
    die "the link step compiled something (see $CHECK_LOG)"
fi
log "make vmlinux: $(grep -cE '^  (AR|LD|MODPOST|KSYMS|AS|NM|SORTTAB|OBJCOPY|GEN|RELOCS|RSTRIP) ' "$CHECK_LOG") link commands, no compilation"
sums_make=$(sha256sum vmlinux vmlinux.o System.map)
make -s run-command KBUILD_RUN_COMMAND="env -0 > $KDIR/.ppf-gnuld-env"
python3 "$HERE/gen-link-cmds.py" "$KDIR" "$CHECK_LOG" "$KDIR/.ppf-gnuld-env"
log "check link 3/3: the generated script .ppf-gnuld-link-cmds.sh"
"$HERE/link.sh" reset "$KDIR"
sh .ppf-gnuld-link-cmds.sh >"$W/link-direct-check.log" 2>&1 || {
    tail -30 "$W/link-direct-check.log" >&2; die "direct link failed"; }
[[ "$(sha256sum vmlinux vmlinux.o System.map)" == "$sums_make" ]] ||
    die "the direct link script does not reproduce make's vmlinux"
log "direct script reproduces make's vmlinux, vmlinux.o, System.map bit for bit"
"$HERE/link.sh" reset "$KDIR"

((PREPARE_ONLY)) && { log "--prepare-only: done"; exit 0; }

# --- 6. record ----------------------------------------------------------------
# GNULD_MODE=direct (default): the link commands only (the committed trace).
# GNULD_MODE=make: through make vmlinux (adds make's up-to-date checks).
MODE="${GNULD_MODE:-direct}"
[[ "$MODE" == direct || "$MODE" == make ]] || die "GNULD_MODE must be direct or make"
[[ "$MODE" == make ]] && TRACE_OUT="$HERE/gnuld-make.trace.gz"
log "waiting for the recorder $PPF_TRACE"
for _ in $(seq 1 120); do [[ -x "$PPF_TRACE" ]] && break; sleep 30; done
[[ -x "$PPF_TRACE" ]] || die "recorder $PPF_TRACE not found"
log "recording the link steps ($MODE): untraced calibration run + traced run"
sync
"$PPF_TRACE" record -o "$TRACE_OUT" --root "$KDIR" --name gnuld --untraced-run \
    -- "$HERE/link.sh" "$MODE" "$KDIR" >"$W/record-$MODE.out" 2>&1 || {
    tail -30 "$W/record-$MODE.out" >&2; die "recording failed, see $W/record-$MODE.out"; }
grep '^ppf-trace' "$W/record-$MODE.out" || true
ls -l "$TRACE_OUT"
"$PPF_TRACE" info "$TRACE_OUT"
log "image: vmlinux $(stat -c %s "$KDIR/vmlinux") bytes; objects: $(ar t "$KDIR/vmlinux.a" | wc -l) in vmlinux.a, $(ar t "$KDIR/lib/lib.a" | wc -l) in lib/lib.a, $(ar t "$KDIR/arch/x86/lib/lib.a" | wc -l) in arch/x86/lib/lib.a"
log "done: $TRACE_OUT"
