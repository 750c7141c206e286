# bench_hooks.sh - what ppf's hooks cost per open and per read
#
# The same loop of 20000 opens (+ close) and 20000 cached 4 KiB preads on a
# watched ext4 file, without the module, with it loaded but disabled, and
# enabled (learning from every open).  The guest clock is QEMU's instruction
# counter: figures are deterministic, in instructions x 4 ns.
. /ppf/guest/lib.sh

plan 2
mount_data /mnt || exit 1
N=20000
bench_case() {
	o=$(/ppf/hookbench open /mnt/A $N | awk '{ print $2 }')
	r=$(/ppf/hookbench read /mnt/A $N | awk '{ print $2 }')
	echo "BENCH $1 open_ns=$o read_ns=$r"
}
bench_case none
load_ppf measure_hooks=1 || exit 1

settle
bench_case loaded_disabled
# backoff stays on (the default): the hooks look up the device's pause;
# this loop uses no prefetch, so the device is never paused.
set_ppf enabled 1
cat /mnt/X > /dev/null		# the file system is watched from its first read
settle
w0=$(stat_of worker_ns)
c0=$(stat_of worker_cpu_ns)
bench_case enabled
settle
w1=$(stat_of worker_ns)
c1=$(stat_of worker_cpu_ns)
echo "BENCH worker_ns_total=$((w1 - w0)) per_model_event_ns=$(( (w1 - w0) / $(stat_of model_events) ))"
echo "BENCH worker_cpu_ns_total=$((c1 - c0)) cpu_per_model_event_ns=$(( (c1 - c0) / $(stat_of model_events) ))"
echo "BENCH hook_open_ns_per_call=$(( $(stat_of hook_open_ns) / $(stat_of events_open) )) hook_read_ns_per_call=$(( $(stat_of hook_read_ns) / $(stat_of events_read) ))"
grep -E "events_open|events_read|model_events|dropped_ring|dropped_paused|hook_" /proc/predictive_prefetch
opens=$(stat_of events_open)
set_ppf enabled 0
rmmod predictive_prefetch
check "the enabled run's $N opens were all seen by the hook ($opens)" ge "$opens" "$N"
check "the worker's CPU time is counted" ge "$((c1 - c0))" 1
finish
