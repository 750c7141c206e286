# test_runs.sh - task runs (run_set.c): a task whose last two runs began the
# same way, and in which the model fell behind (opens that found their file
# still being prefetched), has the small files both runs opened read ahead
# at its start, sorted by inode; a file only one of them opened is not
#
# The limits disk (run_tests.py: f/F001-F080 of 4 KiB) on a null_blk device
# that serves a request in 1 ms.  The lookahead is 1, so that the model
# stays behind the task: each file is predicted as the one before it is
# opened, and opened while it is being read.  Directory sweeps are off (the
# run's files are one directory's, which a sweep would read as well), and
# the threshold is 60 %, so that a successor seen in one run of two is not
# predicted.
#
# train     four runs of one cat task, each after a cat of Q, so that every
#           run begins the same way (Q, then the run's first file, X):
#           X F001-F078 F079, then X F001-F078 F080, twice, from a cold
#           cache each; the model's prefetches are late in them.
# swept     the fifth run (X F001-F078, from a cold cache): run_sweeps and
#           run_sweep_files count at least the 78 files after X, and at most
#           8 of its opens are late (a run without the sweep: about 77);
#           F079 and F080, which only one run of the two before opened, are
#           not read.
# off       with task_runs 0 a sixth run reads nothing ahead this way.
. /ppf/guest/lib.sh

plan 8

mount_data /mnt || bail "mount"
load_ppf || bail "insmod"
cd /mnt
always_prefetch
set_ppf sweep 0
set_ppf threshold 60
set_ppf lookahead 1
check "task_runs: on by default" eq "$(cat $PPF/task_runs)" 1
set_ppf enabled 1

files=$(i=1; while [ $i -le 78 ]; do printf 'f/F%03d ' $i; i=$((i + 1)); done)
# task_run EXTRA: one cat task opening X, F001-F078 and EXTRA, after a cat of Q.
task_run() {
	drop_caches
	cat Q > /dev/null
	cat X $files $1 > /dev/null
	settle
	echo "# $(awk '$1 ~ /^(events_open|predictions|prefetch_issued|prefetch_late|prefetch_useful|run_sweeps|run_sweep_files|skipped_opening|skipped_recent|skipped_cached|skipped_inflight)$/ { printf "%s %s ", $1, $2 }' /proc/predictive_prefetch)"
}
late=$(stat_of prefetch_late)
task_run f/F079
task_run f/F080
task_run f/F079
task_run f/F080
late=$(($(stat_of prefetch_late) - late))
echo "# late opens in the training runs: $late"
premise "train: the model's prefetches were late in the runs" ge "$late" 16

s=$(stat_of run_sweeps)
sf=$(stat_of run_sweep_files)
l=$(stat_of prefetch_late)
task_run
s=$(($(stat_of run_sweeps) - s))
sf=$(($(stat_of run_sweep_files) - sf))
l=$(($(stat_of prefetch_late) - l))
echo "# late opens in the swept run: $l"
echo "# run sweeps $s, files $sf; F079 $(resident_kb f/F079) KiB, F080 $(resident_kb f/F080) KiB"
check "swept: the run's start read its runs' files ahead (run_sweeps)" ge "$s" 1
check "swept: at least the 78 files after the first (run_sweep_files)" ge "$sf" 78
check "swept: its opens found their files read, not still being read" le "$l" 8
check "swept: a file one run of two opened is not read" \
	eq "$(resident_kb f/F079)$(resident_kb f/F080)" 00

set_ppf task_runs 0
s=$(stat_of run_sweeps)
task_run
check "off: task_runs 0 reads nothing ahead this way" eq "$(($(stat_of run_sweeps) - s))" 0
set_ppf task_runs 1

finish_unloaded
