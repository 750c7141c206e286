# test_robust_shape.sh - change model and shape under load (debug kernel)
#
# While four shells open and read files on a watched ext4 (the data disk,
# on null_blk: see mount_data), ROUNDS rounds each switch the model (last_successor, pcm,
# epcm), the shape (partition_size and model_order, threshold), memory_kb,
# max_files, max_prefetch_kb, max_inflight_kb, filesystems (ext4, then a
# type that is not mounted, which unwatches the ext4, then empty again),
# isolation and max_domains (with a fifth shell opening as another user, so
# that under isolation=user there are two domains) and reset.  Every write of a valid value must be accepted; the worker must keep
# up; the model must learn again after the changes.  Then the module is
# unloaded RELOADS times (10) with filesystems set to a type that excludes the
# busy ext4 (every read then asks whether the type is allowed, up to the
# moment the read probes are unregistered).
. /ppf/guest/lib.sh
. /ppf/guest/test_robust_lib.sh

plan 13
ROUNDS=8
RELOADS=${RELOADS:-10}
mount_data /mnt || bail "mount"
load_ppf || bail "insmod"
always_prefetch
set_ppf enabled 1
cat /mnt/X > /dev/null
check "ext4 on the data disk is watched" wait_fs 1


start_load /mnt A B C D X P Q E G
/ppf/runas 1000 sh -c "while [ ! -e $STOP ]; do cat /mnt/A /mnt/B /mnt/C > /dev/null; done" &
unwatched=0
rewatched=0
t0=$(now_ms)
r=0
while [ $r -lt $ROUNDS ]; do
	# a small budget first: every shape change allocates a whole new model
	w memory_kb 1024
	for model in last_successor pcm epcm; do
		w model $model
		for shape in 64:51 16:12 32:25 4:3 256:200 2:1 64:51; do
			w model_order 1
			w partition_size ${shape%:*}
			w model_order ${shape#*:}
		done
		for t in 1 50 100 25; do w threshold $t; done
	done
	for m in 256 4096 1024 16384; do w memory_kb $m; done
	for n in 64 100 65536; do w max_files $n; done
	for iso in user cgroup none; do
		w isolation $iso
		sleep 0.05
		w max_domains 2
		sleep 0.05
		w max_domains 8
	done
	for k in 4 16384; do w max_inflight_kb $k; done
	w max_prefetch_kb 128
	w max_prefetch_kb 2048
	w filesystems ext4
	w filesystems xfs
	# the ext4 stops being watched at once
	[ "$(stat_of filesystems)" = 0 ] && unwatched=$((unwatched + 1))
	w filesystems ""
	# and is found again at its next read
	n=0
	while [ "$(stat_of filesystems)" = 0 ] && [ $n -lt 50 ]; do
		cat /mnt/X > /dev/null
		sleep 0.1
		n=$((n + 1))
	done
	[ "$(stat_of filesystems)" -ge 1 ] && rewatched=$((rewatched + 1))
	w reset 1
	r=$((r + 1))
done
t1=$(now_ms)
stop_load
echo "# $ROUNDS rounds of model and shape changes under load in $((t1 - t0)) ms of guest time"
check "every valid write was accepted" eq $refused 0
check "filesystems=xfs unwatched the ext4 ($unwatched/$ROUNDS)" eq $unwatched $ROUNDS
check "filesystems= watched it again ($rewatched/$ROUNDS)" eq $rewatched $ROUNDS
settle 0
check "the worker caught up" eq "$(stat_of events_queued)" 0
check "model is epcm" eq "$(cat $PPF/model)" epcm

# The model still learns: train A B C D, drop caches, open A.
cd /mnt
train
settle
drop_caches
issued=$(stat_of prefetch_issued)
cat A > /dev/null
settle
check "after the changes: B C D prefetched after A" \
	eq "$(resident_each B C D)" 256256256
check "after the changes: prefetches counted" ge "$(stat_of prefetch_issued)" $((issued + 3))
cd /
rmmod predictive_prefetch
check "module unloads" eq $? 0

# Unload while every read of the busy ext4 asks whether its type is allowed.
start_load /mnt A B C D X
bad=0
i=0
while [ $i -lt $RELOADS ]; do
	i=$((i + 1))
	load_ppf || { bad=$((bad + 1)); continue; }
	set_ppf enabled 1
	set_ppf filesystems xfs || bad=$((bad + 1))
	[ $((i % 2)) = 0 ] && sleep 0.1
	rmmod predictive_prefetch || bad=$((bad + 1))
done
stop_load
check "$RELOADS reloads with filesystems=xfs under load" eq $bad 0
check "module is unloaded" unloaded

umount /mnt
check "file system unmounts" eq $? 0
kmemleak_check
finish
