# test_access.sh - exec events, reads through mappings, unprivileged access
#
# Files A B C D X P Q (256 KiB), E G (1 MiB): the data disk (run_tests.py);
# prog, a copy of the static tool /ppf/mapped made on it here, is executed
# from it.
#
# exec      an exec is an event of its own (events_exec, ppf_event "exec"),
#           not also an open; the model learns from it as from an open (B C
#           D follow prog's exec and are prefetched after it) and the
#           executed file is prefetched like any other (prog after A).
# mappings  E is only ever read through a mapping, 64 KiB at 512 KiB
#           (tools/mapped.c; no read(2), no read-around): after P exactly
#           those 64 KiB are prefetched, not E's first default_prefetch_kb
#           as for a file whose reads were not seen.
# page maps G (1 MiB) is only ever read through a mapping, one page at 128,
#           640 and 960 KiB, each faulted from a cold cache: with
#           page_map_windows never, after P
#           exactly those three pages are prefetched (its page map,
#           page_map.c), not the three quarters of G their 256 KiB segments
#           make; and G's own open reads the pages the open's task has not
#           faulted yet (opened_planned), at the idle class on a disk
#           made rotational for it, as ppf_prefetch's class shows; and a
#           state saved and loaded brings the map back (after a reset, P
#           again brings the three pages alone).  Q (256 KiB, one segment) is faulted the same
#           way at 16, 128 and 240 KiB: a small library gets a page map too,
#           and after P its three pages are prefetched, not its segment.
#           H (1 MiB) is scanned through a mapping after C, every page in
#           order and from a cold cache (tools/mapped.c scan: with the
#           kernel's read-around, which leaves a few faults in 32 pages,
#           fault-around mapping the rest): a stream of touches, so after C
#           all of it is prefetched, not the comb of pages that faulted
#           (132-300 KiB when every fault sets its own pages alone).
#           With the disk made rotational, and with page_map_windows
#           always on it as it is, G faulted at one page: its new map
#           learns fault-around's 64 KiB window around it (ppf_page_map
#           learn=windows), and after P the window is prefetched, not the
#           page alone.  Off a rotational disk, page_map_windows auto
#           learns the same window as a miss (learn=misses: the fault
#           inside it found its page not cached).  The same when
#           page_map_windows goes from never to
#           always after G's map was made, with no reset: the map takes
#           the new choice at G's next open (ppf_page_map learn=faults,
#           then learn=windows).  With page_map_windows misses, the same
#           window is learnt (learn=misses: the fault inside it says that
#           the page was not cached), and not when the page was read, and
#           so cached, before its touch (the map made by a fault at 128
#           KiB first): then the page alone is, not the 60 KiB after it.
#           page_map_windows counts the windows learnt, and none while the
#           sysctl is never.
#           Not on 6.1, which has no fault tracepoint: there a mapped file
#           keeps its segments.
# access    uid 1000 reads the statistics and the settings, and may change
#           nothing: a setting, reset, enabled, through ppfctl too.
#           /proc/predictive_prefetch_state is root's: uid 1000 can neither
#           read nor load it (its mode), nor can root without CAP_SYS_ADMIN
#           (tools/nocap.c; ppf's own check, the mode lets root in); the
#           same load by root does load.
. /ppf/guest/lib.sh
. /ppf/guest/test_robust_lib.sh

plan 60

CTL=/ppf/ppfctl
STATE=/proc/predictive_prefetch_state
TRACE=/sys/kernel/tracing

mount_data /mnt || bail "mount"
load_ppf || bail "insmod"
cd /mnt
cp /ppf/mapped prog
sync
hold B C D E G H Q prog
always_prefetch
set_ppf enabled 1

as() { uid=$1; shift; /ppf/runas "$uid" "$@"; }

# ---- exec events ----------------------------------------------------------
cat X > /dev/null	# the data disk watched from its first read
settle 0
set_ppf reset 1
echo 1 > $TRACE/events/predictive_prefetch/ppf_event/enable
echo > $TRACE/trace
./prog exit
rc=$?
settle 0
trace=$(grep -v "^#" $TRACE/trace)
echo 0 > $TRACE/events/predictive_prefetch/ppf_event/enable
echo "one exec of prog: events_exec $(stat_of events_exec) events_open $(stat_of events_open);" \
	"$(echo "$trace" | grep ppf_event)"
if premise "exec: prog, on the data disk, runs" eq "$rc" 0; then
	check "exec: counted as an exec (events_exec 1)" eq "$(stat_of events_exec)" 1
	check "exec: not also as an open (events_open 0)" eq "$(stat_of events_open)" 0
	check "exec: tracepoint ppf_event says exec" \
		eval 'echo "$trace" | grep -q "ppf_event: dev=.* exec$"'
else
	skip "exec: counted as an exec (events_exec 1)" "premise"
	skip "exec: not also as an open (events_open 0)" "premise"
	skip "exec: tracepoint ppf_event says exec" "premise"
fi

# From a cold cache: on 6.1 reads are learnt from the pages they add.
set_ppf reset 1
drop_caches
for i in 1 2 3 4 5; do
	cat A > /dev/null
	./prog exit
	cat B C D > /dev/null
	cat X > /dev/null
done
settle
# A first: the chain it predicts, prog B C D, comes back (prog included).
# Then prog runs, and B C D X are opened, so that none of them counts as
# prefetched recently and not opened (skipped_recent) at prog's own test.
drop_caches
cold="$(resident_kb prog)$(bcd)"
cat A > /dev/null
settle
prog_kb=$(resident_kb prog)
./prog exit
cat B C D X > /dev/null
settle 0
drop_caches
cold="$cold$(bcd)"
./prog exit
settle
after_exec=$(bcd)
echo "after A: prog $prog_kb KiB of $(/ppf/resident "@$held_prog" | awk '{ print $3 }'); after prog ran: B C D $after_exec"
if premise "exec: prog, B, C and D cold before each test" eq "$cold" 0000000; then
	check "exec: the executed file is prefetched like any other (prog after A)" ge "$prog_kb" 4
	check "exec: learnt as an event: B C D prefetched after prog runs" eq "$after_exec" 256256256
else
	skip "exec: the executed file is prefetched like any other (prog after A)" "premise"
	skip "exec: learnt as an event: B C D prefetched after prog runs" "premise"
fi

# ---- reads through a mapping ----------------------------------------------
e_kb() { /ppf/mapped resident "@$held_E" "$1" "$2"; }
set_ppf reset 1
drop_caches
for i in 1 2 3 4 5; do
	cat P > /dev/null
	/ppf/mapped touch E 512 64
	cat X > /dev/null
done
settle
drop_caches
cold=$(e_kb 0 1024)
cat P > /dev/null
settle
set -- $(e_kb 512 64) $(e_kb 0 128) $(e_kb 0 1024)
echo "E after P: $1 KiB of the 64 at 512 KiB touched, $2 KiB of its first 128, $3 KiB in all"
if premise "mappings: E cold before P is opened" eq "$cold" 0; then
	check "mappings: the 64 KiB read through the mapping prefetched" eq "$1" 64
	check "mappings: not E's first 128 KiB (its reads were seen)" eq "$2" 0
	check "mappings: nothing else of E" eq "$3" 64
else
	skip "mappings: the 64 KiB read through the mapping prefetched" "premise"
	skip "mappings: not E's first 128 KiB (its reads were seen)" "premise"
	skip "mappings: nothing else of E" "premise"
fi

# ---- page maps: a mapped file's pages, exactly -----------------------------
# On 6.1 (no fault tracepoint) no file gets a page map: nothing to check.
if [ "$(stat_of read_fallback)" = 1 ]; then
	for c in "G's three faulted pages prefetched after P" \
		 "nothing else of G (12 KiB, not its segments)" \
		 "Q's three faulted pages prefetched after P" \
		 "nothing else of Q (12 KiB, not its 256 KiB segment)" \
		 "G's open reads its other pages at once" \
		 "counted (opened_planned)" \
		 "tracepoint ppf_own_pages fired (G's pages 32-240)"; do
		skip "page maps: $c" "no fault tracepoint (before 6.10)"
	done
	skip "io_class: ppf_prefetch shows G's own pages read at idle on a rotational disk" \
		"no fault tracepoint (before 6.10)"
	for c in "saved and loaded, P brings G's three pages alone" \
		 "H scanned through a mapping, a stream: all of it prefetched after C" \
		 "on a rotational disk G's map learns windows (ppf_page_map learn=windows)" \
		 "on a rotational disk the page G touched is prefetched after P" \
		 "on a rotational disk fault-around's 64 KiB window is, not the page alone" \
		 "on a rotational disk the windows learnt are counted (page_map_windows grew)" \
		 "off a rotational disk G's map learns misses (ppf_page_map learn=misses)" \
		 "off a rotational disk the page G touched is prefetched after P" \
		 "off a rotational disk fault-around's 64 KiB window is, not the page alone" \
		 "off a rotational disk the windows learnt are counted (page_map_windows grew)" \
		 "with page_map_windows always G's map learns windows (ppf_page_map learn=windows)" \
		 "with page_map_windows always the page G touched is prefetched after P" \
		 "with page_map_windows always fault-around's 64 KiB window is, not the page alone" \
		 "with page_map_windows always the windows learnt are counted (page_map_windows grew)" \
		 "with page_map_windows always once G's map was made G's map learns windows (ppf_page_map learn=windows)" \
		 "with page_map_windows always once G's map was made the page G touched is prefetched after P" \
		 "with page_map_windows always once G's map was made fault-around's 64 KiB window is, not the page alone" \
		 "with page_map_windows always once G's map was made the windows learnt are counted (page_map_windows grew)" \
		 "with page_map_windows misses G's map learns misses (ppf_page_map learn=misses)" \
		 "with page_map_windows misses the page G touched is prefetched after P" \
		 "with page_map_windows misses fault-around's 64 KiB window is, not the page alone" \
		 "with page_map_windows misses the windows learnt are counted (page_map_windows grew)" \
		 "with page_map_windows misses, the page cached before its touch G's map learns misses (ppf_page_map learn=misses)" \
		 "with page_map_windows misses, the page cached before its touch the page G touched is prefetched after P" \
		 "with page_map_windows misses, the page cached before its touch the page alone is, not the rest of fault-around's window" \
		 "with page_map_windows misses, the page cached before its touch no window was learnt at the touches of the cached page (page_map_windows did not grow)" \
		 "G's map made without windows, then chose them at G's next open (learn=faults, then learn=windows)" \
		 "while page_map_windows was never no window was learnt (page_map_windows did not grow)"; do
		skip "page maps: $c" "no fault tracepoint (before 6.10)"
	done
else
	# Each round faults G's three pages from a cold cache: P's prediction of G
	# (its segments at first) is read and dropped before G is touched.  The
	# faulted pages alone (page_map_windows never): under auto a map off a
	# rotational disk learns the window of each fault that missed, and each
	# of these does (windows are checked further on).
	g_kb() { /ppf/mapped resident "@$held_G" "$1" "$2"; }
	q_kb() { /ppf/mapped resident "@$held_Q" "$1" "$2"; }
	set_ppf reset 1
	set_ppf page_map_windows never
	for i in 1 2 3 4 5 6; do
		cat P > /dev/null
		settle 0
		drop_caches
		/ppf/mapped touch G 128 4 640 4 960 4
		/ppf/mapped touch Q 16 4 128 4 240 4
		cat X > /dev/null
	done
	settle
	drop_caches
	cold=$(g_kb 0 1024)$(q_kb 0 256)
	cat P > /dev/null
	settle
	set -- $(g_kb 128 4) $(g_kb 640 4) $(g_kb 960 4) $(g_kb 0 1024) \
		$(q_kb 16 4) $(q_kb 128 4) $(q_kb 240 4) $(q_kb 0 256)
	echo "G after P: $1 $2 $3 KiB of the pages at 128, 640 and 960 KiB, $4 KiB in all;" \
		"Q: $5 $6 $7 KiB at 16, 128 and 240 KiB, $8 in all;" \
		"page_maps $(stat_of page_maps), page_map_runs $(stat_of page_map_runs)"
	if premise "page maps: G and Q cold before P is opened" eq "$cold" 00; then
		check "page maps: G's three faulted pages prefetched after P" eq "$1$2$3" 444
		check "page maps: nothing else of G (12 KiB, not its segments)" eq "$4" 12
		check "page maps: Q's three faulted pages prefetched after P" eq "$5$6$7" 444
		check "page maps: nothing else of Q (12 KiB, not its 256 KiB segment)" eq "$8" 12
	else
		skip "page maps: G's three faulted pages prefetched after P" "premise"
		skip "page maps: nothing else of G (12 KiB, not its segments)" "premise"
		skip "page maps: Q's three faulted pages prefetched after P" "premise"
		skip "page maps: nothing else of Q (12 KiB, not its 256 KiB segment)" "premise"
	fi
	# G's own open: its task faults the page at 128 KiB alone (MADV_RANDOM: no
	# read-around), so the other two can only come from ppf; nothing predicts
	# G here (the last event, P's, was followed by a drop of the caches).
	drop_caches
	cold=$(g_kb 0 1024)
	own_before=$(stat_of opened_planned)
	# auto: idle on the disk made rotational (best effort is the default).
	# page_map_windows still never (set above): under auto, G's open on the
	# disk made rotational would switch G's map to windows, and whether the
	# fault at 128 KiB is learnt as a page or as a window would then race
	# with the worker's handling of the open (the saved and loaded check
	# below wants the three pages alone; windows are checked further on).
	set_ppf io_class auto
	rot=/sys/block/${dev##*/}/queue/rotational
	was_rot=$(cat $rot)
	echo 1 > $rot 2>/dev/null
	echo 1 > $TRACE/events/predictive_prefetch/ppf_own_pages/enable
	echo 1 > $TRACE/events/predictive_prefetch/ppf_prefetch/enable
	echo > $TRACE/trace
	/ppf/mapped touch G 128 4
	settle
	trace=$(grep -v "^#" $TRACE/trace)
	echo 0 > $TRACE/events/predictive_prefetch/ppf_own_pages/enable
	echo 0 > $TRACE/events/predictive_prefetch/ppf_prefetch/enable
	worker_class=$(ionice -p "$(worker_pid)")
	is_rot=$(cat $rot)
	echo "$was_rot" > $rot 2>/dev/null
	set_ppf io_class best-effort
	set_ppf page_map_windows auto
	set -- $(g_kb 640 4) $(g_kb 960 4) $(($(stat_of opened_planned) - own_before))
	echo "G after its own open: $1 $2 KiB of the pages at 640 and 960 KiB; opened_planned +$3"
	echo "$trace" | grep "ppf_prefetch: .* ino=$(stat -c %i G) "
	if premise "page maps: G cold before it is opened" eq "$cold" 0; then
		check "page maps: G's open reads its other pages at once" eq "$1$2" 44
		check "page maps: counted (opened_planned)" ge "$3" 1
		check "page maps: tracepoint ppf_own_pages fired (G's pages 32-240)" \
			eval 'echo "$trace" | grep -q "ppf_own_pages: id=[0-9]* pages=32-240"'
	else
		skip "page maps: G's open reads its other pages at once" "premise"
		skip "page maps: counted (opened_planned)" "premise"
		skip "page maps: tracepoint ppf_own_pages fired (G's pages 32-240)" "premise"
	fi
	# The worker's class there is test_predict's check; here it is the
	# premise of what the tracepoint must show.
	if premise "io_class: the disk was made rotational for G's own open" \
		eq "$is_rot" 1 &&
	   premise "io_class: the worker reads at idle there" eq "$worker_class" idle &&
	   premise "io_class: G's own open read its pages" eq "$1$2" 44; then
		check "io_class: ppf_prefetch shows G's own pages read at idle on a rotational disk" \
			eval 'echo "$trace" | grep -q "ppf_prefetch: .* ino=$(stat -c %i G) .* class=idle$"'
	else
		skip "io_class: ppf_prefetch shows G's own pages read at idle on a rotational disk" "premise"
	fi
	# Saved, the model reset, loaded: G's map comes back with it.
	cat /proc/predictive_prefetch_state > /tmp/pm.state
	set_ppf reset 1
	cat /tmp/pm.state > /proc/predictive_prefetch_state
	loaded=$?
	drop_caches
	cold=$(g_kb 0 1024)
	cat P > /dev/null
	settle
	set -- $(g_kb 128 4) $(g_kb 640 4) $(g_kb 960 4) $(g_kb 0 1024)
	echo "G after P, the state saved, reset and loaded (rc $loaded): $1 $2 $3 KiB, $4 KiB in all"
	if premise "page maps: the state loaded, G cold before P" eq "$loaded $cold" "0 0"; then
		check "page maps: saved and loaded, P brings G's three pages alone" eq "$1$2$3 $4" "444 12"
	else
		skip "page maps: saved and loaded, P brings G's three pages alone" "premise"
	fi
	# A stream: H scanned after C, each time from a cold cache (what ppf read
	# of H after C settled and dropped), so that every scan faults.
	h_kb() { /ppf/mapped resident "@$held_H" "$1" "$2"; }
	set_ppf reset 1
	for i in 1 2 3 4 5 6; do
		cat C > /dev/null
		settle
		drop_caches
		/ppf/mapped scan H 0 1024
		cat X > /dev/null
	done
	settle
	drop_caches
	cold=$(h_kb 0 1024)
	cat C > /dev/null
	settle
	h=$(h_kb 0 1024)
	echo "H after C: $h KiB of its 1024"
	if premise "page maps: H cold before C is opened" eq "$cold" 0; then
		check "page maps: H scanned through a mapping, a stream: all of it prefetched after C" \
			eq "$h" 1024
	else
		skip "page maps: H scanned through a mapping, a stream: all of it prefetched after C" "premise"
	fi
	# Windows: with the disk made rotational (page_map_windows auto), and
	# with page_map_windows always on the disk as it is (not rotational), a
	# map made from then on learns fault-around's whole window.  G is
	# faulted at one page (640 KiB) from a cold cache, MADV_RANDOM (no
	# read-around): fault-around reports the 64 KiB around it before the
	# fault reads the page, and after P that window is prefetched, not the
	# page alone (12 KiB for three pages above, page_map_windows never).
	# Under auto off a rotational disk the map learns misses (below): the
	# same window here, each fault being a miss.  Last, page_map_windows
	# is never until G's map is made
	# (at its second open, the first after a fault) and always from its
	# third open on, with no reset between: the map chooses again at each
	# open (ppf_page_map reports the change).  With page_map_windows
	# misses, the window is learnt because the fault inside it came (the
	# page was not cached: a miss), and not where the page was cached
	# before its touch (read(2) at that page alone first: fault-around
	# maps it, no fault, and only the page read is learnt).
	rot=/sys/block/${dev##*/}/queue/rotational
	was_rot=$(cat $rot)
	for how in "on a rotational disk" "off a rotational disk" \
		   "with page_map_windows always" \
		   "with page_map_windows always once G's map was made" \
		   "with page_map_windows misses" \
		   "with page_map_windows misses, the page cached before its touch"; do
		switch=0
		learn=windows
		cache_first=0
		case $how in
		"on a rotational disk")
			echo 1 > $rot 2>/dev/null
			want_rot=1 ;;
		"off a rotational disk")
			echo 0 > $rot 2>/dev/null
			learn=misses
			want_rot=0 ;;
		"with page_map_windows always")
			set_ppf page_map_windows always
			want_rot=$was_rot ;;
		"with page_map_windows misses")
			set_ppf page_map_windows misses
			learn=misses
			want_rot=$was_rot ;;
		"with page_map_windows misses, the page cached before its touch")
			set_ppf page_map_windows misses
			learn=misses
			cache_first=1
			want_rot=$was_rot ;;
		*)
			set_ppf page_map_windows never
			switch=3
			want_rot=$was_rot ;;
		esac
		is_rot=$(cat $rot)
		set_ppf reset 1
		echo 1 > $TRACE/events/predictive_prefetch/ppf_page_map/enable
		echo > $TRACE/trace
		wins0=$(stat_of page_map_windows)
		wins_never=$wins0
		for i in 1 2 3 4 5 6; do
			if [ $i = $switch ]; then
				wins_never=$(stat_of page_map_windows)
				set_ppf page_map_windows always
			fi
			cat P > /dev/null
			settle 0
			drop_caches
			if [ $cache_first = 1 ] && [ $i -le 2 ]; then
				# the map is made by a fault, elsewhere
				/ppf/mapped touch G 128 4
			else
				[ $i != 3 ] || wins_cached=$(stat_of page_map_windows)
				[ $cache_first = 0 ] ||
					dd if=G of=/dev/null bs=4096 skip=160 count=1 2> /dev/null
				/ppf/mapped touch G 640 4
			fi
			cat X > /dev/null
		done
		settle
		wins=$(stat_of page_map_windows)
		trace=$(grep -v "^#" $TRACE/trace)
		echo 0 > $TRACE/events/predictive_prefetch/ppf_page_map/enable
		drop_caches
		cold=$(g_kb 0 1024)
		cat P > /dev/null
		settle
		set -- $(g_kb 640 4) $(g_kb 0 1024) $(g_kb 644 60)
		echo "$was_rot" > $rot 2>/dev/null
		set_ppf page_map_windows auto
		echo "G after P, learnt $how: $1 KiB of the page at 640 KiB, $2 KiB in all, $3 of the 60 after it;" \
			"page_map_windows $wins0 -> $wins_never -> $wins;" \
			"$(echo "$trace" | grep "ppf_page_map: .* ino=$(stat -c %i G) ")"
		if premise "page maps: the disk's rotational flag $want_rot $how" eq "$is_rot" "$want_rot" &&
		   premise "page maps: G cold before P is opened ($how)" eq "$cold" 0; then
			check "page maps: $how G's map learns $learn (ppf_page_map learn=$learn)" \
				eval 'echo "$trace" | grep -q "ppf_page_map: .* ino=$(stat -c %i G) .* learn=$learn$"'
			check "page maps: $how the page G touched is prefetched after P" eq "$1" 4
			if [ $cache_first = 0 ]; then
				check "page maps: $how fault-around's 64 KiB window is, not the page alone" \
					eq "$2" 64
				check "page maps: $how the windows learnt are counted (page_map_windows grew)" \
					test "$wins" -gt "$wins_never"
			else
				check "page maps: $how the page alone is, not the rest of fault-around's window" \
					eq "$3" 0
				check "page maps: $how no window was learnt at the touches of the cached page (page_map_windows did not grow)" \
					eq "$wins" "$wins_cached"
			fi
			[ $switch = 0 ] ||
				check "page maps: G's map made without windows, then chose them at G's next open (learn=faults, then learn=windows)" \
					eq "$(echo "$trace" | grep "ppf_page_map: .* ino=$(stat -c %i G) " |
					      sed 's/.*learn=//' | tr '\n' ' ')" "faults windows "
			[ $switch = 0 ] ||
				check "page maps: while page_map_windows was never no window was learnt (page_map_windows did not grow)" \
					eq "$wins_never" "$wins0"
		else
			skip "page maps: $how G's map learns $learn (ppf_page_map learn=$learn)" "premise"
			skip "page maps: $how the page G touched is prefetched after P" "premise"
			if [ $cache_first = 0 ]; then
				skip "page maps: $how fault-around's 64 KiB window is, not the page alone" "premise"
				skip "page maps: $how the windows learnt are counted (page_map_windows grew)" "premise"
			else
				skip "page maps: $how the page alone is, not the rest of fault-around's window" "premise"
				skip "page maps: $how no window was learnt at the touches of the cached page (page_map_windows did not grow)" "premise"
			fi
			[ $switch = 0 ] ||
				skip "page maps: G's map made without windows, then chose them at G's next open (learn=faults, then learn=windows)" "premise"
			[ $switch = 0 ] ||
				skip "page maps: while page_map_windows was never no window was learnt (page_map_windows did not grow)" "premise"
		fi
	done
fi

# ---- unprivileged access --------------------------------------------------
check "access: uid 1000 reads /proc/predictive_prefetch" \
	eval 'as 1000 cat /proc/predictive_prefetch | grep -q "^events_open [0-9]"'
check "access: uid 1000 reads the settings" eq "$(as 1000 cat $PPF/threshold)" 25
run as 1000 sh -c "echo 20 > $PPF/threshold"
check "access: uid 1000 may not change a setting (Permission denied; threshold stays 25)" \
	eval '[ $rc -ne 0 ] && has "$err" "Permission denied" && [ "$(cat $PPF/threshold)" = 25 ]'
files=$(stat_of files)
run as 1000 sh -c "echo 1 > $PPF/reset"
check "access: uid 1000 may not reset (the $files files learnt stay)" \
	eval '[ $rc -ne 0 ] && [ "$files" -gt 0 ] && [ "$(stat_of files)" = "$files" ]'
run as 1000 sh -c "echo 0 > $PPF/enabled"
check "access: uid 1000 may not disable (still enabled, still watching)" \
	eval '[ $rc -ne 0 ] && [ "$(cat $PPF/enabled) $(stat_of filesystems)" = "1 1" ]'
run as 1000 $CTL set threshold 20
echo "# ppfctl set as uid 1000: exit $rc: $err"
check "access: ppfctl set as uid 1000: exit 1, Permission denied, threshold stays 25" \
	eval '[ $rc -eq 1 ] && has "$err" "Permission denied" && [ "$(cat $PPF/threshold)" = 25 ]'
run as 1000 $CTL status
check "access: ppfctl status as uid 1000: exit 0" eq "$rc" 0

# What follows must not hang on what the checks above did (a refusal that
# did not happen would have disabled ppf, and a load needs it enabled).
set_ppf enabled 1
run head -c 8 $STATE
check "access: root reads the state" eq "$out" PPFSTATE
# A state uid 1000 may read (ppfctl makes it 0600): its open of /tmp/state
# must not be what refuses the loads below.
run $CTL save /tmp/state
chmod 644 /tmp/state
set_ppf reset 1
held() { echo "$(stat_of files) $(stat_of history_events)"; }
before=$(held)
run as 1000 head -c 8 $STATE
check "access: uid 1000 may not read the state (Permission denied)" \
	eval '[ $rc -ne 0 ] && [ -z "$out" ] && has "$err" "$STATE.*Permission denied"'
run as 1000 dd if=/tmp/state of=$STATE bs=16M
check "access: uid 1000 may not load a state (Permission denied; nothing loaded)" \
	eval '[ $rc -ne 0 ] && has "$err" "$STATE.*Permission denied" && [ "$(held)" = "$before" ]'
capeff=$(/ppf/nocap cat /proc/self/status | awk '/^CapEff/ { print $2 }')
if premise "access: nocap runs as root without CAP_SYS_ADMIN (CapEff $capeff)" \
	eval '[ -n "$capeff" ] && [ $((0x$capeff & (1 << 21))) -eq 0 ] &&
	      [ "$(/ppf/nocap id -u)" = 0 ]'; then
	run /ppf/nocap head -c 8 $STATE
	check "access: root without CAP_SYS_ADMIN may not read the state (Operation not permitted)" \
		eval '[ $rc -ne 0 ] && [ -z "$out" ] && has "$err" "$STATE.*Operation not permitted"'
	run /ppf/nocap dd if=/tmp/state of=$STATE bs=16M
	check "access: root without CAP_SYS_ADMIN may not load a state (nothing loaded)" \
		eval '[ $rc -ne 0 ] && has "$err" "$STATE.*Operation not permitted" && [ "$(held)" = "$before" ]'
else
	skip "access: root without CAP_SYS_ADMIN may not read the state (Operation not permitted)" "premise"
	skip "access: root without CAP_SYS_ADMIN may not load a state (nothing loaded)" "premise"
fi
run dd if=/tmp/state of=$STATE bs=16M
echo "# held before the loads: $before; after root's: $(held)"
check "access: the same load by root loads it (the control)" \
	eval '[ $rc -eq 0 ] && [ "$(held)" != "$before" ]'

release
cd /
umount /mnt
check "file system unmounts" eq $? 0
rmmod predictive_prefetch
check "module unloads" eq $? 0
kmemleak_check
finish
