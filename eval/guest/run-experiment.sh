# run-experiment.sh - one configuration of a ppf evaluation, inside the test VM
# (busybox sh, /init's command; see eval/harness/runner.py).
#
# Reads /ppf/eval.conf (shell variables written by the harness):
#   TRACE [WARMUP_TRACES INTERLUDE_TRACE] WARMUPS RUNS HOT_RUNS SPIN_RATE MODEL PS ORDER BOOTLIST BLKTRACE
#   [ORACLE ORACLE_CLASS] (1: the boot list is swept in disk order with its
#   metadata, eval/guest/oracle.c, at I/O priority class ORACLE_CLASS)
#   MODEL_ON (1: enable the module) REPLAY_ARGS (extra ppf-replay run options)
#   SYSCTLS (NAME=VALUE ... of vm.predictive_prefetch, set after the model)
#   [MODULE_PARAMS] (NAME=VALUE ... given to insmod, e.g. measure_hooks=1)
#   DEV DEV_SETUP DEV_TIMED (the disk profile's device: eval/harness/profiles.py)
#   [MEMORY_LIMIT_MB] (the replays run in a cgroup v2 with this memory.max;
#   MEMORY_LIMIT_SCOPE=guest: all but this much of the guest's memory held)
# Steps: copy the image (IMAGE: /dev/vda, or a file in the initramfs) onto
# $DEV (nothing is timed before this is done), mount it, load the module
# (prelude.sh, shared with realcheck.sh), set its sysctls, run WARMUPS cold
# replays (they train the model), RUNS measured cold replays, HOT_RUNS
# measured hot replays (no cache drop); WARMUP_TRACES (default TRACE) are the
# traces of the warm-ups, space-separated, replayed in turn (warm-up i replays
# the ((i - 1) mod n + 1)-th: training on several recorded runs);
# INTERLUDE_TRACE is one replayed cold, unmeasured, before each measured cold
# run (a varied workload); optionally one more cold replay under blktrace
# (not measured: blktrace's own CPU and I/O would perturb it), then print
# every JSON between markers as a base64 tar.gz.
set -u
. /ppf/eval.conf
PPF=/proc/sys/vm/predictive_prefetch
OUT=/tmp/out
DIR=/mnt/w
R=/ppf/ppf-replay
START=/tmp/replay-started
mkdir -p $OUT $DIR

say() { echo "ppf-eval: $*"; }
clk() { ppf-clock 2>/dev/null || cut -d' ' -f1 /proc/uptime; }

# the device, the image on it, the clock phase, $DIR mounted, the module loaded
. /ppf/prelude.sh
if [ "$MODEL_ON" = 1 ]; then
    echo "$MODEL" > $PPF/model || exit 1
    if [ "$MODEL" != last_successor ]; then
        # the order must stay below the partition size: order first when shrinking
        { echo "$ORDER" > $PPF/model_order && echo "$PS" > $PPF/partition_size; } 2>/dev/null ||
        { echo "$PS" > $PPF/partition_size && echo "$ORDER" > $PPF/model_order; } || exit 1
    fi
    for kv in ${SYSCTLS:-}; do
        echo "${kv#*=}" > $PPF/${kv%%=*} || { say "sysctl $kv refused"; exit 1; }
    done
    echo 1 > $PPF/enabled || exit 1
fi
for f in $PPF/*; do echo "$(basename $f)=$(cat $f)"; done > $OUT/sysctl.txt
say "sysctls: $(tr '\n' ' ' < $OUT/sysctl.txt)"

# Larger than memory: the rest of this shell, and so every replay (and its
# build-tree), in a memory cgroup whose memory.max is below the working set,
# so that even a hot run misses (the paper's Glimpse).  The page cache a
# process allocates is charged to its cgroup; null_blk's copy of the image is
# not page cache and stays outside.
if [ -n "${MEMORY_LIMIT_MB:-}" ] && [ "${MEMORY_LIMIT_SCOPE:-cgroup}" = guest ]; then
    # the whole guest instead: unevictable tmpfs pages (no swap) fill all but
    # MEMORY_LIMIT_MB of what is available, so every page cache user, ppf's
    # worker (a kworker, root cgroup) included, shares what is left
    sync; echo 3 > /proc/sys/vm/drop_caches
    fill=$(( $(awk '/^MemAvailable:/ { print int($2 / 1024) }' /proc/meminfo) - MEMORY_LIMIT_MB ))
    mkdir -p /balloon && mount -t tmpfs -o size=${fill}m balloon /balloon || exit 1
    dd if=/dev/zero of=/balloon/fill bs=1M count=$fill 2>/dev/null
    say "memory limit: $fill MiB held in tmpfs, $(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo) kB available"
elif [ -n "${MEMORY_LIMIT_MB:-}" ]; then
    CG=/sys/fs/cgroup
    mkdir -p $CG
    mount -t cgroup2 none $CG || exit 1
    echo +memory > $CG/cgroup.subtree_control || exit 1
    mkdir $CG/replay || exit 1
    echo $((MEMORY_LIMIT_MB * 1048576)) > $CG/replay/memory.max || exit 1
    echo $$ > $CG/replay/cgroup.procs || exit 1
    say "memory limit: $(cat $CG/replay/memory.max) bytes (cgroup $(cat /proc/self/cgroup))"
fi

sync
/ppf/nbcopy --align 2

# ppf's counters around each measured run (cold-N, hot-N), the worker
# drained first at the end (up to 2 s), so that a run's figures are its own
# and not the warm-ups' too.
# With them, the guest's own: its context switches and CPU time by kind
# (/proc/stat, in ticks of 10 ms) and the worker thread's switches, which
# tell what the module costs beyond the worker's CPU (the switches to it).
stats_to() {
    [ -r /proc/predictive_prefetch ] || return 0
    {
        cat /proc/predictive_prefetch
        awk '$1 == "ctxt" { print "sys_ctxt", $2 }
             $1 == "cpu" { print "sys_user_ticks", $2 + $3; print "sys_system_ticks", $4
                           print "sys_idle_ticks", $5; print "sys_iowait_ticks", $6
                           print "sys_irq_ticks", $7; print "sys_softirq_ticks", $8 }' /proc/stat
        for p in /proc/[0-9]*; do
            [ "$(cat $p/comm 2>/dev/null)" = ppf_prefetch ] || continue
            awk '/^voluntary_ctxt_switches/ { print "sys_worker_switches", $2 }
                 /^nonvoluntary_ctxt_switches/ { print "sys_worker_preempted", $2 }' $p/status
        done
    } > $OUT/$1
}
drained_stats_to() {
    n=0
    while [ -r /proc/predictive_prefetch ] && [ $n -lt 20 ] &&
          [ "$(awk '$1 == "events_queued" { print $2 }' /proc/predictive_prefetch)" != 0 ]; do
        sleep 0.1; n=$((n + 1))
    done
    stats_to $1
}

replay() {  # replay NAME TRACE [ppf-replay run options]
    name=$1; tr=$2; shift 2
    # /ppf/X.faults.gz (runner.faults_adds): X's mapped files touched at the
    # pages the real program faulted, not whole; X's replays only
    [ -f "${tr%.gz}.faults.gz" ] && set -- "$@" --faults "${tr%.gz}.faults.gz"
    measured=
    case $name in cold-*|hot-*) measured=1 ;; esac
    $R build-tree $tr $DIR/t > /dev/null || { say "build-tree failed"; return 1; }
    t0=$(date +%s)
    bl=
    rm -f $START  # the replay makes it after its cache drop: the prefetchers' start
    if [ "${ORACLE:-0}" = 1 ] && [ -s /tmp/bootlist.txt ]; then
        # planned once, here: the tree is built and still cached from the
        # last warm-up (files the run creates are absent: left out)
        [ -s /tmp/oracle.plan ] ||
            /ppf/oracle plan --dev $DEV --root $DIR/t /tmp/bootlist.txt > /tmp/oracle.plan ||
            { say "oracle plan failed"; return 1; }
        /ppf/oracle run --class ${ORACLE_CLASS:-be} --start-mark $START --dev $DEV /tmp/oracle.plan \
            2> $OUT/$name.bootlist &
        bl=$!
    elif [ "$BOOTLIST" = 1 ] && [ -s /tmp/bootlist.txt ]; then
        /ppf/bootlist --start-mark $START /tmp/bootlist.txt 2> $OUT/$name.bootlist &
        bl=$!
    fi
    [ -n "$measured" ] && stats_to $name.ppf-before.txt
    $R run --quiet --drop-mark $START ${SPIN_RATE:+--spin-rate=$SPIN_RATE} ${REPLAY_ARGS:-} --json $OUT/$name.json "$@" $tr $DIR/t
    rc=$?
    [ -n "$bl" ] && wait $bl
    [ -n "$measured" ] && drained_stats_to $name.ppf-after.txt
    el=$(sed -n 's/.*"elapsed_ns": *\([0-9]*\).*/\1/p' $OUT/$name.json | head -1)
    io=$(sed -n 's/.*"io_latency_ns": *\([0-9]*\).*/\1/p' $OUT/$name.json | head -1)
    say "run $name rc=$rc elapsed_ns=$el io_latency_ns=$io"
}

# The data ranges a run used, from its --events file, as "END_NS OP OFFSET
# LEN PATH" in order (LEN 0: the whole file), with REPLAY_ARGS' modes
# applied: an exec read as its head or not at all, a mapping not touched,
# used no bytes.  (A mapping touched at its faults, --faults, is listed
# whole: the bound reads the faults file, the boot list the page cache.)
exec_mode=map mmap_mode=map
for a in ${REPLAY_ARGS:-}; do
    case $a in --exec=*) exec_mode=${a#--exec=} ;; --mmap=*) mmap_mode=${a#--mmap=} ;; esac
done
run_ranges() {
    awk -F'\t' -v d="$DIR/t/" -v em=$exec_mode -v mm=$mmap_mode '
        NR > 1 && $10 == "ok" && index($14, d) == 1 {
            off = $12; len = $13
            if ($3 == "exec") {
                if (em == "none") next
                off = 0; len = em == "head" ? 4096 : 0
            } else if ($3 == "mmap") {
                if (mm == "none") next
            } else if ($3 != "read") next
            if (len < 0) { off = 0; len = 0 }
            print $7, $3, off, len, $14 }' "$1"
}

# The boot list: what the previous run (cold) brought into the page cache,
# file by file in the order it first used them (oracle.c resident: mincore),
# as a boot prefetcher records it.  The oracle's list, where the run's
# mapped files are replayed at their faults: those files at the pages the
# run touches, not at what read-around brought in besides (oracle.c exact).
make_bootlist() {
    if [ "${ORACLE:-0}" = 1 ] && [ -f "${TRACE%.gz}.faults.gz" ]; then
        zcat "${TRACE%.gz}.faults.gz" > /tmp/faults.txt
        run_ranges /tmp/events.tsv | cut -d' ' -f2- > /tmp/uses-op.txt
        /ppf/oracle exact --faults /tmp/faults.txt --root $DIR/t /tmp/uses-op.txt \
            > /tmp/bootlist.txt
    else
        run_ranges /tmp/events.tsv | cut -d' ' -f3- > /tmp/uses.txt
        /ppf/oracle resident /tmp/uses.txt > /tmp/bootlist.txt
    fi
    say "bootlist: $(wc -l < /tmp/bootlist.txt) ranges"
}

nwt=0  # no pipeline when unset: the old runs' timing stays as it was
[ -n "${WARMUP_TRACES:-}" ] && nwt=$(echo $WARMUP_TRACES | wc -w)
i=1
while [ $i -le $WARMUPS ]; do
    ev=
    [ "$BOOTLIST" = 1 ] && [ $i = $WARMUPS ] && ev="--events /tmp/events.tsv"
    wt=$TRACE
    [ $nwt -gt 0 ] && wt=$(echo $WARMUP_TRACES | cut -d' ' -f$(( (i - 1) % nwt + 1 )))
    # the oracle's list is the measured run's own pages: its last warm-up
    # replays the measured trace
    [ "${ORACLE:-0}" = 1 ] && [ $i = $WARMUPS ] && wt=$TRACE
    # so is the hot cache: a configuration measured hot alone replays the
    # measured trace last, or a workload trained on a run that reads other
    # pages (dbquery: other keys) would measure its first hot run half cold
    [ "$RUNS" = 0 ] && [ "$HOT_RUNS" -gt 0 ] && [ $i = $WARMUPS ] && wt=$TRACE
    replay warmup-$i $wt --cold $ev
    i=$((i + 1))
done
[ "$BOOTLIST" = 1 ] && make_bootlist
reads_of() {  # the per-read latencies of a run (for distributions), then drop the events
    awk -F'\t' 'NR > 1 && $3 == "read" && $10 == "ok" { print $8, $9 }' /tmp/ev.tsv |
        gzip > $OUT/$1.reads.gz
    # every event's outcome and latency, where the experiment asks ("events")
    [ "${EVENTS:-0}" = 1 ] && gzip -c /tmp/ev.tsv > $OUT/$1.events.gz
    accesses_of $1
    rm -f /tmp/ev.tsv
}
accesses_of() {  # the files at the start, each data access and the faults (the bound)
    { echo "# root: $DIR/t"; echo "# sizes"
      $R build-tree --list $TRACE $DIR/t |
          awk '$1 == "file" { s = $2; sub(/^file +[0-9]+ /, ""); print s, $0 }'
      echo "# accesses: end_ns op offset len path"; run_ranges /tmp/ev.tsv
      if [ -f "${TRACE%.gz}.faults.gz" ]; then
          echo "# faults: ppf-replay --faults"; zcat "${TRACE%.gz}.faults.gz"
      fi; } | gzip > $OUT/$1.accesses.gz
}
i=1
while [ $i -le $RUNS ]; do
    [ -n "${INTERLUDE_TRACE:-}" ] && replay interlude-$i $INTERLUDE_TRACE --cold
    replay cold-$i $TRACE --cold --events /tmp/ev.tsv; reads_of cold-$i; i=$((i + 1))
done
i=1
while [ $i -le $HOT_RUNS ]; do replay hot-$i $TRACE --events /tmp/ev.tsv; reads_of hot-$i; i=$((i + 1)); done

if [ "$BLKTRACE" = 1 ]; then
    mkdir -p /tmp/bt
    cd /tmp/bt
    # ppf's own tracepoints during the same run: what it predicted, skipped
    # and read, beside what the disk did (ppf-trace.txt.gz)
    T=/sys/kernel/tracing
    [ -d $T/events ] || mount -t tracefs tracefs $T 2> /dev/null
    ppf_ev=$T/events/predictive_prefetch
    if [ -d $ppf_ev ]; then
        echo 0 > $T/tracing_on; echo 32768 > $T/buffer_size_kb; echo > $T/trace
        echo 1 > $ppf_ev/enable
        if [ "${SCHED_TRACE:-0}" = 1 ]; then  # who had the CPU, beside ppf's events
            echo 65536 > $T/buffer_size_kb
            echo 1 > $T/events/sched/sched_switch/enable
            echo 1 > $T/events/sched/sched_wakeup/enable
        fi
        echo 1 > $T/tracing_on
    fi
    blktrace -d $DEV -a queue -a complete -o bt > /dev/null 2>&1 &
    btpid=$!
    sleep 1
    ev=
    [ "${EVENTS:-0}" = 1 ] && ev="--events /tmp/ev.tsv"
    replay blktrace $TRACE --cold $ev
    if [ -n "$ev" ]; then
        gzip < /tmp/ev.tsv > $OUT/blktrace.events.gz; rm -f /tmp/ev.tsv
    fi
    sleep 1
    kill -INT $btpid; wait $btpid
    if [ -d $ppf_ev ]; then
        echo 0 > $T/tracing_on; echo 0 > $ppf_ev/enable
        echo 0 > $T/events/sched/enable 2> /dev/null
        gzip < $T/trace > $OUT/ppf-trace.txt.gz
        say "ppf tracepoints: $(grep -vc '^#' $T/trace) events"
    fi
    blkparse -q -i bt -f '%T.%9t %a %d %S %n %p %C\n' 2>/dev/null |
        grep -E '^[0-9.]+ [QC] ' > $OUT/blktrace.txt
    say "blktrace: $(wc -l < $OUT/blktrace.txt) events"
    cd /
fi

if [ -n "${CG:-}" ]; then  # what the cgroup limit held, for the report
    for f in memory.max memory.peak memory.events memory.stat; do
        cp $CG/replay/$f $OUT/cgroup-$f.txt
    done
    say "cgroup: peak $(cat $CG/replay/memory.peak) bytes, $(tr '\n' ' ' < $CG/replay/memory.events)"
fi
cat /proc/predictive_prefetch > $OUT/ppf-stats.txt
cat /proc/predictive_prefetch
cat /proc/meminfo > $OUT/meminfo.txt
# the module's functions where this boot loaded them (insnprof.py's names)
grep '\[predictive_prefetch\]' /proc/kallsyms > $OUT/module-kallsyms.txt
umount $DIR
echo "<<<PPF-EVAL-RESULTS>>>"
tar -C $OUT -czf - . | base64
echo "<<<PPF-EVAL-RESULTS-END>>>"
