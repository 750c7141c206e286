# check-elevator.sh - does the elevator sort for a one-tag disk? (guest side)
#
# hdd-2001's ppf_simdisk takes one command at a time; 32 random reads in
# flight can then only gain from the I/O scheduler serving them in sector
# order, which needs room for them in the scheduler (queue/nr_requests).
# Prints "RESULT scheduler read_expire_ms nr_requests iops" per fio run.
# Run from the top of the tree (the module built by the harness):
#   python3 -m eval.vm.run --kernel "$(eval/kernel/build.sh)" \
#     --initrd /var/cache/ppf/eval/initramfs-fio.cpio --smp 1 \
#     --add /var/cache/ppf/eval/simdisk/KDIR-CHECKOUT/ppf_simdisk.ko:/ppf/ppf_simdisk.ko \
#     --script eval/blkdev/check-elevator.sh
insmod /ppf/ppf_simdisk.ko size_mb=4150 queue_depth=1 rpm=7200 media_kbps=10000 \
    seek_track_us=600 seek_avg_us=8800 overhead_us=300 iface_mbps=40 buffer_kb=512 || exit 1
echo 1 > /sys/module/ppf_simdisk/parameters/timed
Q=/sys/block/simdisk0/queue
for nr in 0 128 256; do
    for s in mq-deadline:500 mq-deadline:60000 bfq:-; do
        echo ${s%%:*} > $Q/scheduler || exit 1
        [ ${s#*:} = - ] || echo ${s#*:} > $Q/iosched/read_expire
        [ $nr = 0 ] || echo $nr > $Q/nr_requests || exit 1
        iops=$(fio --name=q --filename=/dev/simdisk0 --direct=1 --rw=randread --bs=4k \
            --ioengine=libaio --iodepth=32 --norandommap --number_ios=600 \
            --output-format=terse --terse-version=3 | cut -d';' -f8)
        echo "RESULT ${s%%:*} ${s#*:} $(cat $Q/nr_requests) $iops"
    done
done
