# test_robust_umount.sh - unmount watched file systems while events flow (debug kernel)
#
# /dev/vdb (the data disk, read-only) carries a background load of opens
# and reads; /mnt2 (its own disk, A B C D X, on null_blk: see mount_data;
# /dev/vda) is trained on and unmounted
# CYCLES times with the module loaded: right after the worker caught up,
# right after an open whose predictions are being prefetched (the worker
# may hold the file system for a moment), and right after opens still
# queued.  umount must succeed, the mount must be gone, the filesystems
# count must drop by one (at once, or once the worker lets go), and after
# the remount the file system must be watched again and predicted from.
# Then 10 more unmounts race with another shell switching enabled off
# (which removes every mark, as the unmount removes its own) and on.
. /ppf/guest/lib.sh
. /ppf/guest/test_robust_lib.sh

plan 13
CYCLES=${CYCLES:-9}
mkdir -p /mnt
mount -t ext4 -o ro /dev/vdb /mnt || bail "mount vdb"
mount_data /mnt2 || bail "mount_data"
dev2=$dev
load_ppf || bail "insmod"
always_prefetch
set_ppf enabled 1

cat /mnt/X /mnt2/X > /dev/null
check "both ext4 file systems watched" wait_fs 2
start_load /mnt A B C D X P Q
(cd /mnt2 && train)
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
		echo "# cycle $c: umount failed"
		continue
	fi
	if grep -q " /mnt2 " /proc/mounts; then
		still_mounted=$((still_mounted + 1))
	fi
	if ! wait_fs 1; then
		no_drop=$((no_drop + 1))
		echo "# cycle $c: filesystems still $(stat_of filesystems) after umount"
	fi
	if ! mount -t ext4 $dev2 /mnt2; then
		bad_mount=$((bad_mount + 1))
		break
	fi
	cat /mnt2/X > /dev/null
	if ! wait_fs 2; then
		no_rewatch=$((no_rewatch + 1))
		echo "# cycle $c: filesystems $(stat_of filesystems) after remount and read"
	fi
	(cd /mnt2 && train)
done
stop_load
check "umount succeeded $CYCLES times with the module loaded" eq $bad_umount 0
check "the mount was gone after each umount" eq $still_mounted 0
check "the filesystems count dropped after each umount" eq $no_drop 0
check "remount succeeded every time" eq $bad_mount 0
check "watched again after each remount" eq $no_rewatch 0

# Predictions work on the remounted file system (trained without the
# background load, whose opens interleave with the training).
(cd /mnt2 && train)
settle
drop_caches
issued=$(stat_of prefetch_issued)
cat /mnt2/A > /dev/null
settle
r=$(resident_each /mnt2/B /mnt2/C /mnt2/D)
check "after remount: B C D prefetched after A ($r)" eq "$r" 256256256
echo "# skipped_unmounted $(stat_of skipped_unmounted), files $(stat_of files)"

# Unmount while another shell switches the module off and on: switching
# off removes every mark, as the unmount does.
(
	while [ ! -e $STOP ]; do
		set_ppf enabled 0
		set_ppf enabled 1
		cat /mnt/X > /dev/null
	done
) &
bad_umount=0
c=0
while [ $c -lt 10 ]; do
	c=$((c + 1))
	cat /mnt2/A /mnt2/B /mnt2/X > /dev/null
	umount /mnt2 || bad_umount=$((bad_umount + 1))
	mount -t ext4 $dev2 /mnt2 || break
done
stop_load
check "10 umounts while enabled is switched off and on" eq $bad_umount 0
set_ppf enabled 1

umount /mnt2
check "final umount with the module loaded" eq $? 0
check "filesystems back to 1" wait_fs 1
rmmod predictive_prefetch
check "module unloads" eq $? 0
umount /mnt
check "the data disk unmounts" eq $? 0
kmemleak_check
finish
