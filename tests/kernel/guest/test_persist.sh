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
# workload file found.  The first cold run after boot must gain (cold time
# minus its time) at least 95 % of what boot 1's trained run gained.
. /ppf/guest/lib.sh

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

# The median of three cold runs, in ms; settled between runs.
median3() {
	a=$(cold_run); settle 1
	b=$(cold_run); settle 1
	c=$(cold_run); settle 1
	echo "$a $b $c" | tr ' ' '\n' | sort -n | sed -n 2p
}

mount_data /mnt || { echo "FAIL mount"; exit 1; }
mkdir -p /store
mount -t ext4 /dev/vdb /store || { echo "FAIL mount store"; exit 1; }
load_ppf || { echo "FAIL insmod"; exit 1; }
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
	cold=$(median3)
	echo "  cold, ppf disabled: $cold ms (median of 3)"
	set_ppf enabled 1
	for i in 1 2 3; do
		drop_caches
		workload
		cat w/Z > /dev/null
		settle 1
	done
	trained=$(median3)
	echo "  cold, trained: $trained ms (median of 3)"
	check "a trained model makes the cold workload faster" \
		[ "$trained" -lt "$cold" ]

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
	[ $rc -eq 0 ] && [ -z "$err" ] || echo "  import: $out $err"
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
	again=$(median3)
	echo "  cold without ppf (boot 1): $cold ms; trained (boot 1): $trained ms"
	echo "  first cold run after reboot and load: $first ms; then $again ms (median of 3)"
	gain=$((cold - trained))
	check "the first cold run after boot gains >= 95 % of a trained run's ($((cold - first)) vs $gain ms)" \
		[ $((100 * (cold - first))) -ge $((95 * gain)) ]
	cd /
	umount /store
fi
finish
