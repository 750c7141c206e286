# realcheck.sh - the real program and its replay in one test VM
# (busybox sh, /init's command; see eval/harness/realcheck.py).
#
# Reads /ppf/eval.conf: DEV DEV_SETUP DEV_TIMED (the disk profile), IMAGE,
# TRACE, SPIN_RATE, ROOT (the trace's recorded root), CMD64 (what a real run
# evals, base64: the recorded command chrooted in $NEW, with its directory
# and environment), BEFORE64 (run in ROOT before each real run, untimed),
# OUTPUT (what the command writes, under ROOT: listed after each real run),
# FAULTS (optional: the trace's faults file, --faults to every replay),
# FAULT_AROUND_BYTES (optional: the kernel's fault-around window).  The
# device is set up by prelude.sh, as for run-experiment.sh (image copied
# before anything is timed, same clock phase, no ASLR, the module loaded and
# left disabled: model none).  The image holds the real tree at
# t/ and the host's binaries at t/_abs/; the command runs chrooted in t/_abs
# with t bind-mounted at ROOT, so it sees the paths it was recorded with.
# Runs: real cold (sync, drop caches), real hot (right after, synced), real cold
# again under tracing, then build-tree and the replay, cold, hot, and cold
# again under tracing.  For each run NAME, $OUT/NAME.txt holds the guest clock
# (ns), this shell's children's CPU ticks and the device's /sys/block stat
# line, before and after.  The traced runs (NAME-traced, outside the timed
# ones) record the tracepoints filemap:mm_filemap_add_to_page_cache (each
# folio the run brings into the page cache) and filemap:mm_filemap_fault
# (each fault on a file mapping that fault-around did not map):
# $OUT/NAME-traced.pages.gz, one line per event, "A TASK DEV INO INDEX ORDER"
# or "F TASK DEV INO INDEX" (INO hex, INDEX in pages), with
# $OUT/NAME-traced.inodes ("INO PATH" of the tree after the run, decimal),
# the events' format files (NAME-traced.format) and the ring
# buffer's stats (overruns: events lost).
set -u
. /ppf/eval.conf
OUT=/tmp/out
DIR=/mnt/w
NEW=$DIR/t/_abs
R=/ppf/ppf-replay
B=$(basename $DEV)
mkdir -p $OUT $DIR

say() { echo "ppf-realcheck: $*"; }
clk() { ppf-clock; }
kids_cpu() { awk '{ print $16 + $17 }' /proc/$$/stat; }  # cutime + cstime, ticks

# the device, the image on it, the clock phase, $DIR mounted, the module loaded
. /ppf/prelude.sh
cat /sys/block/$B/dev > $OUT/dev  # MAJOR:MINOR, the tracepoints' dev
mount --bind $DIR/t $NEW$ROOT || exit 1
mount --bind /dev $NEW/dev || exit 1
# the recorded programs had /proc (gnuld's link.sh reads /proc/self/status)
mount -t proc proc $NEW/proc || exit 1
CMD=$(echo "$CMD64" | base64 -d)
# Fault-around (FAULT_AROUND_BYTES, optional): the window of cached pages a
# fault maps with it.  A page makes every page a mapping touches fault, so
# the traced real run lists them all, not only those the window missed.
FA_FILE=/sys/kernel/debug/fault_around_bytes
[ -e $FA_FILE ] || mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
if [ -n "${FAULT_AROUND_BYTES:-}" ]; then
    echo "$FAULT_AROUND_BYTES" > $FA_FILE ||
        { say "cannot set $FA_FILE (a kernel without CONFIG_DEBUG_FS?)"; exit 1; }
fi
cat $FA_FILE > $OUT/fault_around_bytes 2>/dev/null || rm -f $OUT/fault_around_bytes
sync
/ppf/nbcopy --align 2

timed() {  # timed NAME COMMAND...: the command between two samples
    name=$1; shift
    { echo "clk0=$(clk)"; echo "cpu0=$(kids_cpu)"; echo "stat0=$(cat /sys/block/$B/stat)"; } > $OUT/$name.txt
    "$@"
    rc=$?
    { echo "clk1=$(clk)"; echo "cpu1=$(kids_cpu)"; echo "stat1=$(cat /sys/block/$B/stat)"
      echo "rc=$rc"; } >> $OUT/$name.txt
    say "$name rc=$rc $(tr '\n' ' ' < $OUT/$name.txt)"
}

BEFORE=$(echo "$BEFORE64" | base64 -d)

real() {  # the recorded command, chrooted; its output kept apart from the console
    eval "$CMD" > /tmp/real.log 2>&1
}

before() {  # BEFORE in the root, untimed (pystart: the last figure removed)
    [ -z "$BEFORE" ] || (cd $NEW$ROOT && eval "$BEFORE") || say "before failed: $BEFORE"
}

real_done() {  # real_done NAME: its log and its output's listing
    grep -v 'very long word' /tmp/real.log > $OUT/$1.log
    ls -lan $NEW$ROOT/$OUTPUT > $OUT/$1.output.txt 2>&1
}

T=/sys/kernel/tracing
EVENTS="filemap/mm_filemap_add_to_page_cache filemap/mm_filemap_fault"
inodes() {  # inodes NAME: "INO PATH" of the tree (not into the bind mounts:
    # the root's, the same file system, pruned; /dev's, devtmpfs, by -xdev)
    find $DIR/t -xdev -path $NEW$ROOT -prune -o -exec stat -c '%i %n' {} + > $OUT/$1.inodes
}
trace_on() {
    [ -d $T/events ] || mount -t tracefs tracefs $T || { say "no tracefs"; return 1; }
    echo 0 > $T/tracing_on
    echo 32768 > $T/buffer_size_kb
    echo > $T/trace
    for e in $EVENTS; do echo 1 > $T/events/$e/enable || return 1; done
    echo 1 > $T/tracing_on
}
trace_off() {  # trace_off NAME: the events, compacted and gzipped
    echo 0 > $T/tracing_on
    for e in $EVENTS; do echo 0 > $T/events/$e/enable; done
    cat $T/per_cpu/cpu0/stats > $OUT/$1.tracestats
    for e in $EVENTS; do cat $T/events/$e/format; done > $OUT/$1.format
    # "  python3-123  [000] .....  12.34: mm_filemap_add_to_page_cache: dev 254:0
    #  ino 1a pfn=0x12 ofs=4096 order=0" -> "A python3-123 254:0 1a 1 0"
    awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^mm_filemap_/) break
           if ($i == "mm_filemap_add_to_page_cache:") {
               o = $(i+6); sub("ofs=", "", o); r = $(i+7); sub("order=", "", r)
               print "A", $1, $(i+2), $(i+4), int(o / 4096), r
           } else if ($i == "mm_filemap_fault:") {
               d = $(i+1); sub("dev=", "", d); n = $(i+2); sub("ino=", "", n)
               o = $(i+3); sub("ofs=", "", o); print "F", $1, d, n, int(o / 4096)
           } }' $T/trace | gzip > $OUT/$1.pages.gz
    echo > $T/trace
    say "$1: $(zcat $OUT/$1.pages.gz | wc -l) events, $(grep overrun $OUT/$1.tracestats)"
}

# real, cold then hot
sync; echo 3 > /proc/sys/vm/drop_caches
before
timed real-cold real
real_done real-cold
before
sync  # as ppf-replay does before a hot run: the cold run's writeback not timed here
timed real-hot real
real_done real-hot
# again cold, traced: which pages of which file the real program brings in
before
sync; echo 3 > /proc/sys/vm/drop_caches
trace_on && timed real-cold-traced real
trace_off real-cold-traced
real_done real-cold-traced
inodes real-cold-traced  # after: with the files the run created

# the replay on the same file system, cold (ppf-replay drops the caches
# itself, after the first sample: its sync and drop are in both deltas) then hot
# (it syncs first, untimed)
umount $NEW/proc $NEW/dev $NEW$ROOT
FA=${FAULTS:+--faults $FAULTS}  # mapped files touched as the real program faulted them
fresh_tree() {  # the trace's starting state, what a replay before left removed
    $R build-tree $TRACE $DIR/t > /dev/null || { say "build-tree failed"; exit 1; }
}
fresh_tree
sync; echo 3 > /proc/sys/vm/drop_caches
timed replay-cold $R run --quiet --spin-rate=$SPIN_RATE $FA --json $OUT/replay-cold.json --cold $TRACE $DIR/t
# as run-experiment.sh before every replay: the cold replay's outputs
# removed (the real run's own reset removed its), so the hot one makes them anew
fresh_tree
timed replay-hot $R run --quiet --spin-rate=$SPIN_RATE $FA --json $OUT/replay-hot.json $TRACE $DIR/t
# again cold, traced (ppf-replay drops the caches: tracing starts before)
fresh_tree
sync; echo 3 > /proc/sys/vm/drop_caches
trace_on && timed replay-cold-traced $R run --quiet --spin-rate=$SPIN_RATE $FA --json $OUT/replay-cold-traced.json --cold $TRACE $DIR/t
trace_off replay-cold-traced
inodes replay-cold-traced

cat /proc/predictive_prefetch > $OUT/ppf-stats.txt
umount $DIR
echo "<<<PPF-EVAL-RESULTS>>>"
tar -C $OUT -czf - . | base64
echo "<<<PPF-EVAL-RESULTS-END>>>"
