"""What a profile gives the guest (no VM): the device, its setup, the
kernel command line, and a clear error for a profile that names no device
or scheduler."""

from __future__ import annotations

import pytest

from eval.harness.profiles import PROFILES, Profile


def test_simdisk_profile_loads_the_module_then_times_it() -> None:
    p = PROFILES["hdd-2001"]
    conf = p.eval_conf(640)
    assert "DEV=/dev/simdisk0\n" in conf
    assert "insmod /ppf/ppf_simdisk.ko size_mb=640 disk_mb=4150 queue_depth=1 " in conf
    assert ("echo mq-deadline > /sys/block/simdisk0/queue/scheduler && "
            "echo 256 > /sys/block/simdisk0/queue/nr_requests") in conf
    assert "DEV_TIMED='echo 1 > /sys/module/ppf_simdisk/parameters/timed'" in conf
    assert p.kernel_params(640) == ()


def test_null_blk_profile_is_on_the_command_line() -> None:
    p = PROFILES["nvme"]
    params = p.kernel_params(1500)
    assert "null_blk.hw_queue_depth=128" in params
    assert "null_blk.gb=2" in params          # 1,500 MiB rounded up to whole GiB
    assert "null_blk.completion_nsec=80000" in params
    assert "DEV_SETUP='echo none > /sys/block/nullb0/queue/scheduler'" in p.eval_conf(1500)


def test_bad_profile_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="unknown I/O scheduler 'cfq'"):
        Profile("x", "null_blk", (), "cfq", "")
    with pytest.raises(ValueError, match="unknown device 'ram'"):
        Profile("x", "ram", (), "none", "")
