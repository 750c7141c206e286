# test_sysctl.sh - every sysctl refuses bad values with EINVAL, keeping the old
. /ppf/guest/lib.sh

# 20 names x 4 in the first loop, 11 in the second, 112 checks after them.
plan 222
load_ppf || bail "insmod"

accept() {
	set_ppf "$1" "$2" && [ "$(cat "$PPF/$1")" = "$2" ]
}

for name in enabled partition_size model_order threshold max_prefetch_kb \
	    default_prefetch_kb max_inflight_kb memory_kb max_files backoff \
	    metadata sweep lookahead max_contexts max_domains save_events skip_new_files_ms \
	    max_inflight_ms task_runs reset; do
	check "$name: negative refused" refuse $name -1
	check "$name: huge refused" refuse $name 99999999999
	check "$name: non-numeric refused" refuse $name abc
	check "$name: empty refused" refuse $name ""
done
for name in partition_size model_order threshold max_prefetch_kb \
	    default_prefetch_kb max_inflight_kb max_files lookahead max_contexts max_domains \
	    reset; do
	check "$name: zero refused" refuse $name 0
done
check "enabled: 2 refused" refuse enabled 2
check "threshold: 101 refused" refuse threshold 101
check "partition_size: 1 refused" refuse partition_size 1
check "partition_size: 4097 refused" refuse partition_size 4097
check "memory_kb: too small for 64 nodes refused" refuse memory_kb 1
check "memory_kb: 1 GiB + 1 refused" refuse memory_kb 1048577
check "max_files: 63 refused" refuse max_files 63
check "reset: 2 refused" refuse reset 2
check "skip_new_files_ms: 60000 by default" eq "$(cat $PPF/skip_new_files_ms)" 60000
check "skip_new_files_ms: 3600001 refused" refuse skip_new_files_ms 3600001
check "skip_new_files_ms: 0 accepted" accept skip_new_files_ms 0
check "max_inflight_ms: 20 by default" eq "$(cat $PPF/max_inflight_ms)" 20
check "max_inflight_ms: 10001 refused" refuse max_inflight_ms 10001
check "max_inflight_ms: 0 accepted (max_inflight_kb alone)" accept max_inflight_ms 0
check "max_inflight_ms: 20 accepted" accept max_inflight_ms 20
check "save_events: 65536 by default" eq "$(cat $PPF/save_events)" 65536
check "save_events: 1048577 refused" refuse save_events 1048577
check "save_events: 0 accepted (nothing kept to save)" accept save_events 0
check "save_events: 65536 accepted" accept save_events 65536
check "backoff: on by default" eq "$(cat $PPF/backoff)" 1
check "backoff: 2 refused" refuse backoff 2
check "backoff: 0 accepted" accept backoff 0
check "backoff: 1 accepted" accept backoff 1
check "metadata: on by default" eq "$(cat $PPF/metadata)" 1
check "metadata: 2 refused" refuse metadata 2
check "metadata: 0 accepted" accept metadata 0
check "metadata: 1 accepted" accept metadata 1
check "sweep: on by default" eq "$(cat $PPF/sweep)" 1
check "sweep: 2 refused" refuse sweep 2
check "sweep: 0 accepted" accept sweep 0
check "sweep: 1 accepted" accept sweep 1
check "task_runs: on by default" eq "$(cat $PPF/task_runs)" 1
check "task_runs: 2 refused" refuse task_runs 2
check "task_runs: 0 accepted" accept task_runs 0
check "task_runs: 1 accepted" accept task_runs 1
check "lookahead: 64 by default" eq "$(cat $PPF/lookahead)" 64
check "lookahead: 65 refused" refuse lookahead 65
check "lookahead: 1 accepted" accept lookahead 1
check "lookahead: 64 accepted" accept lookahead 64
check "contexts: task by default" eq "$(cat $PPF/contexts)" task
check "contexts: unknown name refused" refuse contexts thread
check "contexts: names are exact" refuse contexts Task
check "contexts: empty refused" refuse contexts ""
check "contexts: process accepted" accept contexts process
check "contexts: global accepted" accept contexts global
check "contexts: task accepted" accept contexts task
check "isolation: none by default" eq "$(cat $PPF/isolation)" none
check "isolation: unknown name refused" refuse isolation group
check "isolation: names are exact" refuse isolation User
check "isolation: empty refused" refuse isolation ""
check "isolation: user accepted" accept isolation user
check "isolation: cgroup accepted" accept isolation cgroup
check "isolation: none accepted" accept isolation none
check "max_domains: 8 by default" eq "$(cat $PPF/max_domains)" 8
check "max_domains: 65 refused" refuse max_domains 65
check "max_domains: 64 accepted" accept max_domains 64
check "max_domains: 8 accepted" accept max_domains 8
# Each domain's model gets memory_kb / max_domains: 1 MiB / 64 holds none.
check "memory_kb: 1024 accepted" accept memory_kb 1024
check "max_domains: 64 accepted without isolation" accept max_domains 64
check "isolation: user refused when memory_kb / max_domains holds no model" refuse isolation user
check "isolation: still none" eq "$(cat $PPF/isolation)" none
check "max_domains: 8 accepted" accept max_domains 8
check "memory_kb: 16384 accepted" accept memory_kb 16384
check "max_contexts: 64 by default" eq "$(cat $PPF/max_contexts)" 64
check "max_contexts: 4097 refused" refuse max_contexts 4097
check "max_contexts: 1 accepted" accept max_contexts 1
check "max_contexts: 4096 accepted" accept max_contexts 4096
check "max_contexts: 64 accepted" accept max_contexts 64

check "model: unknown name refused" refuse model ppm
check "model: names are exact" refuse model EPCM
check "model: empty refused" refuse model ""
check "model: pcm accepted" accept model pcm
check "model: last_successor accepted" accept model last_successor
check "model: epcm accepted" accept model epcm

# The model order must stay below the partition size.
check "order 51 < partition 64 (defaults)" eq "$(cat $PPF/model_order)/$(cat $PPF/partition_size)" 51/64
check "partition_size 51 (= order) refused" refuse partition_size 51
check "partition_size 16 (< order) refused" refuse partition_size 16
check "model_order 64 (= partition) refused" refuse model_order 64
check "model_order 12 accepted" accept model_order 12
check "partition_size 16 accepted" accept partition_size 16
check "model_order 16 (= partition) refused" refuse model_order 16
check "model_order 15 accepted" accept model_order 15

# Per-file and default prefetch sizes are consistent.
check "max_prefetch_kb below default_prefetch_kb refused" refuse max_prefetch_kb 64
check "default_prefetch_kb above max_prefetch_kb refused" refuse default_prefetch_kb 4096
check "max_prefetch_kb 4096 accepted" accept max_prefetch_kb 4096
check "default_prefetch_kb 256 accepted" accept default_prefetch_kb 256

check "filesystems: bad characters refused" refuse filesystems "Ext4!"
check "filesystems: leading comma refused" refuse filesystems ",ext4"
check "filesystems: double comma refused" refuse filesystems "ext4,,xfs"
check "filesystems: trailing comma refused" refuse filesystems "ext4,"
check "filesystems: longer than 127 characters refused" refuse filesystems "$(printf %0130d 0 | tr 0 a)"
check "model: long name refused, not truncated" refuse model epcmepcmepcmepcmepcm
check "filesystems: list accepted" accept filesystems "ext4,xfs"
check "filesystems: empty (all) accepted" accept filesystems ""

# Which page maps learn fault-around's windows (what each does: test_access.sh).
check "page_map_windows: auto by default" eq "$(cat $PPF/page_map_windows)" auto
check "page_map_windows: always accepted" accept page_map_windows always
check "page_map_windows: unknown name refused" refuse page_map_windows sometimes
check "page_map_windows: names are exact" refuse page_map_windows NEVER
check "page_map_windows: empty refused" refuse page_map_windows ""
check "page_map_windows: long name refused, not truncated" refuse page_map_windows neverneverneverneverr
check "page_map_windows: never accepted" accept page_map_windows never
check "page_map_windows: misses accepted" accept page_map_windows misses
check "page_map_windows: auto accepted" accept page_map_windows auto

# The I/O class of the prefetches: the worker thread's own, as ionice sees it
# (auto's choice per device: test_predict.sh).
pid=$(worker_pid)
check "one worker thread, ppf_prefetch" eq "$(echo "$pid" | wc -w)" 1
check "io_class: best-effort by default" eq "$(cat $PPF/io_class)" best-effort
check "the worker's reads are best effort from the start" eq "$(ionice -p "$pid")" "best-effort: prio 7"
check "io_class: auto accepted" accept io_class auto
check "auto: idle before any read for a device" eq "$(ionice -p "$pid")" idle
check "io_class: unknown name refused" refuse io_class realtime
check "io_class: names are exact" refuse io_class IDLE
check "io_class: empty refused" refuse io_class ""
check "io_class: long name refused, not truncated" refuse io_class idleidleidleidleidle
check "io_class: best-effort accepted" accept io_class best-effort
check "the worker's reads are best effort, lowest level" eq "$(ionice -p "$pid")" "best-effort: prio 7"
check "io_class: idle accepted" accept io_class idle
check "the worker's reads are idle class again" eq "$(ionice -p "$pid")" idle
check "io_class: auto accepted again" accept io_class auto
check "meta_io_class: auto by default" eq "$(cat $PPF/meta_io_class)" auto
check "meta_io_class: unknown name refused" refuse meta_io_class realtime
check "meta_io_class: empty refused" refuse meta_io_class ""
check "meta_io_class: idle accepted" accept meta_io_class idle
check "meta_io_class: auto accepted" accept meta_io_class auto
check "meta_io_class: best-effort accepted" accept meta_io_class best-effort
check "meta_io_class: auto accepted again" accept meta_io_class auto
check "meta_io_class: the data's class is its own" eq "$(cat $PPF/io_class)" auto

check "threshold 50 accepted" accept threshold 50
check "memory_kb 4096 accepted" accept memory_kb 4096
check "memory budget applied to the model" le "$(stat_of model_bytes)" $((4096 * 1024))
check "reset 1 accepted" set_ppf reset 1
check "enabled 1 accepted" accept enabled 1

rmmod predictive_prefetch
check "module unloads" eq $? 0
finish
