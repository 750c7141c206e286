# test_robust_lib.sh - helpers of the robustness tests (debug kernel)
#
# Sourced after lib.sh by the test_robust_*.sh scripts; not a test itself.
#
# start_load DIR FILE...   four background shells: cat FILEs, open and read
#                          the start of each (shell builtin read), open each
#                          without reading (dropping the page cache now and
#                          then so that prefetches do I/O), and read the
#                          module's /proc and sysctl files
# stop_load                stop them and wait for them
# w NAME VALUE             a sysctl write that must be accepted; one that is
#                          not is counted in $refused and named
# kmemleak_check           after the module is unloaded: two kmemleak scans,
#                          then /sys/kernel/debug/kmemleak must be empty
# wait_fs N               until N file systems are watched (5 s at most)
# now_ms                   guest CLOCK_MONOTONIC in ms
# resident_each FILE...    KiB of each FILE in the page cache, concatenated
#                          ("256256256"), measured by one run of the tool:
#                          it opens the files, which the module sees, so
#                          everything is measured before it can react

KMEMLEAK=/sys/kernel/debug/kmemleak
STOP=/tmp/stop-load

wait_fs() {
	n=0
	while [ "$(stat_of filesystems)" != "$1" ] && [ $n -lt 50 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	[ "$(stat_of filesystems)" = "$1" ]
}

resident_each() {
	/ppf/resident "$@" | awk '{ printf "%s", $2 } END { print "" }'
}

start_load() {
	dir=$1
	shift
	files="$*"
	rm -f $STOP
	(
		while [ ! -e $STOP ]; do
			for f in $files; do cat "$dir/$f" > /dev/null 2>&1; done
		done
	) &
	(
		while [ ! -e $STOP ]; do
			for f in $files; do read -r x < "$dir/$f"; done 2>/dev/null
		done
	) &
	(
		n=0
		while [ ! -e $STOP ]; do
			for f in $files; do true < "$dir/$f"; done 2>/dev/null
			n=$((n + 1))
			[ $((n % 16)) = 0 ] && echo 1 > /proc/sys/vm/drop_caches
		done
	) &
	(
		while [ ! -e $STOP ]; do
			cat /proc/predictive_prefetch $PPF/* > /dev/null 2>&1
			sleep 0.05
		done
	) &
}

refused=0
w() {
	if ! set_ppf "$1" "$2"; then
		refused=$((refused + 1))
		echo "# refused: $1 <- $2"
	fi
}

stop_load() {
	touch $STOP
	wait
	rm -f $STOP
}

# kmemleak reports only objects older than 5 s and only what two scans
# agree on, so wait, then scan twice.
kmemleak_check() {
	if [ ! -e $KMEMLEAK ]; then
		# The test kernel without the debug options: nothing to scan.
		skip "kmemleak: no leak suspected after the module was unloaded" \
			"no kmemleak in this kernel"
		return
	fi
	# The debug kernel's other detectors: run.py fails a boot on their
	# reports, which proves nothing if they were never armed.
	premise "the debug kernel's hung-task and soft-lockup detectors are on" \
		eval '[ "$(cat /proc/sys/kernel/hung_task_timeout_secs)" -gt 0 ] &&
		      [ "$(cat /proc/sys/kernel/soft_watchdog)" = 1 ]'
	sleep 6
	# A scan that could not run, or a report that could not be read, is
	# not "no leaks": either fails the check.
	if ! { echo scan > $KMEMLEAK && sleep 1 && echo scan > $KMEMLEAK; } 2>/dev/null; then
		check "kmemleak: the scan ran (kmemleak disabled itself?)" false
		return
	fi
	if ! leaks=$(cat $KMEMLEAK 2>&1); then
		check "kmemleak: the report is readable ($leaks)" false
		return
	fi
	check "kmemleak: no leak suspected after the module was unloaded" eq "$leaks" ""
	[ -z "$leaks" ] || echo "$leaks" | head -80 | sed 's/^/# | /'
}

# The module is not loaded (anymore).
unloaded() {
	! grep -q '^predictive_prefetch ' /proc/modules
}
