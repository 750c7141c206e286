# test_persist.sh - what was learnt survives a reboot: save, load, export, import
#
# Two boots of the same disks (run_tests.py, boots=2; PPF_BOOT is 1, then 2).
# The workload reads F001..F120 (128 KiB each) in order from a disk whose
# every request takes 1 ms (null_blk, up to 8 at once).  120 files, not 40:
# a run's jitter (a few ms from one run to the next) was up to a tenth of
# the gain of 40 files, and made the 95 % check below fail at random.
#
# Boot 1: the workload cold without ppf; training (the workload, then Z);
# the workload cold with the trained model; `ppfctl save` to the store disk
# (/dev/vdb, mounted as it is, so it keeps what is written across boots).
# Then what a loader must refuse, each time keeping the state it has
# (files and opens held unchanged): a truncated file, a wrong version, a
# wrong checksum, counts past the budget, indices out of range, a file of
# paths given to load, and a load while disabled.  Then export (paths),
# reset, import: the same opens held, predictions as before.
#
# Boot 2: Z is deleted, the saved state loaded: Z is dropped, every
# workload file found.  The first cold run after boot must be as fast as
# the trained runs that follow it, within what the runs' own spread
# allows (see "Margins" below).
#
# Margins.  A cold run's time varies from run to run: a few ms on the test
# kernel, tens of ms on the debug kernel, where an 85 ms gain stood against
# about 50 ms between two runs of one boot and the old checks (medians of
# 3, then ">= 95 % of the gain") failed at random.  So each figure is the
# median of K runs, and each margin is taken from the spread measured in
# the same boot: s, the pooled standard deviation of the runs about their
# own set's median (2K - 2 degrees of freedom).  For normal noise of
# standard deviation sd, a median of K runs varies by about 1.25 sd / sqrt(K),
# a difference of two such medians by 1.25 sd sqrt(2 / K) (0.79 sd for
# K = 5), and one run minus a median of K by sd sqrt(1 + 1.57 / K) (1.15 sd).
# A check allows 4 of these standard deviations (s in place of sd): noise
# alone passes "faster" or fails "as fast" with a chance of the order of
# 0.2 % (Student's t, 8 degrees of freedom).  The second check must still
# be able to fail: its premise is that its margin is below the gain, so
# that a first run that gained nothing fails it; a boot whose spread is too
# wide for that fails the premise, loudly.  What the check then shows is
# that the first run kept at least (gain - margin) / gain of the gain,
# printed: 90-95 % on the test kernel (four runs: s 1-4 ms, gain 107-117 ms).
#
# The debug kernel's runs (4 s, CPU-bound under KASAN) spread too wide for
# either check: in four runs s was 10-24 ms and the gain 56-123 ms, so
# that the first check passed by 5 and 9 ms in two (56 > 51, 88 > 79 ms),
# and the second's margin left between 9 % and 37 % of the gain to show,
# or failed its premise.  There both are skipped, by the kernel (kmemleak
# is the debug kernel's mark), and the figures only printed; the test
# kernel judges them.  (Its first run after the load was in fact the
# fastest in every boot: 3,903-3,924 ms against 3,939-4,022 for the
# trained runs after it.)
. /ppf/guest/lib.sh
. /ppf/guest/test_robust_lib.sh

# Boot 1: 28 checks; boot 2: 6.  Skipped: the timed checks on the debug
# kernel, the second when its premise fails, kmemleak's on a kernel
# without it.
case "$PPF_BOOT" in 1) plan 28 ;; *) plan 6 ;; esac

# On the debug kernel kmemleak scans all memory 60 s after boot, then
# every 10 minutes: seconds of CPU under KASAN, and with -icount QEMU runs
# the vCPUs in turn, so a scan on the other vCPU lengthens whichever timed
# run it falls in.  Automatic scans are off; each boot ends with the
# module unloaded and a scan on demand (kmemleak_check) instead.
[ -e $KMEMLEAK ] && echo scan=off > $KMEMLEAK

# The debug kernel judges no timing (see Margins).
# K runs a median: 5 where it is judged; 2 on the debug kernel, where the
# runs still go through the same paths and print their figures, and three
# more would only cost about 100 s of host time a boot.
judged=1
why=
K=5
if [ -e $KMEMLEAK ]; then
	judged=
	why="the debug kernel: its runs spread too wide to judge a gain of about 100 ms"
	K=2
fi

CTL=/ppf/ppfctl
STATE=/proc/predictive_prefetch_state

workload() {
	for f in w/F*; do
		cat "$f" > /dev/null
	done
}

# The workload's time from a cold cache, in ms.
cold_run() {
	drop_caches
	t0=$(now_ms)
	workload
	t1=$(now_ms)
	echo $((t1 - t0))
}

# K cold runs, in ms; settled between runs (settle has an n of its own).
cold_runs() {
	runs=0
	while [ $runs -lt $K ]; do
		printf '%s ' "$(cold_run)"
		settle 1
		runs=$((runs + 1))
	done
	echo
}

# spread "RUNS" "RUNS": each set's median, then s (see Margins), rounded
# up, in ms.  (Busybox awk may have no math library: no sqrt, no ^.)
spread() {
	echo "$1 | $2" | awk '
	function root(x,  r, i) { r = x > 1 ? x : 1; for (i = 0; i < 60; i++) r = (r + x / r) / 2; return r }
	function med(a, n,  i, j, t) {
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	{
		n = 0; m = 0
		for (i = 1; i <= NF; i++) {
			if ($i == "|") { sep = 1; continue }
			if (!sep) a[++n] = $i; else b[++m] = $i
		}
		for (i = 1; i <= n; i++) x[i] = a[i]
		for (i = 1; i <= m; i++) y[i] = b[i]
		ma = med(x, n); mb = med(y, m)
		for (i = 1; i <= n; i++) v += (a[i] - ma) * (a[i] - ma)
		for (i = 1; i <= m; i++) v += (b[i] - mb) * (b[i] - mb)
		s = root(v / (n + m - 2))
		printf "%d %d %d\n", ma, mb, s == int(s) ? s : int(s) + 1
	}'
}

# margin S FACTOR_X100: 4 standard deviations of a difference whose
# standard deviation is FACTOR_X100 / 100 times s, rounded up, in ms.
margin() {
	echo $(( (4 * $1 * $2 + 99) / 100 ))
}

mount_data /mnt || bail "mount"
mkdir -p /store
mount -t ext4 /dev/vdb /store || bail "mount store"
load_ppf || bail "insmod"
cd /mnt
always_prefetch

# What a refused load must keep: the files and opens held.
held() { echo "$(stat_of files) $(stat_of history_events)"; }

# load_raw FILE: one write of FILE to the kernel, past ppfctl's own checks.
load_raw() {
	dd if="$1" of=$STATE bs=16M 2>/tmp/dd.err
	rc=$?
	err=$(cat /tmp/dd.err)
}

# load_damaged OFFSET VALUE: /tmp/state with the 32-bit field at OFFSET set
# to VALUE and its checksum set right, loaded raw: the loader must find
# what is wrong in the fields themselves.
load_damaged() {
	cp /tmp/state /tmp/damaged
	/ppf/statefix /tmp/damaged "$1" "$2"
	load_raw /tmp/damaged
}

if [ "$PPF_BOOT" = 1 ]; then
	cold_list=$(cold_runs)
	echo "# cold, ppf disabled: $cold_list ms"
	set_ppf enabled 1
	for i in 1 2 3; do
		drop_caches
		workload
		cat w/Z > /dev/null
		settle 1
	done
	trained_list=$(cold_runs)
	echo "# cold, trained: $trained_list ms"
	set -- $(spread "$cold_list" "$trained_list")
	cold=$1 trained=$2 s=$3
	m=$(margin "$s" 79)
	echo "# medians of $K: cold $cold ms, trained $trained ms, gain $((cold - trained)) ms;" \
		"spread s $s ms, margin (4 x 0.79 s) $m ms"
	if [ -n "$judged" ]; then
		check "a trained model makes the cold workload faster, beyond the spread ($((cold - trained)) > $m ms)" \
			[ $((cold - trained)) -gt "$m" ]
	else
		skip "a trained model makes the cold workload faster, beyond the spread" "$why"
	fi

	run $CTL save /store/state
	check "save: exit 0" eq "$rc" 0
	check "save: says how much" has "$out" "^saved [0-9]* files, [0-9]* opens to /store/state"
	nfiles=$(echo "$out" | awk '{ print $2 }')
	check "save: every workload file and Z ($nfiles)" ge "$nfiles" 121
	check "save: the file is a state" eq "$(head -c 8 /store/state)" PPFSTATE
	echo "$cold $trained" > /store/times

	# What a loader must refuse, keeping what it has.  The damaged copies
	# are made in /tmp, which ppf does not watch: opening them changes
	# nothing ppf holds.
	cp /store/state /tmp/state
	settle 1	# that open reaches the worker before the count is taken
	before=$(held)
	size=$(stat -c %s /tmp/state)
	head -c $((size - 10)) /tmp/state > /tmp/trunc
	load_raw /tmp/trunc
	check "truncated: refused with EINVAL" eval '[ $rc -ne 0 ] && has "$err" "Invalid argument"'
	check "truncated: the kernel says why" has "$(dmesg | tail -3)" "truncated"
	run $CTL load /tmp/trunc
	check "truncated: ppfctl names what is wrong" eval '[ $rc -eq 1 ] && has "$err" "truncated"'
	load_damaged 8 2
	check "wrong version: refused" eval '[ $rc -ne 0 ] && has "$(dmesg | tail -1)" "version"'
	cp /tmp/state /tmp/crc
	printf 'X' | dd of=/tmp/crc bs=1 seek=$((size - 1)) conv=notrunc 2>/dev/null
	load_raw /tmp/crc
	check "wrong checksum: refused" eval '[ $rc -ne 0 ] && has "$(dmesg | tail -1)" "checksum"'
	run $CTL load /tmp/crc
	check "wrong checksum: ppfctl says so" has "$err" "checksum"
	load_damaged $((size - 20)) 999999
	check "an event's file out of range: refused" \
		eval '[ $rc -ne 0 ] && has "$(dmesg | tail -1)" "out of range"'
	# A budget as large as the table (a smaller one would trim it).
	table=$(stat_of files)
	set_ppf max_files "$table"
	load_damaged 20 $((table + 1))
	check "files past max_files: refused with EFBIG" \
		eval '[ $rc -ne 0 ] && has "$err" "too large" && has "$(dmesg | tail -1)" "max_files"'
	set_ppf max_files 65536
	load_damaged 24 65537
	check "opens past save_events: refused with EFBIG" \
		eval '[ $rc -ne 0 ] && has "$err" "too large" && has "$(dmesg | tail -1)" "save_events"'
	check "every refused load kept the state" eq "$(held)" "$before"
	set_ppf enabled 0
	run $CTL load /tmp/state
	check "disabled: load refused, says to enable" eval '[ $rc -eq 1 ] && has "$err" "enable it first"'
	set_ppf enabled 1
	check "the state is intact after all that" eq "$(held)" "$before"

	# Export by path, forget, import: the same files and opens come back.
	$CTL save /tmp/now > /tmp/saved
	read _ nfiles _ events _ < /tmp/saved
	run $CTL export /tmp/export
	check "export: exit 0, every file found ($nfiles)" \
		eval '[ $rc -eq 0 ] && has "$out" "^exported $nfiles files (0 not found"'
	check "export: Z, its dentry dropped since its last open, named by its path" \
		grep -q /mnt/w/Z /tmp/export
	run $CTL load /tmp/export
	check "load refuses an export, says to import" eval '[ $rc -eq 1 ] && has "$err" "import"'
	set_ppf reset 1
	check "reset: nothing held" eq "$(held)" "0 0"
	run $CTL import /tmp/export
	check "import: exit 0, every file found" \
		eval '[ $rc -eq 0 ] && has "$out" "^imported $nfiles files (0 not found"'
	check "import: loaded every file and open ($events)" \
		has "$out" "loaded $nfiles files (0 not found, dropped), $events opens replayed"
	[ $rc -eq 0 ] && [ -z "$err" ] || echo "# import: $out $err"
	drop_caches
	cat w/F001 > /dev/null
	settle 2
	check "after import, F001 brings in F002 and F003" \
		eval '[ "$(resident_kb w/F002)" -gt 0 ] && [ "$(resident_kb w/F003)" -gt 0 ]'
	# A state is replayed, not restored: it loads whatever the model is now.
	set_ppf model pcm
	run $CTL load /tmp/now
	check "a state saved under EPCM loads under PCM" \
		eval '[ $rc -eq 0 ] && has "$out" "loaded $nfiles files (0 not found"'
	check "and PCM learnt from it" ge "$(stat_of model_nodes)" 40
	set_ppf model epcm
	cd /
	umount /store
	rmmod predictive_prefetch
	check "module unloads" eq $? 0
	kmemleak_check
else
	read cold trained < /store/times
	rm /mnt/w/Z
	set_ppf enabled 1
	run $CTL load /store/state
	check "after reboot: load exit 0" eq "$rc" 0
	check "after reboot: Z, deleted, is dropped and nothing else" \
		has "$out" "(1 not found, dropped)"
	check "after reboot: opens replayed" ge "$(stat_of history_events)" 360
	first=$(cold_run)
	settle 1
	again_list=$(cold_runs)
	set_ppf enabled 0
	cold2_list=$(cold_runs)
	set -- $(spread "$again_list" "$cold2_list")
	again=$1 cold2=$2 s=$3
	gain=$((cold2 - again))
	m=$(margin "$s" 115)
	echo "# boot 1, medians of $K: cold $cold ms, trained $trained ms"
	echo "# first cold run after reboot and load: $first ms; then trained: $again_list ms;" \
		"cold, ppf disabled: $cold2_list ms"
	echo "# medians of $K: trained $again ms, cold $cold2 ms, gain $gain ms; the first run gained" \
		"$((cold2 - first)) ms; spread s $s ms, margin (4 x 1.15 s) $m ms"
	if [ -z "$judged" ]; then
		skip "the first cold run after boot is as fast as a trained run, within the spread" "$why"
	elif premise "the margin is below the gain, so a first run that gained nothing fails ($m < $gain ms)" \
		[ "$m" -lt "$gain" ]; then
		echo "# the check shows the first run kept at least $(( 100 * (gain - m) / gain )) % of the gain"
		check "the first cold run after boot is as fast as a trained run, within the spread ($first <= $again + $m ms)" \
			[ "$first" -le $((again + m)) ]
	else
		skip "the first cold run after boot is as fast as a trained run, within the spread" \
			"the runs spread too wide to tell"
	fi
	cd /
	umount /store
	rmmod predictive_prefetch
	check "module unloads" eq $? 0
	kmemleak_check
fi
finish
