# calibrate.sh - check a disk profile with fio on /dev/nullb1 (inside the VM)
# Random 4 KiB reads at queue depth 1 (latency) and a sequential 1 MiB read
# (bandwidth), O_DIRECT, on the second null_blk device of the same parameters.
# /ppf/eval.conf: RAND_IOS SEQ_MB
set -u
. /ppf/eval.conf
mkdir -p /tmp/out
fio --name=rand --filename=/dev/nullb1 --rw=randread --bs=4k --iodepth=1 \
    --ioengine=psync --direct=1 --number_ios=$RAND_IOS --size=256m \
    --output-format=json --output=/tmp/out/fio-rand.json
fio --name=seq --filename=/dev/nullb1 --rw=read --bs=1m --iodepth=1 \
    --ioengine=psync --direct=1 --size=${SEQ_MB}m \
    --output-format=json --output=/tmp/out/fio-seq.json
echo "<<<PPF-EVAL-RESULTS>>>"
tar -C /tmp/out -czf - . | base64
echo "<<<PPF-EVAL-RESULTS-END>>>"
