#!/usr/bin/env bash
# run-tests.sh - run every test suite, then print one closing total
#
# Each suite prints its own "N passed, N failed[, N skipped]" line; this adds
# them up so that the last line of `make test` is the verdict on everything.
# A suite that dies without a closing line, or exits non-zero with no
# failure counted, counts as one failure.  Skips are counted, never passes.
set -uo pipefail
# From the top of the tree: the Python entry points run as modules
# (python3 -m tests.kernel.run_tests), importing eval/ from here.
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
FUZZ_SECONDS=${FUZZ_SECONDS:-30}
total_pass=0
total_fail=0
total_skip=0
failed_suites=()
timings=()	# "name seconds", for the closing lines: where CI's time goes
CLOSING='^[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$'

# closing LINE: "P F S" from "P passed, F failed[, S skipped]".
closing() {
	local p f s=0
	p=${1%% passed*}
	f=${1#*passed, }; f=${f%% failed*}
	[[ $1 == *skipped* ]] && { s=${1##*failed, }; s=${s%% skipped*}; }
	echo "$p $f $s"
}

suite() {
	local name=$1; shift
	local log="$BUILD/test-$name.log" rc line p f s
	local began=$SECONDS
	echo "== $name"
	"$@" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	timings+=("$name $((SECONDS - began)) s")
	line=$(grep -E "$CLOSING" "$log" | tail -n 1)
	if [[ -n "$line" ]]; then
		read -r p f s <<<"$(closing "$line")"
	else
		p=0; f=1; s=0
	fi
	if [[ $rc -ne 0 && $f -eq 0 ]]; then f=1; fi
	total_pass=$((total_pass + p))
	total_fail=$((total_fail + f))
	total_skip=$((total_skip + s))
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
	local line p f s rc=0
	line=$(scripts/run-pytest.py tests/vm | tee /dev/stderr | grep -E "$CLOSING" | tail -n 1) || rc=1
	[[ -n "$line" ]] || line="0 passed, 1 failed"
	read -r p f s <<<"$(closing "$line")"
	if mypy eval tests/kernel tests/vm tests/devices tests/sim tests/package tests/series scripts/*.py userspace/trace-replay/ppftrace; then
		p=$((p + 1))
	else
		f=$((f + 1)); rc=1
	fi
	echo "$p passed, $f failed, $s skipped"
	return $rc
}

suite models "$BUILD/test_models"
suite invariants "$BUILD/test_invariants"
suite state "$BUILD/test_state"
suite trace make -s -C tests/trace test
suite replay make -s -C tests/replay test
suite sim scripts/run-pytest.py tests/sim
suite python-checks python_checks
suite kernel python3 -m tests.kernel.run_tests
suite kernel-style scripts/kernel-style.sh
suite call-graph python3 -m scripts.check-call-graph
suite package python3 -m tests.package.test_deb
suite series python3 tests/series/test_series.py
# The short evaluation's results go to a directory of this run's own.
eval_results=$(mktemp -d /tmp/ppf-selftest.XXXXXX)
suite eval env PPF_RESULTS="$eval_results" python3 -m eval.harness.selftest
suite devices scripts/run-pytest.py -s tests/devices
suite fuzz-model fuzz "$BUILD/fuzz_model" tests/fuzz/corpus-model
suite fuzz-trace fuzz userspace/trace-replay/fuzz_trace_parse tests/trace/corpus
suite fuzz-state fuzz "$BUILD/fuzz_state" tests/fuzz/corpus-state

# A red run names what failed in its last lines, which are often all a CI
# log keeps: each failed suite's failing checks, premises and bail-outs.
echo
for name in "${failed_suites[@]}"; do
	echo "-- $name:"
	grep -E '^(failed: |.*(not ok [0-9]|# premise failed|Bail out!|boot failed|no KTAP totals|FAILED |[0-9]+ passed, [1-9][0-9]* failed))' \
		"$BUILD/test-$name.log" | tail -n 20
done
(IFS=,; echo "host time: ${timings[*]}" | sed 's/,/, /g')
[[ ${#failed_suites[@]} -eq 0 ]] || echo "failed suites: ${failed_suites[*]}"
echo "$total_pass passed, $total_fail failed, $total_skip skipped"
[[ $total_fail -eq 0 ]]
