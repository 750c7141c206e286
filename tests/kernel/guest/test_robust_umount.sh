# test_robust_umount.sh - unmount watched file systems while events flow (debug kernel)
#
# /dev/vda (data disk, read-only) carries a background load of opens and
# reads; /dev/vdb (its own disk, A B C D X) is trained on and unmounted
# CYCLES times with the module loaded: right after the worker caught up,
# right after an open whose predictions are being prefetched (the worker
# may hold the file system for a moment), and right after opens still
# queued.  umount must succeed, the mount must be gone, the filesystems
# count must drop by one (at once, or once the worker lets go), and after
# the remount the file system must be watched again and predicted from.
. /ppf/guest/lib.sh
. /ppf/guest/test_robust_lib.sh

CYCLES=${CYCLES:-9}
mkdir -p /mnt /mnt2
mount -t ext4 -o ro /dev/vda /mnt || { echo "FAIL mount vda"; exit 1; }
mount -t ext4 /dev/vdb /mnt2 || { echo "FAIL mount vdb"; exit 1; }
load_ppf || { echo "FAIL insmod"; exit 1; }
set_ppf enabled 1

train() {
	for i in 1 2 3 4 5; do
		cat /mnt2/A /mnt2/B /mnt2/C /mnt2/D > /dev/null
		cat /mnt2/X > /dev/null
	done
}

cat /mnt/X /mnt2/X > /dev/null
check "both ext4 file systems watched" wait_fs 2
start_load /mnt A B C D X P Q
train
settle

bad_umount=0
still_mounted=0
no_drop=0
bad_mount=0
no_rewatch=0
c=0
while [ $c -lt $CYCLES ]; do
	c=$((c + 1))
	case $((c % 3)) in
	0)	settle 0 ;;
	1)	echo 1 > /proc/sys/vm/drop_caches
		cat /mnt2/A > /dev/null ;;
	2)	cat /mnt2/A /mnt2/B /mnt2/C /mnt2/D /mnt2/X > /dev/null ;;
	esac
	if ! umount /mnt2; then
		bad_umount=$((bad_umount + 1))
		echo "  cycle $c: umount failed"
		continue
	fi
	if grep -q " /mnt2 " /proc/mounts; then
		still_mounted=$((still_mounted + 1))
	fi
	if ! wait_fs 1; then
		no_drop=$((no_drop + 1))
		echo "  cycle $c: filesystems still $(stat_of filesystems) after umount"
	fi
	if ! mount -t ext4 /dev/vdb /mnt2; then
		bad_mount=$((bad_mount + 1))
		break
	fi
	cat /mnt2/X > /dev/null
	if ! wait_fs 2; then
		no_rewatch=$((no_rewatch + 1))
		echo "  cycle $c: filesystems $(stat_of filesystems) after remount and read"
	fi
	train
done
stop_load
check "umount succeeded $CYCLES times with the module loaded" eq $bad_umount 0
check "the mount was gone after each umount" eq $still_mounted 0
check "the filesystems count dropped after each umount" eq $no_drop 0
check "remount succeeded every time" eq $bad_mount 0
check "watched again after each remount" eq $no_rewatch 0

# Predictions work on the remounted file system.
settle
drop_caches
issued=$(stat_of prefetch_issued)
cat /mnt2/A > /dev/null
settle
check "after remount: B C D prefetched after A" \
	eq "$(resident_each /mnt2/B /mnt2/C /mnt2/D)" 256256256
echo "  skipped_unmounted $(stat_of skipped_unmounted), files $(stat_of files)"

umount /mnt2
check "final umount with the module loaded" eq $? 0
check "filesystems back to 1" wait_fs 1
rmmod predictive_prefetch
check "module unloads" eq $? 0
umount /mnt
check "the data disk unmounts" eq $? 0
kmemleak_check
finish
