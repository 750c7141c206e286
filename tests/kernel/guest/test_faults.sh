# test_faults.sh - the kernel's fault injection during prefetching (debug kernel)
#
# For 8 s of guest time, under load and with the model reset and the
# isolation switched every second: failslab and fail_page_alloc fail 10 %
# of the allocations of the worker thread and of two shells (make-it-fail),
# and fail_make_request fails 20 % of the worker's I/O to the data disk.
# (ppf's own allocation points are marked ALLOW_ERROR_INJECTION for
# fail_function, but fail_function cannot run here: its kprobe handler
# draws a random number under base_crng.lock from int3, which lockdep
# reports as an inconsistent lock state in the fault-injection code itself;
# failslab reaches the same allocations in the marked tasks.)  Then every
# fault is turned off and the
# checks: nothing oopsed or leaked (run.py and kmemleak), the queue drains,
# nothing stays counted in flight (prefetch_inflight_kb goes to 0), the
# pages the load and the prefetches left in the page cache hold what the
# device holds, an allocation the worker cannot make is counted
# (dropped_no_memory: with failslab at 100 % for the worker while it takes
# one open, so that a failure is certain; the random phase's count is
# only reported), the model learns again, the module unloads.  A kernel
# without fault injection skips every check after the first.
. /ppf/guest/lib.sh
. /ppf/guest/test_robust_lib.sh

plan 11

D=/sys/kernel/debug
mount_data /mnt || bail "mount"
load_ppf || bail "insmod"
always_prefetch
set_ppf enabled 1
cat /mnt/X > /dev/null
check "the data disk is watched" wait_fs 1
FILES="A B C D X P Q E G"
sums=$(cd /mnt && md5sum $FILES)
if [ ! -d $D/failslab ] || [ ! -d $D/fail_make_request ]; then
	for c in "the worker thread is found" \
		 "ppf's four allocation points are open to fail_function" \
		 "the queue drains" "nothing stays counted in flight (prefetch_inflight_kb)" \
		 "the page cache holds what the device holds" \
		 "an allocation the worker cannot make is counted (dropped_no_memory)" \
		 "after the faults: B C D prefetched after A" "module unloads" \
		 "file system unmounts" "kmemleak: no leak suspected after the module was unloaded"; do
		skip "$c" "this kernel has no fault injection"
	done
	finish
	exit $?
fi

attr() {	# NAME PROBABILITY TASK_FILTER: fail that share, for ever
	echo "$2" > $D/$1/probability
	echo 1 > $D/$1/interval
	echo -1 > $D/$1/times
	echo 0 > $D/$1/verbose
	echo "$3" > $D/$1/task-filter
}
faults_on() {
	attr failslab 10 Y
	echo N > $D/failslab/ignore-gfp-wait
	attr fail_page_alloc 10 Y
	echo N > $D/fail_page_alloc/ignore-gfp-wait
	echo 0 > $D/fail_page_alloc/min-order
	attr fail_make_request 20 Y
	echo 1 > "/sys/block/${dev##*/}/make-it-fail"
}
faults_off() {
	for a in failslab fail_page_alloc fail_make_request; do
		echo 0 > $D/$a/probability
	done
	echo 0 > "/sys/block/${dev##*/}/make-it-fail"
}

worker=
for p in /proc/[0-9]*; do
	[ "$(cat $p/comm 2>/dev/null)" = ppf_prefetch ] && worker=${p#/proc/}
done
check "the worker thread is found" eval '[ -n "$worker" ]'
faults_on
if [ -e $D/fail_function/injectable ]; then
	check "ppf's four allocation points are open to fail_function" \
		eq "$(grep -c '^ppf_.*_alloc' $D/fail_function/injectable)" 4
else
	skip "ppf's four allocation points are open to fail_function" "no fail_function"
fi
echo 1 > /proc/$worker/make-it-fail
# reset zeroes the counters: what each round counted is added up before it.
nomem=0
start_load /mnt $FILES
for i in 1 2; do
	(
		echo 1 > /proc/self/make-it-fail
		while [ ! -e $STOP ]; do
			cat /mnt/A /mnt/B /mnt/C /mnt/D > /dev/null 2>&1
		done
	) &
done
t0=$(now_ms)
secs=0
echo "FAULTS on at $t0 ms"
# Each round drops the caches first and then reads for a second, so that
# the last second's reads under the faults are still cached at the end
# (dropping them last left the premise below to timing: a run whose
# readers had not run again before the load stopped cached nothing).
while [ $(($(now_ms) - t0)) -lt 8000 ]; do
	echo 1 > /proc/sys/vm/drop_caches
	sleep 1
	secs=$((secs + 1))
	nomem=$((nomem + $(stat_of dropped_no_memory)))
	set_ppf reset 1
	if [ $((secs % 2)) = 1 ]; then set_ppf isolation user; else set_ppf isolation none; fi
done
faults_off
echo 0 > /proc/$worker/make-it-fail
stop_load
set_ppf isolation none
settle 2
nomem=$((nomem + $(stat_of dropped_no_memory)))
echo "FAULTS $secs rounds, off at $(now_ms) ms: dropped_no_memory $nomem in all," \
	"prefetch_issued $(stat_of prefetch_issued), skipped_stale $(stat_of skipped_stale)," \
	"events_open $(stat_of events_open), model_events $(stat_of model_events)"
check "the queue drains" eq "$(stat_of events_queued)" 0
n=0
while [ "$(stat_of prefetch_inflight_kb)" != 0 ] && [ $n -lt 50 ]; do
	sleep 0.1
	n=$((n + 1))
done
check "nothing stays counted in flight (prefetch_inflight_kb)" eq "$(stat_of prefetch_inflight_kb)" 0
# What the page cache holds, read before it is dropped, against what the
# device holds, read after: a prefetch that failed half way and left a
# page marked uptodate with the wrong bytes shows here, and would not if
# both reads came from the device.  With ppf off, so that measuring does
# not prefetch anything new.  The premise: pages read under the faults are
# still cached (the load's last drop_caches was followed by a second of
# reads).
set_ppf enabled 0
kb=0
for f in $FILES; do kb=$((kb + $(resident_kb /mnt/$f))); done
cache_sums=$(cd /mnt && md5sum $FILES)
drop_caches
dev_sums=$(cd /mnt && md5sum $FILES)
echo "FAULTS $kb KiB of $FILES were cached after the faults"
[ "$dev_sums" = "$sums" ] || echo "# the device's sums changed since the start: $dev_sums"
if premise "pages read under the faults are in the page cache ($kb KiB)" ge "$kb" 1; then
	check "the page cache holds what the device holds" eq "$cache_sums" "$dev_sums"
else
	skip "the page cache holds what the device holds" "nothing was cached"
fi

# An allocation failure counted, made certain: every slab allocation of
# the worker fails (failslab, 100 %, the worker alone marked) while it
# takes the open of P, a file it does not know after the reset, whose
# entry it must allocate (ppf_file_alloc) before anything else.
set_ppf enabled 1
cat /mnt/X > /dev/null	# watched again from its first read
wait_fs 1
settle 0
set_ppf reset 1
attr failslab 100 Y
echo N > $D/failslab/ignore-gfp-wait
echo 1 > /proc/$worker/make-it-fail
cat /mnt/P > /dev/null
settle 0
echo 0 > /proc/$worker/make-it-fail
faults_off
check "an allocation the worker cannot make is counted (dropped_no_memory)" \
	ge "$(stat_of dropped_no_memory)" 1

cd /mnt
set_ppf reset 1
train
settle
drop_caches
cat A > /dev/null
settle
check "after the faults: B C D prefetched after A" eq "$(resident_each B C D)" 256256256
cd /
rmmod predictive_prefetch
check "module unloads" eq $? 0
umount /mnt
check "file system unmounts" eq $? 0
kmemleak_check
finish
