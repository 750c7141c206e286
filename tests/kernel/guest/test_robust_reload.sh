# test_robust_reload.sh - unload and reload the module under load (debug kernel)
#
# RELOADS (40; reload-soak runs 1,000) insmod / enabled=1 / rmmod cycles
# while four shells open and read files on a watched ext4 (/dev/vda, the
# data disk, mounted read-only) and read the module's /proc and sysctl
# files.  Every fourth cycle unloads at once, the others after 50 ms, after
# the queue drained, or after 300 ms (then the file system must be watched
# and events seen).  The debug kernel (KASAN, lockdep, kmemleak, ...) must
# report nothing: run.py fails the boot on any report.
. /ppf/guest/lib.sh
. /ppf/guest/test_robust_lib.sh

plan 8
RELOADS=${RELOADS:-40}
mkdir -p /mnt
mount -t ext4 -o ro /dev/vda /mnt || bail "mount"

start_load /mnt A B C D X P Q E G
bad_insmod=0
bad_enable=0
bad_rmmod=0
late=0
watched=0
events=0
t0=$(now_ms)
i=0
while [ $i -lt $RELOADS ]; do
	i=$((i + 1))
	if ! load_ppf; then
		bad_insmod=$((bad_insmod + 1))
		continue
	fi
	set_ppf enabled 1 || bad_enable=$((bad_enable + 1))
	case $((i % 4)) in
	0) ;;
	1) sleep 0.05 ;;
	2) settle 0 ;;
	3)
		sleep 0.3
		late=$((late + 1))
		[ "$(stat_of filesystems)" -ge 1 ] && watched=$((watched + 1))
		[ "$(stat_of events_open)" -gt 0 ] && events=$((events + 1))
		;;
	esac
	rmmod predictive_prefetch || bad_rmmod=$((bad_rmmod + 1))
done
t1=$(now_ms)
stop_load
echo "# $RELOADS reloads under load in $((t1 - t0)) ms of guest time"
check "insmod succeeded $RELOADS times" eq $bad_insmod 0
check "enabled=1 accepted every time" eq $bad_enable 0
check "rmmod succeeded every time" eq $bad_rmmod 0
check "the ext4 file system was watched in every slow cycle ($watched/$late)" eq $watched $late
check "open events were seen in every slow cycle ($events/$late)" eq $events $late
check "module is unloaded" unloaded

cd /
umount /mnt
check "file system unmounts" eq $? 0
kmemleak_check
finish
