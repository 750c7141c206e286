# SPDX-License-Identifier: GPL-2.0
#
# ppf: the userspace side of the build.  The kernel module is built by
# Kbuild (see Kbuild and Kconfig); this Makefile builds the models into the
# simulator, tests, fuzzers and benchmark, and runs them.
#
#   make demo     the GNU ld link replayed cold in the test VM, without prefetching and with EPCM
#   make sim-demo the models scored on the recorded GNU ld link trace (no VM, seconds)
#   make test     every test: unit, invariants, state format, trace format, simulator, fuzzers
#   make test-repeat N=10 [REPEAT_TESTS="predict ..."]   the kernel tests that
#                 compare measured figures, each booted N times: a check that
#                 fails by chance shows up as a failed run
#   make bench    the models' speed and memory (a benchmark: reports, asserts nothing)
#   make bench-instructions   the same as instruction and cache-miss counts (valgrind)
#   make sweep    the table in docs/models.md: every model on every trace
#   make fuzz-long each fuzz target for FUZZ_RUNS (10^7) executions (scripts/fuzz-long.sh)
#   make deb      build/predictive-prefetch-dkms_VERSION_ARCH.deb: the module
#                 for DKMS, ppfctl, the admin guide (scripts/build-deb.sh)
#   make ppfctl   userspace/ppfctl/ppfctl, the operator's tool
#
# Each target first installs the Debian packages it needs (scripts/install-deps.sh).

CC		?= gcc
CLANG		?= clang
BUILD		?= build
OPT		?= -O2
VERSION		:= $(shell cat VERSION)
PPF_CFLAGS	:= -std=gnu11 -g -Wall -Wextra -Werror -Wno-declaration-after-statement \
		   -DPPF_VERSION='"$(VERSION)"'
SANITIZE	:= -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_SECONDS	?= 30
FUZZ_RUNS	?= 10000000
PASSES		?= 3
N		?= 10
REPEAT_TESTS	?= predict predict-debian predict-debian61 persist

MODEL_SRCS	:= $(wildcard models/*.c)
MODEL_HDRS	:= $(wildcard models/*.h)
SIM_SRCS	:= $(wildcard userspace/sim/*.c)
SIM_HDRS	:= $(wildcard userspace/sim/*.h)
TRACE_LIB	:= userspace/trace-replay/libppftrace.a
TRACES		:= eval/workloads/gnuld/gnuld.trace.gz \
		   eval/workloads/andrew/andrew.trace.gz \
		   eval/workloads/glimpse/glimpse.trace.gz

.PHONY: all demo sim-demo test test-repeat fuzz-long bench bench-instructions sweep deb ppfctl deps deps-test clean FORCE

all: $(BUILD)/ppf-sim $(BUILD)/ppf-bench

deps:
	@scripts/install-deps.sh build

deps-test:
	@scripts/install-deps.sh test

$(BUILD):
	mkdir -p $@

$(TRACE_LIB): FORCE
	$(MAKE) -s -C userspace/trace-replay libppftrace.a ppf-trace-check

$(BUILD)/ppf-sim: $(MODEL_SRCS) $(MODEL_HDRS) $(SIM_SRCS) $(SIM_HDRS) $(TRACE_LIB) VERSION \
		userspace/include/ppf_cli.h | $(BUILD)
	$(CC) $(PPF_CFLAGS) $(OPT) -o $@ $(MODEL_SRCS) $(SIM_SRCS) $(TRACE_LIB) -lz

$(BUILD)/ppf-bench: $(MODEL_SRCS) $(MODEL_HDRS) userspace/bench/ppf-bench.c VERSION \
		userspace/include/ppf_cli.h | $(BUILD)
	$(CC) $(PPF_CFLAGS) $(OPT) -o $@ $(MODEL_SRCS) userspace/bench/ppf-bench.c

# Tests run sanitized: a model bug should crash loudly, not skew a number.
$(BUILD)/test_%: tests/models/test_%.c tests/models/test_harness.h $(MODEL_SRCS) $(MODEL_HDRS) | $(BUILD)
	$(CC) $(PPF_CFLAGS) -O1 $(SANITIZE) -o $@ $(MODEL_SRCS) $<

$(BUILD)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/coverage-ignore.txt $(MODEL_SRCS) $(MODEL_HDRS) | $(BUILD)
	$(CLANG) $(PPF_CFLAGS) -O1 -fsanitize=fuzzer,address,undefined \
		-fsanitize-coverage-ignorelist=tests/fuzz/coverage-ignore.txt \
		-fno-sanitize-recover=undefined -o $@ $(MODEL_SRCS) $<

demo: deps
	python3 -m eval.harness demo

sim-demo: deps $(BUILD)/ppf-sim
	@echo "== ppf-sim: every model on the GNU ld link trace, after $(PASSES) training passes =="
	$(BUILD)/ppf-sim --sweep --passes $(PASSES) --json $(BUILD)/demo.json eval/workloads/gnuld/gnuld.trace.gz
	@echo "(precision: predictions opened within 16 events; coverage: opens predicted before they happened;"
	@echo " lead: how far ahead the first prediction came. JSON: $(BUILD)/demo.json)"
	@python3 scripts/sim-conclusion.py $(BUILD)/demo.json

sweep: deps $(BUILD)/ppf-sim
	$(BUILD)/ppf-sim --sweep --passes $(PASSES) --json $(BUILD)/sweep.json $(TRACES)

deb: deps
	@scripts/build-deb.sh $(BUILD)

ppfctl: deps
	$(MAKE) -s -C userspace/ppfctl

bench: deps $(BUILD)/ppf-bench
	$(BUILD)/ppf-bench

# Instructions and L1 data-cache misses per event, counted by cachegrind:
# the same on any machine, however busy (the stream generator included).
bench-instructions: deps $(BUILD)/ppf-bench
	@scripts/install-deps.sh --packages valgrind
	@for m in last_successor pcm epcm; do for s in random repetitive; do \
		valgrind --tool=cachegrind --cache-sim=yes --cachegrind-out-file=/dev/null \
			$(BUILD)/ppf-bench one $$m $$s 10000 300000 2>&1 | \
		awk -v m=$$m -v s=$$s '/I   refs/ { gsub(",", "", $$4); i = $$4 } \
			/D1  misses/ { gsub(",", "", $$4); d = $$4 } \
			END { printf "%-15s %-10s 10000 files: %6.0f instructions, %5.1f L1d misses an event\n", m, s, i / 300000, d / 300000 }'; \
	done; done

test: deps-test $(BUILD)/test_models $(BUILD)/test_invariants $(BUILD)/test_state \
	$(BUILD)/fuzz_model $(BUILD)/fuzz_state $(BUILD)/ppf-sim
	$(MAKE) -s -C userspace/trace-replay fuzz_trace_parse
	@FUZZ_SECONDS=$(FUZZ_SECONDS) BUILD=$(BUILD) scripts/run-tests.sh

test-repeat: deps-test
	python3 -m tests.kernel.run_tests --repeat $(N) $(addprefix --only ,$(REPEAT_TESTS))

fuzz-long: deps-test $(BUILD)/fuzz_model $(BUILD)/fuzz_state
	$(MAKE) -s -C userspace/trace-replay fuzz_trace_parse
	@BUILD=$(BUILD) scripts/fuzz-long.sh $(FUZZ_RUNS)

clean:
	rm -rf $(BUILD)
	$(MAKE) -s -C userspace/trace-replay clean
	$(MAKE) -s -C userspace/ppfctl clean
