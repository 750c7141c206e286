#!/usr/bin/env bash
# fuzz-long.sh [RUNS] - each fuzz target for RUNS executions (default 10^7)
#
# make test runs each libFuzzer target for 30 s; this is the long run
# (make fuzz-long), outside CI's time.  Each target starts from a copy of
# its corpus (tests/fuzz/corpus-model, tests/trace/corpus,
# tests/fuzz/corpus-state), so what it
# finds stays in build/fuzz-long-NAME/ until someone adds it: a crash input
# is kept there as crash-*, to be copied into the corpus as a regression
# input once the bug is fixed.  FUZZ_JOBS workers (default: the CPUs) run
# each target at once, RUNS / FUZZ_JOBS executions each, on one corpus
# directory (libFuzzer reloads it, so each worker builds on the others'
# finds): fuzz_model runs about 1,000 to 2,000 executions a second once its
# inputs have grown, so one worker takes two hours or more.  Prints, per
# target, the executions of all its workers, the coverage (libFuzzer's cov:
# edges and ft: features, of the first worker) and the corpus size, and
# closes with "N passed, N failed" (a target passes if every worker ran its
# executions without a crash).
set -uo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-10000000}
BUILD=${BUILD:-build}
pass=0
fail=0
JOBS=${FUZZ_JOBS:-$(nproc)}
run() {
	local name=$1 bin=$2 corpus=$3 work="$BUILD/fuzz-long-$1" t0 rc=0 j
	local per=$(( (RUNS + JOBS - 1) / JOBS )) pids=()
	rm -rf "$work" && mkdir -p "$work/corpus"
	cp "$corpus"/* "$work/corpus/" 2>/dev/null
	t0=$(date +%s)
	for j in $(seq "$JOBS"); do
		"$bin" -runs="$per" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
			-artifact_prefix="$work/" "$work/corpus" >"$work/log$j" 2>&1 &
		pids+=($!)
	done
	for j in "${pids[@]}"; do
		wait "$j" || rc=1
	done
	local done execs
	done=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$work/log1" | tail -n 1)
	execs=$(cat "$work"/log* | awk '/stat::number_of_executed_units/ { n += $2 } END { print n + 0 }')
	echo "$name: $execs executions by $JOBS workers in $(( $(date +%s) - t0 )) s; corpus $(ls "$work/corpus" | wc -l) inputs; ${done:-no DONE line}"
	if [[ $rc -eq 0 ]]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		tail -n 30 "$work"/log*
		ls "$work"/crash-* "$work"/timeout-* "$work"/oom-* 2>/dev/null
	fi
}
run model "$BUILD/fuzz_model" tests/fuzz/corpus-model
run trace userspace/trace-replay/fuzz_trace_parse tests/trace/corpus
run state "$BUILD/fuzz_state" tests/fuzz/corpus-state
echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
