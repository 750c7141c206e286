"""ppf's deterministic evaluation harness (issue: replay the Andrew, GNU ld and
Glimpse traces cold and hot in a test VM, with and without each model).

    python3 -m eval.harness run EXPERIMENT...     boot one VM per configuration
    python3 -m eval.harness report EXPERIMENT...  tables (+ JSON) and figures
    python3 -m eval.harness calibrate PROFILE...  fio check of a disk profile
    python3 -m eval.harness demo                  GNU ld cold: none vs EPCM
    python3 -m eval.harness selftest              the short test for make test
"""
