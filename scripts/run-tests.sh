#!/usr/bin/env bash
# run-tests.sh - run every test suite, then print one closing total
#
# Each suite prints its own "N passed, N failed" line; this adds them up so
# that the last line of `make test` is the verdict on everything.  A suite
# that dies without a closing line counts as one failure.
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
FUZZ_SECONDS=${FUZZ_SECONDS:-30}
total_pass=0
total_fail=0
failed_suites=()

suite() {
	local name=$1; shift
	local log="$BUILD/test-$name.log" rc line p f
	echo "== $name"
	"$@" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
	if [[ -n "$line" ]]; then
		p=${line%% passed*}
		f=${line#*passed, }; f=${f%% failed*}
	else
		p=0; f=1
	fi
	if [[ $rc -ne 0 && $f -eq 0 ]]; then f=1; fi
	total_pass=$((total_pass + p))
	total_fail=$((total_fail + f))
	[[ $f -eq 0 ]] || failed_suites+=("$name")
}

# A fuzz run passes when the fuzzer ran its time without finding a crash.
fuzz() {
	local bin=$1 corpus=$2 work="$BUILD/fuzz-$(basename "$1")"
	rm -rf "$work" && mkdir -p "$work"
	[[ -d "$corpus" ]] && cp "$corpus"/* "$work"/ 2>/dev/null
	if "$bin" -max_total_time="$FUZZ_SECONDS" -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$work/" "$work" >"$work.log" 2>&1; then
		grep -E 'stat::number_of_executed_units' "$work.log" || true
		echo "1 passed, 0 failed"
	else
		tail -n 40 "$work.log"
		echo "0 passed, 1 failed"
		return 1
	fi
}

# The Python checks, as kunit's run_checks.py: the unit tests of the VM layer
# and the harness (tests/vm/, no VM), then mypy (mypy.ini: no untyped
# definitions) over the project's Python.  mypy counts as one check.
python_checks() {
	local line p f rc=0
	python3 -m pytest -q -p no:cacheprovider --junitxml="$BUILD/python-tests.xml" tests/vm
	line=$(python3 scripts/pytest-summary.py "$BUILD/python-tests.xml") || rc=1
	[[ -n "$line" ]] || line="0 passed, 1 failed"
	p=${line%% passed*}
	f=${line#*passed, }; f=${f%% failed*}
	if mypy eval tests/kernel tests/vm tests/devices tests/sim tests/package tests/series userspace/trace-replay/ppftrace; then
		p=$((p + 1))
	else
		f=$((f + 1)); rc=1
	fi
	echo "$p passed, $f failed"
	return $rc
}

suite models "$BUILD/test_models"
suite invariants "$BUILD/test_invariants"
suite state "$BUILD/test_state"
suite trace make -s -C tests/trace test
suite replay make -s -C tests/replay test
suite sim sh -c "python3 -m pytest -q -p no:cacheprovider --junitxml=$BUILD/sim-tests.xml tests/sim; python3 scripts/pytest-summary.py $BUILD/sim-tests.xml"
suite python-checks python_checks
suite kernel python3 tests/kernel/run_tests.py
suite kernel-style scripts/kernel-style.sh
suite package python3 tests/package/test_deb.py
suite series python3 tests/series/test_series.py
suite eval python3 eval/harness/selftest.py
suite devices sh -c "python3 -m pytest -q -s -p no:cacheprovider --junitxml=$BUILD/devices-tests.xml tests/devices; python3 scripts/pytest-summary.py $BUILD/devices-tests.xml"
suite fuzz-model fuzz "$BUILD/fuzz_model" tests/fuzz/corpus-model
suite fuzz-trace fuzz userspace/trace-replay/fuzz_trace_parse tests/trace/corpus
suite fuzz-state fuzz "$BUILD/fuzz_state" tests/fuzz/corpus-state

echo
[[ ${#failed_suites[@]} -eq 0 ]] || echo "failed suites: ${failed_suites[*]}"
echo "$total_pass passed, $total_fail failed"
[[ $total_fail -eq 0 ]]
