// SPDX-License-Identifier: GPL-2.0
/* libFuzzer entry: the parser must reject or accept, never crash or leak. */
#include <stdint.h>
#include <stddef.h>

#include "trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ppf_trace *t;
	struct ppf_trace_stats s;
	char err[256];

	if (ppf_trace_parse((const char *)data, size, "fuzz", &t, err, sizeof(err)) == 0) {
		ppf_trace_get_stats(t, &s);
		ppf_trace_free(t);
	}
	return 0;
}
