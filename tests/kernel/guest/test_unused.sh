# test_unused.sh - the pages prefetching read for files not opened yet, and wasted
#
# Trained on A B C D X, the open of A reads B, C and D ahead (256 KiB, 64
# pages each).  Until they are opened their pages are pending
# (pages_pending); their opens take them off.  Read ahead again and never
# opened, after 1024 events they are judged wasted (prefetch_wasted), and
# their pages are counted in pages_wasted and taken off pages_pending.
. /ppf/guest/lib.sh

plan 9
mount_data /mnt || bail "mount"
load_ppf || bail "insmod"
cd /mnt
hold B C D X
always_prefetch
model_only
set_ppf enabled 1
train
settle
drop_caches

pending0=$(stat_of pages_pending) wasted0=$(stat_of pages_wasted)
cat A > /dev/null
settle
premise "after A, B, C and D were read ahead" \
	eq "$(resident_kb B)$(resident_kb C)$(resident_kb D)" 256256256
pending=$(stat_of pages_pending)
echo "pages_pending: $pending0 before A, $pending after"
check "not opened yet: B's, C's and D's 192 pages are pending" ge "$pending" $((pending0 + 192))

cat B C D > /dev/null
settle 0
check "opened: their pages are pending no more" le "$(stat_of pages_pending)" $((pending - 192))
check "opened: nothing counted wasted" eq "$(stat_of pages_wasted)" "$wasted0"

# Read ahead again, then 1,100 opens of X (the shell's own redirections:
# no process started), none of B, C or D.
drop_caches
cat A > /dev/null
settle
premise "after A again, B, C and D were read ahead" \
	eq "$(resident_kb B)$(resident_kb C)$(resident_kb D)" 256256256
pending=$(stat_of pages_pending) files=$(stat_of prefetch_wasted)
i=0
while [ $i -lt 1100 ]; do
	: < X
	i=$((i + 1))
done
settle 0
echo "prefetch_wasted $files -> $(stat_of prefetch_wasted), pages_wasted $wasted0 -> $(stat_of pages_wasted), pages_pending $pending -> $(stat_of pages_pending)"
check "not opened in 1024 events: B, C and D judged wasted" ge "$(stat_of prefetch_wasted)" $((files + 3))
check "wasted: their 192 pages counted in pages_wasted" ge "$(stat_of pages_wasted)" $((wasted0 + 192))
check "wasted: their pages are pending no more" le "$(stat_of pages_pending)" $((pending - 192))
check "pages_wasted is a part of pages_requested" le "$(stat_of pages_wasted)" "$(stat_of pages_requested)"
release
cd /
umount /mnt
check "file system unmounts with the module loaded" eq $? 0
rmmod predictive_prefetch
check "module unloads" eq $? 0
finish
