# realcheck.sh - the real program and its replay in one test VM
# (busybox sh, /init's command; see eval/harness/realcheck.py).
#
# Reads /ppf/eval.conf: DEV DEV_SETUP DEV_TIMED (the disk profile), IMAGE,
# TRACE, SPIN_RATE, ROOT (the trace's recorded root), CMD64 (the recorded
# command, base64).  The device is set up as run-experiment.sh does it (image
# copied before anything is timed, same clock phase, no ASLR, the module
# loaded and left disabled: model none).  The image holds the real tree at
# t/ and the host's binaries at t/_abs/; the command runs chrooted in t/_abs
# with t bind-mounted at ROOT, so it sees the paths it was recorded with.
# Runs: real cold (sync, drop caches), real hot (right after), then
# build-tree and the replay, cold then hot.  For each run NAME, $OUT/NAME.txt
# holds the guest clock (ns), this shell's children's CPU ticks and the
# device's /sys/block stat line, before and after.
set -u
. /ppf/eval.conf
OUT=/tmp/out
DIR=/mnt/w
NEW=$DIR/t/_abs
R=/ppf/ppf-replay
B=$(basename $DEV)
mkdir -p $OUT $DIR

say() { echo "ppf-realcheck: $*"; }
clk() { ppf-clock; }
kids_cpu() { awk '{ print $16 + $17 }' /proc/$$/stat; }  # cutime + cstime, ticks

eval "$DEV_SETUP" || { say "device setup failed: $DEV_SETUP"; exit 1; }
say "copying the image to $DEV"
/ppf/nbcopy $IMAGE $DEV || exit 1
eval "$DEV_TIMED" || exit 1
rm -f "$IMAGE"
/ppf/nbcopy --align 2
echo 0 > /proc/sys/kernel/randomize_va_space
ulimit -n 65536 || exit 1
mount -t ext4 -o noinit_itable $DEV $DIR || exit 1
echo 4 > /proc/sys/kernel/printk
insmod /ppf/predictive_prefetch.ko || exit 1
mount --bind $DIR/t $NEW$ROOT || exit 1
mount --bind /dev $NEW/dev || exit 1
CMD=$(echo "$CMD64" | base64 -d)
sync
/ppf/nbcopy --align 2

timed() {  # timed NAME COMMAND...: the command between two samples
    name=$1; shift
    { echo "clk0=$(clk)"; echo "cpu0=$(kids_cpu)"; echo "stat0=$(cat /sys/block/$B/stat)"; } > $OUT/$name.txt
    "$@"
    rc=$?
    { echo "clk1=$(clk)"; echo "cpu1=$(kids_cpu)"; echo "stat1=$(cat /sys/block/$B/stat)"
      echo "rc=$rc"; } >> $OUT/$name.txt
    say "$name rc=$rc $(tr '\n' ' ' < $OUT/$name.txt)"
}

real() {  # the recorded command, chrooted; its output kept apart from the console
    eval "chroot $NEW $CMD" > /tmp/real.log 2>&1
}

# real, cold then hot
sync; echo 3 > /proc/sys/vm/drop_caches
timed real-cold real
grep -v 'very long word' /tmp/real.log > $OUT/real-cold.log
ls -lan $NEW$ROOT/index > $OUT/real-cold.index.txt
timed real-hot real
grep -v 'very long word' /tmp/real.log > $OUT/real-hot.log
ls -lan $NEW$ROOT/index > $OUT/real-hot.index.txt

# the replay on the same file system, cold (ppf-replay drops the caches
# itself, after the first sample: its sync and drop are in both deltas) then hot
umount $NEW/dev $NEW$ROOT
$R build-tree $TRACE $DIR/t > /dev/null || { say "build-tree failed"; exit 1; }
sync; echo 3 > /proc/sys/vm/drop_caches
timed replay-cold $R run --quiet --spin-rate=$SPIN_RATE --json $OUT/replay-cold.json --cold $TRACE $DIR/t
timed replay-hot $R run --quiet --spin-rate=$SPIN_RATE --json $OUT/replay-hot.json $TRACE $DIR/t

cat /proc/predictive_prefetch > $OUT/ppf-stats.txt
umount $DIR
echo "<<<PPF-EVAL-RESULTS>>>"
tar -C $OUT -czf - . | base64
echo "<<<PPF-EVAL-RESULTS-END>>>"
