# prelude.sh - the start both evaluation scripts share, inside the test VM
# (busybox sh; sourced by run-experiment.sh and realcheck.sh after
# /ppf/eval.conf): the disk profile's device set up, the image copied onto
# it before anything is timed, the same clock phase and no ASLR in every
# boot, the image's file system mounted at $DIR, the module loaded and left
# disabled (model none: the caller enables a model, or does not).
#
# Needs DIR (the mount point, made), say (the caller's messages) and from
# eval.conf DEV DEV_SETUP DEV_TIMED (the disk profile's device:
# eval/harness/profiles.py) and IMAGE (the workload's ext4 image: a file in
# the initramfs, removed once copied, or /dev/vda, the default).  A step that
# fails ends the boot (exit 1).  The harness ships this file as
# /ppf/prelude.sh (eval/harness/runner.py's PRELUDE).
eval "$DEV_SETUP" || { say "device setup failed: $DEV_SETUP"; exit 1; }
say "copying the image to $DEV"
/ppf/nbcopy ${IMAGE:-/dev/vda} $DEV || exit 1
eval "$DEV_TIMED" || exit 1
[ "${IMAGE:-/dev/vda}" != /dev/vda ] && rm -f "$IMAGE"  # in the initramfs: free its memory
# determinism: same clock phase in every boot (see nbcopy.c), no ASLR
/ppf/nbcopy --align 2
echo 0 > /proc/sys/kernel/randomize_va_space
# the replay is one process for all the workload's processes: gnuld's ld -r
# alone holds ~2,900 files open (1,024 would fail with EMFILE)
ulimit -n 65536 || exit 1
mount -t ext4 -o noinit_itable $DEV $DIR || exit 1
echo 4 > /proc/sys/kernel/printk

insmod /ppf/predictive_prefetch.ko ${MODULE_PARAMS:-} || exit 1
