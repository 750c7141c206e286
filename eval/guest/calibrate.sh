# calibrate.sh - measure a disk profile's device with fio (inside the VM)
#
# /ppf/eval.conf (eval/harness/calibrate.py): DEV DEV_SETUP DEV_TIMED (the
# profile's device, as run-experiment.sh gets it) RAND_IOS SPAN_MB SEQ_MB.
# Jobs, all O_DIRECT reads, one after another (fio's JSON in /tmp/out):
#   rand4k_qd1   random 4 KiB, one at a time, anywhere on the device
#   rand4k_span  the same within the first SPAN_MB MiB (short seeks)
#   rand4k_qd32  random 4 KiB, 32 in flight (libaio), anywhere
#   seq1m        sequential 1 MiB, one at a time, SEQ_MB MiB
# --norandommap: the device may be terabytes (the whole modelled disk), and
# fio's map of blocks already read would take a bit per block.  fio's
# random offsets come from fixed seeds (randrepeat), the same every boot.
set -u
. /ppf/eval.conf
OUT=/tmp/out
mkdir -p $OUT
eval "$DEV_SETUP" || exit 1
eval "$DEV_TIMED" || exit 1
sed "s/.*\[\(.*\)\].*/\1/" /sys/block/${DEV#/dev/}/queue/scheduler > $OUT/scheduler.txt
echo "calibrate: $DEV, scheduler $(cat $OUT/scheduler.txt), $(cat /sys/block/${DEV#/dev/}/size) sectors"

job() {  # job NAME fio-options...
    name=$1; shift
    fio --name=$name --filename=$DEV --direct=1 --output-format=json \
        --output=$OUT/fio-$name.json "$@" || exit 1
    echo "calibrate: $name done"
}
job rand4k_qd1 --rw=randread --bs=4k --ioengine=psync --iodepth=1 --norandommap \
    --number_ios=$RAND_IOS
job rand4k_span --rw=randread --bs=4k --ioengine=psync --iodepth=1 --norandommap \
    --number_ios=$RAND_IOS --offset=0 --size=${SPAN_MB}m
job rand4k_qd32 --rw=randread --bs=4k --ioengine=libaio --iodepth=32 --norandommap \
    --number_ios=$((RAND_IOS * 4))
job seq1m --rw=read --bs=1m --ioengine=psync --iodepth=1 --size=${SEQ_MB}m
echo "<<<PPF-EVAL-RESULTS>>>"
tar -C $OUT -czf - . | base64
echo "<<<PPF-EVAL-RESULTS-END>>>"
