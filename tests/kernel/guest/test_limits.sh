# test_limits.sh - what max_prefetch_kb, max_inflight_kb, max_files,
# save_events and contexts do, not only that they are accepted
#
# The limits disk (run_tests.py): A B C D X P Q (256 KiB), E (1 MiB), and
# f/F001..f/F080 (4 KiB).  Each part starts from a reset (an empty model
# and file table, counters zeroed) and asserts its premises: a cold cache
# before a prefetch is looked for, the opens a model was to learn from.
#
# max_prefetch_kb   E, read whole after P, comes back whole after P; with
#                   256 only its first 256 KiB do.
# max_inflight_kb   A leads to B C D (256 KiB, one chunk each); with the
#                   default cap they start together, with a cap of one
#                   chunk the plan waits (skipped_inflight) and still reads
#                   them all, one after the other.
# max_files         80 files opened: all remembered, then 64 when lowered
#                   (at once, and after more opens); trained A B C D, then
#                   80 other files: with 64 they are forgotten and A
#                   prefetches nothing, with the default it prefetches them.
# save_events       35 opens held, 10 when lowered (the newest: a state
#                   saved and loaded predicts Q after P, not B after A), 0
#                   holds and saves none.
# contexts          two threads, then two processes, open A and B in turn
#                   (tools/interleave.c): B is learnt after A when the two
#                   are one stream (threads under process, processes under
#                   global), not when they are two (threads under task,
#                   processes under process).
. /ppf/guest/lib.sh
. /ppf/guest/test_robust_lib.sh

plan 28

CTL=/ppf/ppfctl

mount_data /mnt || bail "mount"
load_ppf || bail "insmod"
cd /mnt
hold B C D E Q
always_prefetch
model_only
set_ppf enabled 1

# A reset and a cold cache, before training: on a kernel without the read
# tracepoints (6.1) reads are learnt from the pages they add to the page
# cache, so a file read wholly from the cache would be learnt as read
# nowhere, and prefetched as default_prefetch_kb from its start.
fresh() {
	set_ppf reset 1
	drop_caches
}
# The counters that say what became of predictions, on one line.
counters() {
	echo "# $(awk '$2 != 0 && $1 ~ /^(events_open|predictions|prefetch_issued|pages_requested|skipped_|dropped_|files$)/ { printf "%s %s ", $1, $2 }' /proc/predictive_prefetch)"
}

# ---- max_prefetch_kb ------------------------------------------------------
# E cold, then P opened: "COLD_KB PREFETCHED_KB" of E.  E and X are opened
# afterwards, so that E is not skipped as prefetched recently next time.
e_after_p() {
	drop_caches
	cold=$(resident_kb E)
	cat P > /dev/null
	settle
	counters >&2
	echo "$cold $(resident_kb E)"
	cat E X > /dev/null
	settle 0
}
fresh
for i in 1 2 3 4 5; do
	cat P E > /dev/null
	cat X > /dev/null
done
settle
set -- $(e_after_p)
echo "max_prefetch_kb $(cat $PPF/max_prefetch_kb): E $2 KiB of 1024 after P"
if premise "max_prefetch_kb: E cold before P is opened" eq "$1" 0; then
	check "max_prefetch_kb 2048 (default): E's last use, all 1024 KiB, prefetched" eq "$2" 1024
else
	skip "max_prefetch_kb 2048 (default): E's last use, all 1024 KiB, prefetched" "premise"
fi
set_ppf max_prefetch_kb 256
set -- $(e_after_p)
echo "max_prefetch_kb $(cat $PPF/max_prefetch_kb): E $2 KiB of 1024 after P"
if premise "max_prefetch_kb 256 set, E cold before P is opened" \
	eq "$(cat $PPF/max_prefetch_kb) $1" "256 0"; then
	check "max_prefetch_kb 256: only E's first 256 KiB prefetched" eq "$2" 256
else
	skip "max_prefetch_kb 256: only E's first 256 KiB prefetched" "premise"
fi
set_ppf max_prefetch_kb 2048

# ---- max_inflight_kb ------------------------------------------------------
# inflight_pass (lib.sh) with max_inflight_kb $1; "refused" if it is.
limits_pass() {
	set_ppf max_inflight_kb "$1" || { echo "refused"; return; }
	inflight_pass
	counters >&2
}
fresh
train
settle
set -- $(limits_pass 16384)
echo "max_inflight_kb 16384: B C D cold $1, after A $3, skipped_inflight +$2"
if premise "max_inflight_kb 16384: B C D cold before A is opened" eq "$1" 000; then
	check "max_inflight_kb 16384: B C D prefetched after A" eq "$3" 256256256
	check "max_inflight_kb 16384: their 768 KiB started without waiting" eq "$2" 0
else
	skip "max_inflight_kb 16384: B C D prefetched after A" "premise"
	skip "max_inflight_kb 16384: their 768 KiB started without waiting" "premise"
fi
set -- $(limits_pass 256)
echo "max_inflight_kb 256: B C D cold $1, after A $3, skipped_inflight +$2"
if premise "max_inflight_kb 256: B C D cold before A is opened" eq "$1" 000; then
	check "max_inflight_kb 256: the plan waited while one 256 KiB chunk was in flight" ge "$2" 1
	check "max_inflight_kb 256: B C D all prefetched all the same, one after the other" \
		eq "$3" 256256256
else
	skip "max_inflight_kb 256: the plan waited while one 256 KiB chunk was in flight" "premise"
	skip "max_inflight_kb 256: B C D all prefetched all the same, one after the other" "premise"
fi
set_ppf max_inflight_kb 16384

# ---- max_files ------------------------------------------------------------
fresh
cat f/* > /dev/null
settle 0
check "max_files 65536 (default): the 80 files opened are all remembered" eq "$(stat_of files)" 80
set_ppf max_files 64
check "max_files 64: lowering it forgets the least recently opened at once" eq "$(stat_of files)" 64
cat A B C D X P Q > /dev/null
settle 0
check "max_files 64: seven more files opened, still 64 remembered" eq "$(stat_of files)" 64
# Trained on A B C D, then 80 other files opened: "COLD BCD_AFTER_A FILES".
files_pass() {
	fresh
	train
	cat f/* > /dev/null
	settle
	drop_caches
	cold=$(bcd)
	nfiles=$(stat_of files)
	cat A > /dev/null
	settle
	echo "$cold $(bcd) $nfiles"
	cat B C D X > /dev/null
	settle 0
}
set_ppf max_files 65536
set -- $(files_pass)
echo "max_files 65536: $3 files remembered; B C D after A: $2"
if premise "max_files 65536: B C D cold before A is opened" eq "$1" 000; then
	check "max_files 65536: A's successors remembered across 80 other files: B C D prefetched" \
		eq "$2" 256256256
else
	skip "max_files 65536: A's successors remembered across 80 other files: B C D prefetched" "premise"
fi
set_ppf max_files 64
set -- $(files_pass)
echo "max_files 64: $3 files remembered; B C D after A: $2"
if premise "max_files 64: B C D cold before A is opened, 64 files remembered" \
	eq "$1 $3" "000 64"; then
	check "max_files 64: A B C D forgotten for 80 newer files: nothing prefetched after A" eq "$2" 000
else
	skip "max_files 64: A B C D forgotten for 80 newer files: nothing prefetched after A" "premise"
fi
set_ppf max_files 65536

# ---- save_events ----------------------------------------------------------
fresh
train				# 25 opens: A B C D X
for i in 1 2 3 4 5; do		# 10 more: P Q
	cat P > /dev/null
	cat Q > /dev/null
done
settle 0
check "save_events 65536 (default): all 35 opens held" eq "$(stat_of history_events)" 35
set_ppf save_events 10
check "save_events 10: lowering it keeps 10 opens" eq "$(stat_of history_events)" 10
cat X > /dev/null
settle 0
check "save_events 10: one more open, still 10 held" eq "$(stat_of history_events)" 10
run $CTL save /tmp/s10
echo "# $out $err"
check "save_events 10: a saved state holds 10 opens (of P Q X, the newest)" \
	has "$out" "^saved 3 files, 10 opens"
set_ppf reset 1
run $CTL load /tmp/s10
echo "# $out $err"
check "save_events 10: loading the state replays 10 opens" eq "$(stat_of state_loaded_events)" 10
drop_caches
cold="$(resident_kb Q)$(bcd)"
cat P > /dev/null
settle
q=$(resident_kb Q)
drop_caches
cat A > /dev/null
settle
loaded=$(stat_of state_loaded_events)
echo "after loading $loaded opens: Q after P $q KiB, B C D after A $(bcd)"
# "Nothing after A" means something only if a state was loaded.
if premise "save_events 10: a state loaded, Q B C D cold before P is opened" \
	eval '[ "$loaded" -ge 1 ] && [ "$cold" = 0000 ]'; then
	check "save_events 10: the newest opens were kept: Q prefetched after P" eq "$q" 256
	check "save_events 10: the older ones were not: nothing prefetched after A" eq "$(bcd)" 000
else
	skip "save_events 10: the newest opens were kept: Q prefetched after P" "premise"
	skip "save_events 10: the older ones were not: nothing prefetched after A" "premise"
fi
set_ppf save_events 0
check "save_events 0: no open held" eq "$(stat_of history_events)" 0
cat A B C D > /dev/null
settle 0
check "save_events 0: four more opens, none held" eq "$(stat_of history_events)" 0
run $CTL save /tmp/s0
echo "# $out $err"
check "save_events 0: a saved state holds no opens" has "$out" "^saved 0 files, 0 opens"
set_ppf save_events 65536

# ---- contexts -------------------------------------------------------------
# Under contexts $1, two $2 (threads or procs) open X X A B A B ... in turn;
# then a new process opens A: "STATUS OPENS COLD B_AFTER_A".
ctx_pass() {
	set_ppf contexts "$1" || { echo "refused"; return; }
	fresh
	/ppf/interleave "$2" 5 A B X
	rc=$?
	settle
	opens=$(stat_of events_open)
	drop_caches
	cold=$(resident_kb B)
	cat A > /dev/null
	settle
	echo "$rc $opens $cold $(resident_kb B)"
}
# ctx_case MODE WORKERS WHAT B_AFTER_A
ctx_case() {
	desc="contexts=$1, two $2 opening A and B in turn"
	what=$3
	want=$4
	set -- $(ctx_pass "$1" "$2")
	echo "$desc: exit $1, $2 opens, B $3 KiB cold, $4 KiB after A"
	if premise "$desc: their 12 opens made, B cold before A" eq "$1 $2 $3" "0 12 0"; then
		check "$desc: $what" eq "$4" "$want"
	else
		skip "$desc: $what" "premise"
	fi
}
ctx_case task threads "two streams: B not prefetched after A" 0
ctx_case process threads "one stream: B prefetched after A" 256
ctx_case process procs "two streams: B not prefetched after A" 0
ctx_case global procs "one stream: B prefetched after A" 256
set_ppf contexts task

release
cd /
umount /mnt
check "file system unmounts" eq $? 0
rmmod predictive_prefetch
check "module unloads" eq $? 0
kmemleak_check
finish
