# test_queue.sh - max_inflight_ms: on a device without an arm, the prefetched
# data queued is what the device's measured rate moves in that time, not
# max_inflight_kb, so that a task's read waits behind little of it
#
# The limits disk (run_tests.py: A B C D X P Q of 256 KiB, E of 1 MiB) on a
# null_blk device that serves a request in 1 ms and at most 16 MiB/s.
#
# rate      cold reads of E and P until the worker figures the device's
#           rate (the ppf_device_rate tracepoint); it cannot pass the
#           device's 16 MiB/s by more than the busy time's rounding, and
#           the queue it gives is max_inflight_ms of it, at least 512 KiB.
# bound     A leads to B C D (256 KiB, one chunk each): at 16 MiB/s the
#           default 20 ms (anything up to 31 ms) is less than two chunks,
#           so the queue holds two (the least) and the plan waits for the
#           third (skipped_inflight); all three are read ahead all the same.
# off       with max_inflight_ms 0 the three start together (max_inflight_kb
#           alone), and so they do with the disk made rotational, where a
#           deep queue is what the elevator sorts.
. /ppf/guest/lib.sh

plan 11

TRACE=/sys/kernel/tracing

mount_data /mnt || bail "mount"
load_ppf || bail "insmod"
cd /mnt
hold B C D E Q
always_prefetch
model_only
set_ppf enabled 1

blk=${dev##*/}
majmin=$(cat /sys/block/$blk/dev)
rot=/sys/block/$blk/queue/rotational

# ---- rate -------------------------------------------------------------------
premise "the data disk has no arm (queue/rotational 0)" eq "$(cat $rot)" 0
echo 1 > $TRACE/events/predictive_prefetch/ppf_device_rate/enable
echo > $TRACE/trace
n=0
while ! grep -q "ppf_device_rate: dev=$majmin " $TRACE/trace && [ $n -lt 40 ]; do
	drop_caches
	cat E P Q > /dev/null
	n=$((n + 1))
done
settle
line=$(grep "ppf_device_rate: dev=$majmin " $TRACE/trace | tail -1)
echo 0 > $TRACE/events/predictive_prefetch/ppf_device_rate/enable
echo "# after $n passes: $line"
rate=$(echo "$line" | sed -n 's/.* rate=\([0-9]*\)kB\/s.*/\1/p')
queue=$(echo "$line" | sed -n 's/.* queue=\([0-9]*\)kB.*/\1/p')
check "rate: the device's rate is figured (ppf_device_rate)" [ -n "$rate" ]
# 16 MiB/s is 16,384 kB/s; io_ticks counts whole jiffies, so a figure may
# be a little above it, never far.
check "rate: within the device's 16 MiB/s" le "${rate:-0}" 20480
check "rate: more than nothing" ge "${rate:-0}" 1
ms=$(cat $PPF/max_inflight_ms)
want=$((${rate:-0} * ms / 1000))
[ $want -lt 512 ] && want=512
[ $want -gt 16384 ] && want=16384
check "rate: the queue is max_inflight_ms ($ms) of it, at least 512 KiB ($want kB)" \
	eq "${queue:-none}" "$want"

# ---- bound ------------------------------------------------------------------
set_ppf reset 1
drop_caches
train
settle
set -- $(inflight_pass)
echo "# max_inflight_ms $ms: B C D cold $1, after A $3, skipped_inflight +$2"
if premise "bound: B C D cold before A is opened, and the queue under 768 KiB" \
	eq "$1 $((${queue:-768} < 768))" "000 1"; then
	check "bound: the plan waited while two 256 KiB chunks were queued" ge "$2" 1
	check "bound: B C D all prefetched all the same" eq "$3" 256256256
else
	skip "bound: the plan waited while two 256 KiB chunks were queued" "premise"
	skip "bound: B C D all prefetched all the same" "premise"
fi

# ---- off --------------------------------------------------------------------
set_ppf max_inflight_ms 0
set -- $(inflight_pass)
echo "# max_inflight_ms 0: B C D cold $1, after A $3, skipped_inflight +$2"
if premise "off: B C D cold before A is opened" eq "$1" 000; then
	check "off: max_inflight_ms 0, the three started without waiting" eq "$2" 0
	check "off: max_inflight_ms 0, B C D prefetched" eq "$3" 256256256
else
	skip "off: max_inflight_ms 0, the three started without waiting" "premise"
	skip "off: max_inflight_ms 0, B C D prefetched" "premise"
fi
set_ppf max_inflight_ms "$ms"
echo 1 > $rot
set -- $(inflight_pass)
is_rot=$(cat $rot)
echo 0 > $rot
echo "# rotational: B C D cold $1, after A $3, skipped_inflight +$2"
if premise "off: B C D cold before A is opened, the disk made rotational" \
	eq "$1 $is_rot" "000 1"; then
	check "off: on a rotational disk the three started without waiting" eq "$2" 0
else
	skip "off: on a rotational disk the three started without waiting" "premise"
fi

finish_unloaded
