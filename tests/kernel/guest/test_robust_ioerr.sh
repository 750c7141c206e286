# test_robust_ioerr.sh - read errors from the device during prefetches (debug kernel)
#
# ext4 on a device-mapper device (linear over its own disk, A B C D X P Q E,
# copied to null_blk).  Train A B C D X, then P E Q; switch the table to "error"
# (dmsetup suspend/reload/resume), drop the page cache, open A: the
# prefetches of B C D X hit I/O errors.  Then, with the page cache and the
# inodes dropped and A held open, reopen A through /proc/self/fd: the worker
# decoding the handles of the predicted files gets I/O errors reading the
# inode table.  Switch the table back: prefetching works again (also with a
# small max_inflight_kb: readahead that failed is not "in flight" for ever),
# the file system unmounts, the module unloads, and the debug kernel reports
# nothing.
. /ppf/guest/lib.sh
. /ppf/guest/test_robust_lib.sh

plan 15
DM=ppferr
mkdir -p /mnt /dev/mapper
# Over a memory-backed null_blk copy of the disk when there is one (see
# mount_data in lib.sh), else over the virtio disk itself.
lower=vda
if [ -b /dev/nullb0 ]; then
	dd if=/dev/vda of=/dev/nullb0 bs=1M 2>/dev/null || bail "copy"
	lower=nullb0
fi
sectors=$(cat /sys/block/vda/size)
linear="0 $sectors linear /dev/$lower 0"
dmsetup create $DM --table "$linear" || bail "dmsetup create"
dev=/dev/mapper/$DM
[ -b $dev ] || dev=/dev/$(ls /sys/block/$lower/holders/ | head -n1)
echo "# device-mapper device $dev over /dev/$lower ($sectors sectors)"
mount -t ext4 -o noatime,errors=continue $dev /mnt || bail "mount"
load_ppf || bail "insmod"
cd /mnt
always_prefetch
set_ppf enabled 1
cat X > /dev/null
check "ext4 on $dev is watched" wait_fs 1

# table TABLE: switch the device's table.  Without freezing the file
# system: thawing it writes the superblock, which would fail on "error"
# (and nothing is left to write: noatime, synced before).
table() {
	dmsetup suspend --nolockfs $DM && dmsetup reload $DM --table "$1" &&
		dmsetup resume $DM
}

train
for i in 1 2 3 4 5; do
	cat P E > /dev/null
	cat Q > /dev/null
done
settle
sync

# 1. Data reads fail: the prefetches of B C D X.
set_ppf max_inflight_kb 1024
check "table switched to error" table "0 $sectors error"
echo 1 > /proc/sys/vm/drop_caches
issued=$(stat_of prefetch_issued)
exec 3< A
settle
check "prefetches started against the failing device" ge "$(stat_of prefetch_issued)" $((issued + 3))
check "B's data cannot be read (the device fails)" eval "! cat B > /dev/null 2>&1"

# 2. The device recovers.  P's prediction E (1 MiB) was neither prefetched
# nor read since the caches were dropped; the readahead that failed above
# must not count as in flight any more (max_inflight_kb is 1024: E alone
# fills it).
exec 3<&-
check "table switched back to linear" table "$linear"
check "A readable again" eval "cat A > /dev/null"
# Reading A predicts B C D X again, and their readahead, now on a working
# device, is really in flight for a moment: let it finish.
settle
inflight=$(stat_of skipped_inflight)
cat P > /dev/null
settle
e=$(resident_each E)
echo "# skipped_inflight +$(($(stat_of skipped_inflight) - inflight))"
check "after the errors: E (1 MiB) prefetched after P with max_inflight_kb=1024 ($e KiB)" \
	eq "$e" 1024
set_ppf max_inflight_kb 16384

# 3. Metadata reads fail: with A held open, the page cache and the inodes
# are dropped and A reopened through /proc/self/fd (no lookup): the worker
# decoding the handles of the predicted files cannot read the inode table.
exec 3< A
sync
check "table switched to error again" table "0 $sectors error"
echo 3 > /proc/sys/vm/drop_caches
issued=$(stat_of prefetch_issued)
opens=$(stat_of events_open)
exec 4< /proc/self/fd/3
settle
check "reopening A was seen" ge "$(stat_of events_open)" $((opens + 1))
echo "# after reopening A: issued +$(($(stat_of prefetch_issued) - issued))," \
	"stale $(stat_of skipped_stale), cached $(stat_of skipped_cached)," \
	"inflight $(stat_of skipped_inflight), files $(stat_of files)"
exec 4<&-
exec 3<&-
check "table switched back to linear again" table "$linear"
check "B readable again" eval "cat B > /dev/null"

cd /
umount /mnt
check "file system unmounts after the errors" eq $? 0
rmmod predictive_prefetch
check "module unloads" eq $? 0
dmsetup remove $DM
check "device-mapper device removed" eq $? 0
echo "# kernel messages about the errors:"
dmesg | grep -iE 'error|EXT4-fs|I/O' | head -20 | sed 's/^/# | /'
kmemleak_check
finish
