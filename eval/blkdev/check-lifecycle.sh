# check-lifecycle.sh - ppf_simdisk load, data, timing, unload (guest side)
#
# Loads the module, writes untimed and timed (whole pages and odd 512-byte
# runs), reads back and compares, runs six readers at once, unloads it with
# data on the device, and on the debug kernel (KASAN, lockdep, kmemleak)
# checks that kmemleak reports nothing.  Prints "ok ..." / "FAIL ..." and
# exits non-zero on a failure; run.py fails the boot on any kernel splat.
# From the top of the tree, on the debug kernel (its boot quirks are in
# eval/vm/config.py DEBUG):
#   KDIR=$(eval/kernel/build.sh --debug)   # builds it if needed (long)
# (checked on 2026-11-23 against the debug build of the configuration before
# BFQ was added, 6.12.117-1_deb12u1-debug-3a25da41cf40: all ok, kmemleak empty)
#   python3 -c "from pathlib import Path; from eval.vm import kernel; \
#     print(kernel.build_simdisk(Path('$KDIR'), Path('/tmp/simdisk')))"
#   python3 -m eval.vm.run --kernel $KDIR --initrd /var/cache/ppf/eval/initramfs-blktrace.cpio \
#     --add /tmp/simdisk/simdisk/$(basename $KDIR)-*/ppf_simdisk.ko:/ppf/ppf_simdisk.ko \
#     --script eval/blkdev/check-lifecycle.sh --seabios --append pci=noacpi \
#     --icount-shift 0 --smp 1 --timeout 900
set -u
fail=0
ck() { if [ "$2" = 0 ]; then echo "ok $1"; else echo "FAIL $1"; fail=1; fi; }
K=/sys/kernel/debug/kmemleak
free0=$(awk '/MemFree/{print $2}' /proc/meminfo)
insmod /ppf/ppf_simdisk.ko size_mb=256 disk_mb=4150 queue_depth=4 buffer_kb=512; ck insmod $?
echo mq-deadline > /sys/block/simdisk0/queue/scheduler
dd if=/dev/urandom of=/tmp/x bs=1M count=8 2>/dev/null
dd if=/tmp/x of=/dev/simdisk0 bs=1M seek=3 oflag=direct 2>/dev/null; ck "untimed write" $?
echo 1 > /sys/module/ppf_simdisk/parameters/timed
t0=$(ppf-clock)
dd if=/dev/simdisk0 of=/tmp/y bs=1M skip=3 count=8 iflag=direct 2>/dev/null
t1=$(ppf-clock)
cmp /tmp/x /tmp/y; ck "timed read back" $?
echo "8 MiB sequential: $(( (t1 - t0) / 1000000 )) ms"
dd if=/tmp/x of=/dev/simdisk0 bs=512 seek=77 count=9999 oflag=direct 2>/dev/null; ck "timed odd write" $?
dd if=/dev/simdisk0 of=/tmp/z bs=512 skip=77 count=9999 iflag=direct 2>/dev/null
dd if=/tmp/x of=/tmp/w bs=512 count=9999 2>/dev/null
cmp /tmp/w /tmp/z; ck "odd read back" $?
for i in 1 2 3 4 5 6; do dd if=/dev/simdisk0 of=/dev/null bs=4k count=40 skip=$((i * 9000)) iflag=direct 2>/dev/null & done
wait
echo "parallel readers done"
# buffered I/O, page cache, then unload with data still on the device
dd if=/dev/simdisk0 of=/dev/null bs=64k count=100 2>/dev/null
rmmod ppf_simdisk; ck rmmod $?
[ ! -e /dev/simdisk0 ]; ck "device gone" $?
echo 3 > /proc/sys/vm/drop_caches
free1=$(awk '/MemFree/{print $2}' /proc/meminfo)
echo "MemFree before $free0 kB, after $free1 kB"
if [ -e $K ]; then
    sleep 6; echo scan > $K; sleep 1; echo scan > $K
    leaks=$(cat $K); [ -z "$leaks" ]; ck "kmemleak empty" $?
    echo "$leaks" | head -40
fi
exit $fail
