# lib.sh - sourced by every guest test (busybox sh inside the test VM)
#
# check DESC CMD...    runs CMD; prints "ok   DESC" or "FAIL DESC"
# finish               prints "N passed, N failed" and sets the exit status

PPF=/proc/sys/vm/predictive_prefetch
passed=0
failed=0

check() {
	desc=$1
	shift
	if "$@"; then
		echo "ok   $desc"
		passed=$((passed + 1))
	else
		echo "FAIL $desc"
		failed=$((failed + 1))
	fi
}

finish() {
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ]
}

# KiB of FILE in the page cache.  The tool has to open the file, and an
# open is what the module learns from and reacts to: switch it off while
# looking, so that measuring does not change what is measured.
resident_kb() {
	was=0
	[ -e "$PPF/enabled" ] && was=$(cat "$PPF/enabled") && echo 0 > "$PPF/enabled"
	/ppf/resident "$1" | awk '{ print $2 }'
	[ -e "$PPF/enabled" ] && echo "$was" > "$PPF/enabled"
	return 0
}

# A counter from /proc/predictive_prefetch.
stat_of() {
	awk -v k="$1" '$1 == k { print $2 }' /proc/predictive_prefetch
}

load_ppf() {
	insmod /ppf/predictive_prefetch.ko "$@"
}

# Write VALUE to sysctl NAME; succeeds only if the kernel accepted it.
set_ppf() {
	echo "$2" > "$PPF/$1" 2>/dev/null
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

ge() { [ "$1" -ge "$2" ]; }
le() { [ "$1" -le "$2" ]; }
eq() { [ "$1" = "$2" ]; }
