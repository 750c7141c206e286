"""The VM layer: ppf's test kernels in QEMU, shaped after tools/testing/kunit.

    config.py   what to boot: kernel variants (base, debug, debian), the
                null_blk parameters, BootRequest
    kernel.py   building it: the test kernel, the module, the initramfs, disks
    run.py      booting it: boot(BootRequest) -> Result, and the run.py CLI
    parse.py    reading the console: markers, splats, results, check counts
    debian.py   Debian's own kernel: packages, module subset, guest prelude

tests/kernel/run_tests.py and eval/harness/ are its two clients; nothing here
imports from either.
"""
