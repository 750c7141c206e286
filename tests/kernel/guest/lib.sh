# lib.sh - sourced by every guest test (busybox sh inside the test VM)
#
# A guest test reports in KTAP (Documentation/dev-tools/ktap.rst), as the
# kernel's own selftests do, so that any KTAP reader can follow it:
#
#   KTAP version 1
#   1..N
#   ok 1 DESC
#   not ok 2 DESC
#   ok 3 DESC # SKIP WHY
#   # premise failed: DESC
#   # Totals: pass:P fail:F xfail:0 xpass:0 skip:S error:0
#
# plan N               the script runs N checks (checked, failed or skipped);
#                      prints the KTAP header and plan
# check DESC CMD...    runs CMD; prints "ok N DESC" or "not ok N DESC"
# skip DESC WHY        a check this kernel cannot run: "ok N DESC # SKIP WHY"
# premise DESC CMD...  a condition the next checks rely on: a failed one
#                      prints "# premise failed: DESC" and counts as a failure
# bail WHAT            the test cannot go on (its setup failed): "Bail out!
#                      WHAT", and the test fails without a totals line
# refuse NAME VALUE    the sysctl write fails with EINVAL and the value stays
# run CMD...           CMD's stdout in $out, stderr in $err, status in $rc
# has TEXT PATTERN     TEXT has a line matching PATTERN
# now_ms               the guest's clock in ms
# finish               prints the totals line (kselftest's) and sets the exit
#                      status: failed when a check or premise failed or when
#                      fewer or more checks ran than planned (said in a
#                      "# plan: ..." line and counted as a failure)

PPF=/proc/sys/vm/predictive_prefetch
passed=0
failed=0
skipped=0
broken=0
planned=
ran=0

plan() {
	planned=$1
	echo "KTAP version 1"
	echo "1..$planned"
}

check() {
	desc=$1
	shift
	ran=$((ran + 1))
	if "$@"; then
		echo "ok $ran $desc"
		passed=$((passed + 1))
	else
		echo "not ok $ran $desc"
		failed=$((failed + 1))
	fi
}

# skip DESC WHY: a check that cannot run on this kernel.  It counts
# towards the plan, so a script whose checks vanish still fails.
skip() {
	ran=$((ran + 1))
	echo "ok $ran $1 # SKIP $2"
	skipped=$((skipped + 1))
}

# premise DESC CMD...: what the following checks assume.  A check whose
# premise silently did not hold proves nothing, so a false premise is a
# failure of its own, reported as such.
premise() {
	desc=$1
	shift
	if "$@"; then
		return 0
	fi
	echo "# premise failed: $desc"
	broken=$((broken + 1))
	return 1
}

# bail WHAT: the setup the checks need failed; stop here.  Without a totals
# line the runner counts the test as failed.
bail() {
	echo "Bail out! $1"
	exit 1
}

# run CMD...: its stdout in $out, stderr in $err, exit status in $rc.
run() {
	out=$("$@" 2>/tmp/run.err)
	rc=$?
	err=$(cat /tmp/run.err)
}

has() { echo "$1" | grep -q -- "$2"; }

now_ms() {
	echo $(($(ppf-clock) / 1000000))
}

# The end of a test on the data disk at /mnt: the held descriptors closed,
# the file system unmounted with the module loaded and the module unloaded
# (two checks), then the totals (finish).
finish_unloaded() {
	release
	cd /
	umount /mnt
	check "file system unmounts with the module loaded" eq $? 0
	rmmod predictive_prefetch
	check "module unloads" eq $? 0
	finish
}

finish() {
	failed=$((failed + broken))
	if [ -z "$planned" ]; then
		echo "# plan: the script declares no plan"
		failed=$((failed + 1))
	elif [ "$ran" -ne "$planned" ]; then
		echo "# plan: $planned checks planned, $ran ran"
		failed=$((failed + 1))
	fi
	echo "# Totals: pass:$passed fail:$failed xfail:0 xpass:0 skip:$skipped error:0"
	[ "$failed" -eq 0 ]
}

# hold FILE...: open each FILE on a descriptor of this shell (3 to 9), for
# resident_kb to measure through.  Opening a file is an event the module
# learns from and acts on, so files are held open before it is enabled and
# measured without opening them again.
next_fd=3
hold() {
	for f in "$@"; do
		eval "exec $next_fd< \"$f\""
		eval "held_$(echo "$f" | tr -c 'A-Za-z0-9\n' _)=$next_fd"
		next_fd=$((next_fd + 1))
	done
}

# KiB of FILE in the page cache (through its held descriptor if any).
resident_kb() {
	fd=$(eval echo "\${held_$(echo "$1" | tr -c 'A-Za-z0-9\n' _):-}")
	if [ -n "$fd" ]; then
		/ppf/resident "@$fd" | awk '{ print $2 }'
	else
		/ppf/resident "$1" | awk '{ print $2 }'
	fi
}

# KiB of B, C and D in the page cache, on one line ("256256256": all three).
bcd() { echo "$(resident_kb B)$(resident_kb C)$(resident_kb D)"; }

# One pass of the trained A -> B C D chain from a cold cache, with the
# settings in place: "COLD SKIPPED_INFLIGHT_DELTA BCD_AFTER_A", where the
# delta counts the plan's waits for room in flight. Reads B C D X after,
# so that the next pass finds the chain as learnt.
inflight_pass() {
	drop_caches
	cold=$(bcd)
	s=$(stat_of skipped_inflight)
	cat A > /dev/null
	settle
	echo "$cold $(($(stat_of skipped_inflight) - s)) $(bcd)"
	cat B C D X > /dev/null
	settle 0
}

# Close the held descriptors (before unmounting).
release() {
	while [ $next_fd -gt 3 ]; do
		next_fd=$((next_fd - 1))
		eval "exec $next_fd<&-"
	done
}

# A counter from /proc/predictive_prefetch.
stat_of() {
	awk -v k="$1" '$1 == k { print $2 }' /proc/predictive_prefetch
}

# Files whose pages the worker looked at: handles decoded, and files judged
# by their inode instead (readahead.c).
looks() {
	echo $(($(stat_of decodes) + $(stat_of decodes_spared)))
}

# mount_data DIR: the data disk, mounted on DIR.  When the kernel has a
# memory-backed null_blk device (null_blk.memory_backed=1 on the command
# line), the image on /dev/vda is copied onto it first: its I/O completes in
# guest time, so page-cache tests do not depend on how fast the host served
# a virtio request (with QEMU's -icount sleep=off, an idle guest's clock
# jumps ahead without waiting for the host).
mount_data() {
	mkdir -p "$1"
	dev=/dev/vda
	if [ -b /dev/nullb0 ]; then
		dd if=/dev/vda of=/dev/nullb0 bs=1M 2>/dev/null || return 1
		dev=/dev/nullb0
	fi
	mount -t ext4 "$dev" "$1"
}

load_ppf() {
	insmod /ppf/predictive_prefetch.ko "$@"
}

# always_prefetch: turn off the back-off of devices where prefetching does
# not pay (backoff, mm/prefetch/payoff.c).  The tests that assert what gets
# prefetched train on a cached, fast disk, which is exactly where a device
# is rightly paused; test_predict.sh tests the back-off itself.
always_prefetch() {
	set_ppf backoff 0
}

# model_only: no directory sweeps (sweep.c) and no task runs (run_set.c),
# for the checks of what the model's predictions alone prefetch, and when.
# They train on a few files of one directory opened back to back, which a
# sweep reads all at once (a round: the directory passed through again);
# test_predict.sh tests sweeps themselves, test_runs.sh task runs.
model_only() {
	set_ppf sweep 0
	set_ppf task_runs 0
}

# trained_cold: the model's predictions alone, every one acted on
# (always_prefetch, model_only), enabled and trained (train), then every
# page cache dropped: what the tests of one prefetch start from.
trained_cold() {
	always_prefetch
	model_only
	set_ppf enabled 1
	train
	settle
	drop_caches
}

# Write VALUE to sysctl NAME; succeeds only if the kernel accepted it.
set_ppf() {
	echo "$2" > "$PPF/$1" 2>/dev/null
}

# refuse NAME VALUE: the write fails with EINVAL and the value stays.
refuse() {
	before=$(cat "$PPF/$1")
	err=$( (echo "$2" > "$PPF/$1") 2>&1 )
	rc=$?
	after=$(cat "$PPF/$1")
	if [ $rc -ne 0 ] && [ "$before" = "$after" ] &&
	   echo "$err" | grep -q "Invalid argument"; then
		return 0
	fi
	echo "# $1 <- '$2': rc $rc, '$before' -> '$after', $err"
	return 1
}

# The worker thread's pid (its comm is ppf_prefetch).
worker_pid() {
	for p in /proc/[0-9]*; do
		[ "$(cat "$p/comm" 2>/dev/null)" = ppf_prefetch ] && echo "${p#/proc/}"
	done
}

drop_caches() {
	sync
	echo 3 > /proc/sys/vm/drop_caches
}

# Wait until the worker has taken every queued event and acted on it
# (it runs asynchronously), then a little more for readahead I/O.
settle() {
	n=0
	while [ "$(stat_of events_queued)" != 0 ] && [ $n -lt 100 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	sleep "${1:-1}"
}

# train [FILE...]: what the prediction tests teach the model: five rounds of
# reading FILEs in order (A B C D by default), with X between rounds, in the
# current directory.  The caller settles when it needs the worker caught up.
train() {
	[ $# -gt 0 ] || set -- A B C D
	for i in 1 2 3 4 5; do
		cat "$@" > /dev/null
		cat X > /dev/null
	done
}

ge() { [ "$1" -ge "$2" ]; }
le() { [ "$1" -le "$2" ]; }
eq() { [ "$1" = "$2" ]; }
