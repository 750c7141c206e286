#!/usr/bin/env bash
# Smoke test of the test-VM harness: build (cached) kernel, build initramfs,
# boot, run commands, check exit-status paths, null_blk timing and icount
# determinism.  Prints what it measured and ends with "N passed, N failed".
#
# Usage: eval/vm/selftest.sh [--debug]   (--debug: the KASAN/lockdep kernel)
# Env:   PPF_CACHE (kernel cache, default /var/cache/ppf)
#        PPF_VM_WORK (scratch dir for initramfs and logs, default: mktemp -d)
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
WORK=${PPF_VM_WORK:-$(mktemp -d /tmp/ppf-vm-selftest.XXXXXX)}
mkdir -p "$WORK"
build_args=("$@")
pass=0
fail=0

ok()  { pass=$((pass + 1)); echo "selftest: PASS $*"; }
bad() { fail=$((fail + 1)); echo "selftest: FAIL $*"; }

# run_vm NAME [run.py args...]: sets VM_RC, log in $WORK/NAME.log, json in NAME.json
# (run.py as a module, from the top of the tree; every path here is absolute)
run_vm() {
    local name=$1
    shift
    (cd "$REPO" && python3 -m eval.vm.run --kernel "$KDIR" --initrd "$WORK/initramfs.cpio" -q \
        --log "$WORK/$name.log" --json "$WORK/$name.json" "$@")
    VM_RC=$?
}

json() { python3 -c "import json,sys; v=json.load(open(sys.argv[1]))[sys.argv[2]]; print(round(v, 2) if isinstance(v, float) else v)" "$@"; }

# guest-measured elapsed ns of the dd, printed by the guest as "DD_NS=<n>"
dd_ns() { sed -n 's/.*DD_NS=\([0-9]*\).*/\1/p' "$1" | head -n1; }

# 0. host-side unit tests of run.py (marker/splat parsing, cpio overlay)
if (cd "$REPO" && python3 -m tests.vm.test_run) >"$WORK/unit.log" 2>&1; then
    ok "run.py unit tests ($(grep -o 'Ran [0-9]* tests' "$WORK/unit.log"))"
else
    bad "run.py unit tests (see $WORK/unit.log)"
fi

t0=$(date +%s)
KDIR=$("$REPO/eval/kernel/build.sh" "${build_args[@]}") || { bad "kernel build"; exit 1; }
t1=$(date +%s)
echo "selftest: kernel $KDIR (build.sh took $((t1 - t0)) s)"
"$HERE/initramfs.sh" -o "$WORK/initramfs.cpio" || { bad "initramfs"; exit 1; }
echo "selftest: initramfs built in $(( $(date +%s) - t1 )) s; work dir $WORK"

# 1. basic boot
run_vm basic --cmd 'cat /proc/version; mount; ls /dev/nullb0'
if [[ $VM_RC -eq 0 ]] && grep -q 'Linux version 6.12' "$WORK/basic.log" \
        && grep -q '^/dev/nullb0' "$WORK/basic.log"; then
    ok "basic boot: rc 0, /proc/version, /dev/nullb0 (host boot $(json "$WORK/basic.json" host_boot_s) s, host total $(json "$WORK/basic.json" host_total_s) s)"
else
    bad "basic boot (run.py exit $VM_RC, log $WORK/basic.log)"
fi

# 2. a failing command's status comes back
run_vm failing --cmd 'echo about to fail; exit 3'
[[ $VM_RC -eq 3 ]] && ok "failing command: exit 3 returned" \
    || bad "failing command: expected 3, got $VM_RC"

# 3. a kernel panic is a harness failure, not a command status
run_vm panic --cmd 'echo c > /proc/sysrq-trigger; sleep 5'
[[ $VM_RC -eq 100 ]] && ok "kernel panic detected (exit 100)" \
    || bad "kernel panic: expected 100, got $VM_RC"

# 4. a hung guest hits the host timeout
run_vm hang --timeout 20 --cmd 'while :; do :; done'
[[ $VM_RC -eq 101 ]] && ok "host timeout detected (exit 101)" \
    || bad "timeout: expected 101, got $VM_RC"

# 5. null_blk latency in guest time, twice (icount determinism)
NB=(--append null_blk.memory_backed=1 --append null_blk.irqmode=2
    --append null_blk.completion_nsec=5000000 --append null_blk.hw_queue_depth=1)
DD='s=$(ppf-clock); dd if=/dev/nullb0 of=/dev/null bs=4k count=100 iflag=direct || exit 1; e=$(ppf-clock); echo DD_NS=$((e - s))'
run_vm dd1 "${NB[@]}" --cmd "$DD"
rc1=$VM_RC
run_vm dd2 "${NB[@]}" --cmd "$DD"
rc2=$VM_RC
ns1=$(dd_ns "$WORK/dd1.log")
ns2=$(dd_ns "$WORK/dd2.log")
echo "selftest: dd 100 x 4 KiB direct reads, 5 ms null_blk: boot 1 ${ns1:-?} ns, boot 2 ${ns2:-?} ns (guest CLOCK_MONOTONIC)"
if [[ $rc1 -eq 0 && -n $ns1 ]] && (( ns1 > 450000000 && ns1 < 600000000 )); then
    ok "null_blk dd took about 0.5 s of guest time ($ns1 ns)"
else
    bad "null_blk dd: rc $rc1, ${ns1:-no} ns (want 0.45-0.6 s)"
fi
if [[ $rc2 -eq 0 && -n $ns1 && -n $ns2 ]]; then
    diff=$(( ns1 > ns2 ? ns1 - ns2 : ns2 - ns1 ))
    # deterministic: allow 0.01% (the method page saw <= 0.003%)
    if (( diff * 10000 <= ns1 )); then
        ok "icount determinism: two boots differ by $diff ns"
    else
        bad "icount determinism: two boots differ by $diff ns ($ns1 vs $ns2)"
    fi
else
    bad "icount determinism: second run rc $rc2"
fi

echo "selftest: logs in $WORK"
echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
