/* SPDX-License-Identifier: GPL-2.0 */
/*
 * test_harness.h - the smallest harness that reports like the others
 *
 * Each test is a function; EXPECT() records a failure with its line and
 * carries on, so one run shows every broken expectation.  The runner
 * prints "ok"/"FAIL" per test and closes with "N passed, N failed".
 */
#ifndef PPF_TEST_HARNESS_H
#define PPF_TEST_HARNESS_H

#include <stdio.h>
#include <string.h>

static int ppf_test_failures;

#define EXPECT(cond, ...) do {						\
	if (!(cond)) {							\
		ppf_test_failures++;					\
		fprintf(stderr, "  %s:%d: expected %s: ", __FILE__,	\
			__LINE__, #cond);				\
		fprintf(stderr, __VA_ARGS__);				\
		fputc('\n', stderr);					\
	}								\
} while (0)

struct ppf_test {
	const char *name;
	void (*fn)(void);
};

static inline int ppf_run_tests(const struct ppf_test *tests, int n,
				const char *only)
{
	int i, passed = 0, failed = 0;

	for (i = 0; i < n; i++) {
		int before = ppf_test_failures;

		if (only && !strstr(tests[i].name, only))
			continue;
		tests[i].fn();
		if (ppf_test_failures == before) {
			passed++;
			printf("ok   %s\n", tests[i].name);
		} else {
			failed++;
			printf("FAIL %s\n", tests[i].name);
		}
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}

#endif /* PPF_TEST_HARNESS_H */
