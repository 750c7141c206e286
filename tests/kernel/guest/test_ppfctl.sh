# test_ppfctl.sh - ppfctl, the operator's tool, against the real module
#
# Every command: status (words and JSON, rates over an interval), enable,
# disable, get, set (a value the kernel refuses comes back as its EINVAL,
# and the old value stays), reset, watch; a bad command line (exit 2) and
# a module that is not loaded (a clear message, exit 1).
. /ppf/guest/lib.sh

plan 48
CTL=/ppf/ppfctl

run $CTL status
check "not loaded: status exits 1" eq "$rc" 1
check "not loaded: status says how to load it" has "$err" "not loaded.*modprobe predictive_prefetch"
run $CTL set enabled 1
check "not loaded: set exits 1 and says so" eval '[ $rc -eq 1 ] && has "$err" "not loaded"'

mount_data /mnt || bail "mount"
load_ppf || bail "insmod"
cd /mnt
always_prefetch

run $CTL status -i 0
check "status: exit 0" eq "$rc" 0
check "status: says ppf is off" has "$out" "^ppf is off"
check "status: names the model and its shape" has "$out" "model epcm, partition size [0-9]*, order [0-9]*"
run $CTL enable
check "enable: exit 0" eq "$rc" 0
check "enable: enabled is 1" eq "$(cat $PPF/enabled)" 1
run $CTL status -i 0
check "status: says ppf is on" has "$out" "^ppf is on"

# set: the kernel's validation, its error, the old value kept.
old=$(cat $PPF/threshold)
run $CTL set threshold 101
check "set: a refused value exits 1" eq "$rc" 1
check "set: the kernel's error is passed through" has "$err" "Invalid argument"
check "set: the message names the value kept" has "$err" "threshold stays $old"
check "set: a refused value leaves the old one" eq "$(cat $PPF/threshold)" "$old"
run $CTL set threshold 20
check "set: a good value exits 0" eq "$rc" 0
check "set: a good value is set" eq "$(cat $PPF/threshold)" 20
run $CTL set model pcm
check "set: a string tunable" eq "$(cat $PPF/model)" pcm
run $CTL set model nonsense
check "set: a refused string exits 1, model kept" eval '[ $rc -eq 1 ] && [ "$(cat $PPF/model)" = pcm ]'
run $CTL set model epcm
run $CTL set isolation user
run $CTL status -i 0
check "status: the isolation and its domains" has "$out" "^isolation:  a model per user: 0 of at most 8 live"
# A model is made at the first event of a user (root's, here): the file
# system is watched from its first read, and the next open is an event.
cat X > /dev/null
cat X > /dev/null
settle
run $CTL status -i 0
domains=$(stat_of model_domains)
if premise "an open under isolation=user made a model ($domains live)" ge "$domains" 1; then
	check "status: the live models as the kernel counts them" \
		has "$out" "^isolation:  a model per user: $domains of at most 8 live"
else
	skip "status: the live models as the kernel counts them" "no model was made"
fi
run $CTL set isolation none
run $CTL set no_such_tunable 1
check "set: an unknown tunable is named" eval '[ $rc -eq 1 ] && has "$err" "no tunable .no_such_tunable."'
run $CTL set ../enabled 0
check "set: a path is not a tunable" eval '[ $rc -eq 1 ] && [ "$(cat $PPF/enabled)" = 1 ]'

# get: one, all, JSON.
run $CTL get threshold
check "get: one tunable" eq "$out" 20
run $CTL get
check "get: every tunable, as sysctl -a prints it" has "$out" "^vm.predictive_prefetch.enabled = 1$"
check "get: as many lines as tunables" eq "$(echo "$out" | wc -l)" "$(ls $PPF | wc -l)"
run $CTL get --json
check "get --json: an object of strings" has "$out" '^{.*"model": "epcm".*"threshold": "20".*}$'

# status after real prefetching: its figures are the kernel's.
hold B C D
train
settle
drop_caches
cat A > /dev/null
settle
check "prefetching happened" ge "$(stat_of prefetch_issued)" 3
run $CTL status -i 0
issued=$(stat_of prefetch_issued)
echo "$out"
check "status: prefetches issued as the kernel counts them" has "$out" "^prefetches: $issued issued"
check "status: predictions, repeats and restates as the kernel counts them" has "$out" \
	"^predictions: $(stat_of predictions) news ($(stat_of predictions_repeated) of them for an event a standing one already expects); everything named again $(stat_of restates) times$"
check "status: the lookahead's depths as the kernel counts them" has "$out" \
	"^depth: *$(stat_of opens_hot) opens asked for a few files, the cache holding all that was predicted lately; $(stat_of opens_deep) for the full lookahead$"
check "status: used and wasted" has "$out" "$(stat_of prefetch_useful) used, $(stat_of prefetch_wasted) wasted"
# Right after A: B, C and D are read ahead and not opened (pages_pending).
kb=4	# KiB a page on x86-64, the test kernels' arch
check "status: what is read ahead for files not opened yet, and wasted" has "$out" \
	"^ *$(($(stat_of pages_pending) * kb)) KiB read ahead for files not opened yet, $(($(stat_of pages_wasted) * kb)) KiB for the wasted ones; $(stat_of prefetch_early) judged early, not wasted, their pages still cached$"
check "status: memory against the budget" has "$out" "^memory: .* of patterns in .* allocated (budget .*, .* % of it used)"
if [ "$(stat_of meta_learned)" -gt 0 ] || [ "$(stat_of lookups)" -gt 0 ]; then
	check "status: metadata blocks and lookups as the kernel counts them" has "$out" \
		"^metadata: *$(stat_of meta_learned) blocks learnt from opens ($(stat_of meta_learned_lookup) from the worker's lookups), $(stat_of meta_readahead) read ahead; $(stat_of lookups) files looked up (the worker waited [0-9.]* s), $(stat_of lookups_spared) spared$"
else
	check "status: no metadata line when none was learnt or looked up" \
		eval '! has "$out" "^metadata:"'
fi
if [ -e /sys/kernel/tracing/events/filemap/mm_filemap_get_pages ]; then
	check "status: no fallback note where the read tracepoints exist" eval '! has "$out" "^note:"'
else
	check "status: says reads are learnt from pages added (before 6.10)" has "$out" "^note: .*before 6.10"
fi
run $CTL status --json -i 0
check "status --json: counters by the kernel's names" has "$out" "\"prefetch_issued\": $issued[,}]"
check "status --json: tunables" has "$out" '"tunables": {.*"model": "epcm"'
check "status --json: one line" eq "$(echo "$out" | wc -l)" 1

# Rates: events while status samples for a second.
( i=0; while [ $i -lt 40 ]; do cat X > /dev/null; sleep 0.02; i=$((i + 1)); done ) &
run $CTL status -i 1
wait
echo "$out" | grep "^events"
check "status -i 1: events a second over the interval" has "$out" "^events: .*; [1-9][0-9]* a second over the last 1.[0-9] s"

# watch: a header and COUNT lines; --json one object a line.
run $CTL watch -i 0.2 -n 3
check "watch: a header and three lines" eval '[ $rc -eq 0 ] && [ "$(echo "$out" | wc -l)" = 4 ]'
check "watch: the header names the rates" has "$out" "events/s.*used/s.*wasted/s"
run $CTL watch --json -i 0.2 -n 2
check "watch --json: one object a sample" eq "$(echo "$out" | grep -c '^{"interval_seconds": 0.2[0-9]*, "events/s": ')" 2

run $CTL reset
check "reset: counters zeroed" eval '[ $rc -eq 0 ] && [ "$(stat_of prefetch_issued)" = 0 ]'
run $CTL disable
check "disable: enabled is 0" eval '[ $rc -eq 0 ] && [ "$(cat $PPF/enabled)" = 0 ]'

# A bad command line: usage, exit 2, nothing changed.
run $CTL frobnicate
check "bad command: exit 2 with the usage" eval '[ $rc -eq 2 ] && has "$err" "^usage: ppfctl"'
run $CTL watch -i abc
check "bad interval: exit 2" eq "$rc" 2
run $CTL set threshold
check "set without a value: exit 2" eq "$rc" 2

release
cd /
umount /mnt
rmmod predictive_prefetch
check "module unloads" eq $? 0
run $CTL get enabled
check "unloaded: get exits 1 and says so" eval '[ $rc -eq 1 ] && has "$err" "not loaded"'
finish
