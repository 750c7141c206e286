# test_robust_stale.sh - predicted files deleted, renamed or truncated before their prefetch
#
# On a writable ext4 (/dev/vda, its own disk: A B C D X E F G H, 256 KiB
# each): train A B C D, drop caches, rm C, mv D D2, truncate B to nothing,
# open A.  C must be skipped as stale (its handle no longer decodes), D2
# prefetched whole (a rename keeps the handle), and nothing read of B (its
# size is now 0: no ppf_prefetch for it, no page requested).  Then train
# E F G H, truncate F to 10 KiB, delete G and create a file (which may get
# G's inode number with a new generation), open E: F gets its 3 remaining
# pages only, G is stale, H is whole.  Nothing may crash or be reported by
# the debug kernel.
. /ppf/guest/lib.sh
. /ppf/guest/test_robust_lib.sh

TRACE=/sys/kernel/tracing
mkdir -p /mnt
mount -t ext4 /dev/vda /mnt || { echo "FAIL mount"; exit 1; }
load_ppf || { echo "FAIL insmod"; exit 1; }
cd /mnt
set_ppf enabled 1
cat X > /dev/null
check "ext4 on /dev/vda is watched" wait_fs 1

# ino_prefetched INO: a ppf_prefetch event for inode INO is in the trace
ino_prefetched() {
	grep -v '^#' $TRACE/trace | grep -q "ppf_prefetch: dev=[0-9:]* ino=$1 "
}

trace_on() {
	echo > $TRACE/trace
	echo 1 > $TRACE/events/predictive_prefetch/enable
}

trace_off() {
	echo 0 > $TRACE/events/predictive_prefetch/enable
}

for i in 1 2 3 4 5; do
	cat A B C D > /dev/null
	cat X > /dev/null
done
settle
drop_caches
stale=$(stat_of skipped_stale)
req=$(stat_of pages_requested)
ino_b=$(stat -c %i B)
rm C
mv D D2
: > B
trace_on
cat A > /dev/null
settle
trace_off
check "deleted C counted in skipped_stale" ge "$(stat_of skipped_stale)" $((stale + 1))
check "a stale skip was traced" eval "grep -q 'ppf_prefetch_skip: id=[0-9]* reason=stale' $TRACE/trace"
check "renamed D2 prefetched whole" eq "$(resident_each D2)" 256
check "emptied B is still empty" eq "$(stat -c %s B)" 0
check "no readahead started for the emptied B" eval "! ino_prefetched $ino_b"
echo "  pages requested: $(($(stat_of pages_requested) - req)) (D2's 64, and X's and A's if predicted)"
check "C is gone" eval "[ ! -e C ]"

# Truncated to part of what was read last time; a deleted file whose inode
# number may be reused.
for i in 1 2 3 4 5; do
	cat E F G H > /dev/null
	cat X > /dev/null
done
settle
drop_caches
stale=$(stat_of skipped_stale)
req=$(stat_of pages_requested)
ino_f=$(stat -c %i F)
ino_g=$(stat -c %i G)
truncate -s 10240 F
rm G
echo new > N
[ "$(stat -c %i N)" = "$ino_g" ] && echo "  N reuses G's inode number $ino_g"
sync
echo 1 > /proc/sys/vm/drop_caches
trace_on
cat E > /dev/null
settle
trace_off
f_kb=$(resident_each F)
check "truncated F: its 12 KiB (3 pages) prefetched ($f_kb)" eq "$f_kb" 12
check "truncated F: readahead of 3 pages from page 0" \
	eval "grep -v '^#' $TRACE/trace | grep -q 'ppf_prefetch: dev=[0-9:]* ino=$ino_f id=[0-9]* pages=0+3 '"
check "deleted G counted in skipped_stale" ge "$(stat_of skipped_stale)" $((stale + 1))
check "H prefetched whole" eq "$(resident_each H)" 256
echo "  pages requested: $(($(stat_of pages_requested) - req)) (3 of F, 64 of H, and X's and E's if predicted)"
check "F is still 10240 bytes" eq "$(stat -c %s F)" 10240

# Predicting again after all this: forgotten files are not predicted again.
drop_caches
skipped_unknown=$(stat_of skipped_unknown)
cat A E > /dev/null
settle
echo "  files $(stat_of files), skipped_stale $(stat_of skipped_stale)," \
	"skipped_unknown $(stat_of skipped_unknown) (was $skipped_unknown)," \
	"skipped_cached $(stat_of skipped_cached)"
cd /
umount /mnt
check "file system unmounts" eq $? 0
rmmod predictive_prefetch
check "module unloads" eq $? 0
kmemleak_check
finish
