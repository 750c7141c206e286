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
# checks: nothing oopsed or leaked (run.py and kmemleak), allocation
# failures were counted (dropped_no_memory), the queue drains, nothing
# stays counted in flight (prefetch_inflight_kb goes to 0), every file reads
# back as it was, the model learns again, the module unloads.
. /ppf/guest/lib.sh
. /ppf/guest/test_robust_lib.sh

D=/sys/kernel/debug
mount_data /mnt || { echo "FAIL mount"; exit 1; }
load_ppf || { echo "FAIL insmod"; exit 1; }
always_prefetch
set_ppf enabled 1
cat /mnt/X > /dev/null
check "the data disk is watched" wait_fs 1
FILES="A B C D X P Q E G"
sums=$(cd /mnt && md5sum $FILES)
if [ ! -d $D/failslab ] || [ ! -d $D/fail_make_request ]; then
	echo "skip: this kernel has no fault injection"
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
while [ $(($(now_ms) - t0)) -lt 8000 ]; do
	sleep 1
	secs=$((secs + 1))
	nomem=$((nomem + $(stat_of dropped_no_memory)))
	set_ppf reset 1
	if [ $((secs % 2)) = 1 ]; then set_ppf isolation user; else set_ppf isolation none; fi
	echo 1 > /proc/sys/vm/drop_caches
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
check "allocation failures were counted (dropped_no_memory)" ge "$nomem" 1
check "the queue drains" eq "$(stat_of events_queued)" 0
n=0
while [ "$(stat_of prefetch_inflight_kb)" != 0 ] && [ $n -lt 50 ]; do
	sleep 0.1
	n=$((n + 1))
done
check "nothing stays counted in flight (prefetch_inflight_kb)" eq "$(stat_of prefetch_inflight_kb)" 0
drop_caches
check "every file reads back as it was" eq "$(cd /mnt && md5sum $FILES)" "$sums"

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
