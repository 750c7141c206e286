# test_queue.sh - max_inflight_ms: on a device without an arm, the prefetched
# data queued is what the device's measured rate moves in that time, not
# max_inflight_kb, so that a task's read waits behind little of it; and on
# one with an arm, a file read sparsely has only the chunks read that spare
# reads worth their cost
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
# sparse    with the disk made rotational (files read sparsely are judged
#           only on a disk with an arm), E (1 MiB) read by pread(2) at one
#           page in 64 KiB, after A: a 256 KiB chunk would spare its task 4
#           reads of about 1 ms and cost one and 256 KiB at 16 MiB/s (16
#           ms), so after A E is not read ahead (ppf_sparse verdict=skip,
#           skipped_sparse).  Read at every other page instead, a chunk
#           spares 32 reads: it pays, and after A the whole span is read
#           ahead (verdict=read).  Read at every other page of its first
#           256 KiB and at one page in 64 KiB after, only the first chunk
#           pays, and only it is read ahead.  The device's costs, which the
#           verdict needs, are known first: its rate from the passes above,
#           its quiet latency from files read one by one with nothing
#           predicted (mm/prefetch/readahead.c, DOC: Sparse files).
. /ppf/guest/lib.sh

plan 18

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

# ---- sparse -----------------------------------------------------------------
# every_kb STEP FROM TO: the ranges of one page at each STEP KiB of E from
# FROM KiB to TO KiB
every_kb() {
	o=$2
	while [ $o -lt $3 ]; do
		printf '%s 4 ' $o
		o=$(($o + $1))
	done
}
# sparse_pass RANGES...: train A E X with E read by pread(2) at RANGES, drop
# the caches, open A; prints skipped_sparse's rise and E's KiB read ahead
sparse_pass() {
	set_ppf reset 1
	for i in 1 2 3 4 5; do
		cat A > /dev/null
		/ppf/mapped pread E "$@" || echo "# mapped pread failed"
		cat X > /dev/null
	done
	settle
	drop_caches
	s=$(stat_of skipped_sparse)
	echo > $TRACE/trace
	cat A > /dev/null
	settle
	echo "$(($(stat_of skipped_sparse) - s)) $(resident_kb E)"
}
# sparse_verdict: the latest ppf_sparse line for the data disk
sparse_verdict() {
	grep "ppf_sparse: dev=$majmin " $TRACE/trace | tail -1
}
set_ppf reset 1
drop_caches
for f in f/F00* f/F01* f/F02* f/F03*; do	# quiet reads: nothing predicted
	cat $f > /dev/null
	sleep 0.02
done
echo 1 > $rot
echo 1 > $TRACE/events/predictive_prefetch/ppf_sparse/enable
set -- $(sparse_pass $(every_kb 64 0 1024))
line=$(sparse_verdict)
echo "# one page in 64 KiB: skipped_sparse +$1, E after A $2 KiB; $line"
if premise "sparse: E judged on a disk with an arm, its costs known (ppf_sparse)" \
	[ -n "$line" -a "$(cat $rot)" = 1 ]; then
	check "sparse: no chunk of E pays (verdict=skip)" has "$line" "verdict=skip"
	check "sparse: counted in skipped_sparse" ge "$1" 1
	check "sparse: E not read ahead after A" eq "$2" 0
else
	skip "sparse: no chunk of E pays (verdict=skip)" "premise"
	skip "sparse: counted in skipped_sparse" "premise"
	skip "sparse: E not read ahead after A" "premise"
fi
set -- $(sparse_pass $(every_kb 8 0 1024))
line=$(sparse_verdict)
echo "# every other page: skipped_sparse +$1, E after A $2 KiB; $line"
if premise "sparse: E judged again (ppf_sparse)" [ -n "$line" ]; then
	check "sparse: every other page, E's chunks pay (verdict=read)" has "$line" "verdict=read"
	check "sparse: all E's span read ahead after A (1020 KiB)" ge "$2" 1020
else
	skip "sparse: every other page, E's chunks pay (verdict=read)" "premise"
	skip "sparse: all E's span read ahead after A (1020 KiB)" "premise"
fi
set -- $(sparse_pass $(every_kb 8 0 256) $(every_kb 64 256 1024))
line=$(sparse_verdict)
echo 0 > $TRACE/events/predictive_prefetch/ppf_sparse/enable
echo 0 > $rot
echo "# every other page of the first 256 KiB, then one in 64 KiB: E after A $2 KiB; $line"
if premise "sparse: E judged a third time (ppf_sparse)" [ -n "$line" ]; then
	check "sparse: its first chunk pays (verdict=read)" has "$line" "verdict=read"
	check "sparse: that chunk alone read ahead after A (256 KiB)" eq "$2" 256
else
	skip "sparse: its first chunk pays (verdict=read)" "premise"
	skip "sparse: that chunk alone read ahead after A (256 KiB)" "premise"
fi

finish_unloaded
