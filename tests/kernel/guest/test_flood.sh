# test_flood.sh - an event flood: two tasks opening files as fast as they can
#
# Two openflood tasks (one per virtual CPU) open and close 256 files in
# turn for 2 s of guest time, first with the module loaded but disabled,
# then enabled.  What is reported: opens a second and the cost of one, with
# and without ppf, and how many events were dropped because the worker was
# behind (dropped_ring_full).  What is checked: every open is counted, and
# every counted event either reached the model or was counted as dropped
# (nothing lost silently); the queue drains; the openers kept opening while
# the ring was full (they never wait for the worker: a full ring drops).
#
# The ring must fill, or the last check tests nothing: left to the
# scheduler, the worker kept up with two openers on the debug kernel
# (dropped ring_full 0).  So the worker is made to fall behind by
# construction: it is pinned to CPU 0, and one opener runs there as a
# real-time task (openflood's CPU argument: SCHED_FIFO), which no task of
# the normal class (the worker is SCHED_BATCH) preempts.  The worker gets
# on CPU 0 only what real-time throttling leaves (50 ms of each second),
# while that opener alone queues an event per open: the ring's 1,024
# records (PPF_RING_SIZE) are full within its first 1,024 opens, a few ms,
# and stay full.  That the ring did fill is asserted (a premise).  Both
# floods, disabled and enabled, run the same way.
. /ppf/guest/lib.sh

plan 5
mount_data /mnt || bail "mount"
load_ppf || bail "insmod"
always_prefetch
/ppf/openflood /mnt/flood 256 0 || bail "making the files"

worker=
for p in /proc/[0-9]*; do
	[ "$(cat $p/comm 2>/dev/null)" = ppf_prefetch ] && worker=${p#/proc/}
done
taskset -p 1 "$worker" > /dev/null || bail "pinning the worker ($worker) to CPU 0"

# flood LABEL: two openers at once, the first real-time on the worker's
# CPU; prints their summed opens and mean cost.
flood() {
	/ppf/openflood /mnt/flood 256 2 0 > /tmp/flood.1 &
	/ppf/openflood /mnt/flood 256 2 > /tmp/flood.2 &
	wait
	cat /tmp/flood.1 /tmp/flood.2 | awk -v l="$1" '
		{ split($1, a, "="); split($2, b, "="); split($3, c, "=");
		  n += a[2]; ns += b[2]; if (c[2] > max) max = c[2] }
		END { printf "%d %d %d\n", n, ns / NR, max }'
}
set -- $(flood disabled)
off_opens=$1 off_ns=$2 off_max=$3
echo "FLOOD disabled: $off_opens opens in 2 s by 2 tasks, $off_ns ns an open, longest $off_max ns"

set_ppf enabled 1
cat /mnt/X > /dev/null
settle
e0=$(stat_of events_open); x0=$(stat_of events_exec); m0=$(stat_of model_events)
r0=$(stat_of dropped_ring_full); h0=$(stat_of dropped_no_handle); n0=$(stat_of dropped_no_memory)
set -- $(flood enabled)
on_opens=$1 on_ns=$2 on_max=$3
settle 2
e1=$(stat_of events_open); x1=$(stat_of events_exec); m1=$(stat_of model_events)
r1=$(stat_of dropped_ring_full); h1=$(stat_of dropped_no_handle); n1=$(stat_of dropped_no_memory)
events=$((e1 - e0 + x1 - x0))
model=$((m1 - m0))
dropped=$((r1 - r0 + h1 - h0 + n1 - n0))
echo "FLOOD enabled: $on_opens opens in 2 s by 2 tasks, $on_ns ns an open, longest $on_max ns"
echo "FLOOD events $events: to the model $model, dropped ring_full $((r1 - r0)) no_handle $((h1 - h0)) no_memory $((n1 - n0))"
echo "FLOOD the worker: $(stat_of worker_cpu_ns) ns of CPU since load"
check "flood: every open counted" ge "$((e1 - e0))" "$on_opens"
check "flood: every event reached the model or was counted dropped" eq "$((model + dropped))" "$events"
check "flood: the queue drains" eq "$(stat_of events_queued)" 0
if premise "flood: the ring filled (dropped_ring_full > 0), or the next check tests nothing" \
	ge "$((r1 - r0))" 1; then
	check "flood: with the ring full, the openers went on (drops, not waits)" ge "$on_opens" "$((off_opens / 4))"
else
	skip "flood: with the ring full, the openers went on (drops, not waits)" "the ring never filled"
fi
taskset -p 3 "$worker" > /dev/null

set_ppf enabled 0
rmmod predictive_prefetch
check "module unloads after the flood" eq $? 0
finish
