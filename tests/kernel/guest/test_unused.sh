# test_unused.sh - the pages prefetching read for files not opened yet, and wasted
#
# Trained on A B C D X, the open of A reads B, C and D ahead (256 KiB, 64
# pages each).  Until they are opened their pages are pending
# (pages_pending); their opens take them off.  Read ahead again and never
# opened, 1024 events on with their pages still cached they were early
# (prefetch_early) and are judged again later; their pages gone, they are
# judged wasted (prefetch_wasted), their pages counted in pages_wasted and
# taken off pages_pending.
. /ppf/guest/lib.sh

plan 11
mount_data /mnt || bail "mount"
load_ppf || bail "insmod"
cd /mnt
hold B C D X
trained_cold

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
# no process started), none of B, C or D.  Nothing left their page cache:
# they were early, not wasted, and stay pending, judged again later.
drop_caches
cat A > /dev/null
settle
premise "after A again, B, C and D were read ahead" \
	eq "$(resident_kb B)$(resident_kb C)$(resident_kb D)" 256256256
pending=$(stat_of pages_pending) files=$(stat_of prefetch_wasted)
early=$(stat_of prefetch_early)
opens() {	# $1 opens of X, 100 at a time, each hundred taken before the next
	i=0
	while [ $i -lt "$1" ]; do
		: < X
		i=$((i + 1))
		[ $((i % 100)) = 0 ] && settle 0
	done
	settle 0
}
dropped0=$(stat_of dropped_ring_full)
opens 1100
echo "prefetch_early $early -> $(stat_of prefetch_early), prefetch_wasted $files -> $(stat_of prefetch_wasted), pages_pending $pending -> $(stat_of pages_pending)"
premise "every open reached the worker (none dropped, the ring full)" \
	eq "$(stat_of dropped_ring_full)" "$dropped0"
check "1024 events on, their pages still cached: B, C and D judged early" \
	ge "$(stat_of prefetch_early)" $((early + 3))
check "early: not wasted, and their pages still pending" \
	eval '[ "$(stat_of prefetch_wasted)" = "$files" ] && [ "$(stat_of pages_pending)" -ge 192 ]'
# Their pages gone (every page cache dropped), the next verdict is waste.
drop_caches
opens 1100
echo "prefetch_wasted $files -> $(stat_of prefetch_wasted), pages_wasted $wasted0 -> $(stat_of pages_wasted), pages_pending -> $(stat_of pages_pending)"
check "their pages dropped: B, C and D judged wasted" ge "$(stat_of prefetch_wasted)" $((files + 3))
check "wasted: their 192 pages counted in pages_wasted" ge "$(stat_of pages_wasted)" $((wasted0 + 192))
check "wasted: their pages are pending no more" le "$(stat_of pages_pending)" $((pending - 192))
check "pages_wasted is a part of pages_requested" le "$(stat_of pages_wasted)" "$(stat_of pages_requested)"
finish_unloaded
