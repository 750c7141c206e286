"""The harness's progress for a running VM (eval/harness/runner.py): the
replays done of n, the guest script's phase and the guest's seconds, read
from the VM's log as it grows; and the estimate of a multi-VM run's time
left."""
from __future__ import annotations

from pathlib import Path

from eval.harness.runner import progress, time_left


def test_progress_from_the_log(tmp_path: Path) -> None:
    log = tmp_path / "vm.log"
    assert progress(log, 5) == "starting"
    log.write_text("# qemu-system-x86_64 ...\n[    0.000000] Linux version 6.12\n")
    assert progress(log, 5) == "replay 0 of 5 done; last: booting"
    log.write_text(log.read_text() + "<<<PPF-START nonce=abc uptime=2.50>>>\n"
                   "ppf-eval: copying the image to /dev/vdb\n"
                   "ppf-eval: run warmup-1 rc=0 elapsed_ns=1 io_latency_ns=1\n"
                   "[   42.700000] random: crng init done\n"
                   "ppf-eval: run warmup-2 rc=0 elapsed_ns=1 io_latency_ns=1\n")
    assert progress(log, 5) == ("replay 2 of 5 done, guest 40 s; last: run warmup-2 rc=0 "
                                "elapsed_ns=1 io_latency_ns=1")


def test_time_left() -> None:
    assert time_left([], 3, 2) == ""
    assert time_left([300.0], 0, 2) == ""
    assert time_left([300.0, 500.0], 3, 2) == "about 13 min left"  # 2 rounds of 400 s
    assert time_left([30.0], 1, 2) == "about 30 s left"
