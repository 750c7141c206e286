# test_robust_stale.sh - predicted files deleted, renamed or truncated before their prefetch
#
# On a writable ext4 (its own disk, A B C D X E F G H, 256 KiB each, on
# null_blk: see mount_data).  Part 1: train A B C D (X between rounds), drop caches, rm C,
# mv D D2, ": > B" (truncates B to nothing), open A.  C must be skipped as
# stale (its handle no longer decodes), D2 prefetched whole (a rename keeps
# the handle), nothing read into B (checked at the end, see below: mincore
# sees no page of an empty file).  The opens that truncate and create act on the
# predictions too (that is what a real workload does), so these checks hold
# whichever open made the prefetch.  Part 2, with PCM (the next file only,
# so the open that truncates F does not prefetch F itself): train E F G H,
# drop caches, rm G, create N (which may get G's inode number with a new
# generation), truncate F to 10 KiB, open E: G is stale (predicted after
# F), and F is read ahead for its 3 remaining pages only.  Finally, with the module unloaded, B and F are
# extended back to 256 KiB: a page read past their end while they were
# short would show up in the page cache now; none may.
. /ppf/guest/lib.sh
. /ppf/guest/test_robust_lib.sh

plan 12
TRACE=/sys/kernel/tracing
mount_data /mnt || bail "mount"
load_ppf || bail "insmod"
cd /mnt
always_prefetch
set_ppf enabled 1
cat X > /dev/null
check "ext4 on /dev/vda is watched" wait_fs 1

trace_on() {
	echo > $TRACE/trace
	echo 1 > $TRACE/events/predictive_prefetch/enable
}

trace_off() {
	echo 0 > $TRACE/events/predictive_prefetch/enable
}

# Part 1
train A B C D
settle
drop_caches
stale=$(stat_of skipped_stale)
trace_on
rm C
mv D D2
: > B
cat A > /dev/null
settle
trace_off
check "deleted C counted in skipped_stale" ge "$(stat_of skipped_stale)" $((stale + 1))
check "a stale skip was traced" eval "grep -q 'ppf_prefetch_skip: id=[0-9]* reason=stale' $TRACE/trace"
check "renamed D2 prefetched whole" eq "$(resident_each D2)" 256

# Part 2
set_ppf model pcm
set_ppf model_order 2
train E F G H
settle
drop_caches
stale=$(stat_of skipped_stale)
ino_g=$(stat -c %i G)
ino_f=$(stat -c %i F)
rm G
echo new > N
[ "$(stat -c %i N)" = "$ino_g" ] && echo "# N reuses G's inode number $ino_g"
truncate -s 10240 F
trace_on
cat E > /dev/null
settle
trace_off
check "deleted G counted in skipped_stale" ge "$(stat_of skipped_stale)" $((stale + 1))
check "truncated F: readahead of its 3 pages from page 0" \
	eval "grep -v '^#' $TRACE/trace | grep -q 'ppf_prefetch: dev=[0-9:]* ino=$ino_f id=[0-9]* pages=0+3 '"
# The truncation left page 2 (half of it past the end) in the cache, zeroed
# but not uptodate: counted as cached, not read again, invisible to mincore.
f=$(resident_each F)
check "truncated F: pages 0 and 1 prefetched ($f KiB)" ge "$f" 8
echo "# files $(stat_of files), skipped_stale $(stat_of skipped_stale)," \
	"skipped_cached $(stat_of skipped_cached), skipped_recent $(stat_of skipped_recent)"

rmmod predictive_prefetch
check "module unloads" eq $? 0
# Nothing past the end: extended again, B has no page cached, F only its
# first 3.
truncate -s 262144 B F
b=$(resident_each B)
f=$(resident_each F)
check "nothing was read past the end of B ($b KiB cached)" eq "$b" 0
check "nothing was read past the end of F ($f KiB cached)" le "$f" 12
cd /
umount /mnt
check "file system unmounts" eq $? 0
kmemleak_check
finish
