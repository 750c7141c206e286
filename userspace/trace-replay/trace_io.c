// SPDX-License-Identifier: GPL-2.0
/*
 * Loading a trace file. gzread() passes plain files through unchanged, so
 * one code path reads both "x.trace" and "x.trace.gz".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "trace.h"

/* Refuse absurd sizes up front instead of exhausting memory in a VM. */
#define PPF_TRACE_MAX_BYTES ((size_t)1 << 34)

int ppf_trace_load(const char *path, struct ppf_trace **out, char *err, size_t errlen)
{
	size_t len = 0, cap = 1 << 16;
	char *buf, *nb;
	gzFile gz;
	int n, ret;

	*out = NULL;
	gz = gzopen(path, "rb");
	if (!gz) {
		snprintf(err, errlen, "%s:0: cannot open: %s", path,
			 errno ? strerror(errno) : "out of memory");
		return -1;
	}
	buf = malloc(cap);
	if (!buf)
		goto oom;
	for (;;) {
		if (cap - len < (1 << 16)) {
			if (cap >= PPF_TRACE_MAX_BYTES) {
				snprintf(err, errlen, "%s:0: trace larger than %zu bytes",
					 path, PPF_TRACE_MAX_BYTES);
				goto fail;
			}
			nb = realloc(buf, cap * 2);
			if (!nb)
				goto oom;
			buf = nb;
			cap *= 2;
		}
		/* gzread takes an unsigned count: read in bounded chunks. */
		n = gzread(gz, buf + len, (unsigned)(cap - len > (1u << 30) ? (1u << 30) : cap - len));
		if (n < 0) {
			int zerr;
			const char *msg = gzerror(gz, &zerr);

			snprintf(err, errlen, "%s:0: read error: %s", path, msg);
			goto fail;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	gzclose(gz);
	ret = ppf_trace_parse(buf, len, path, out, err, errlen);
	free(buf);
	return ret;
oom:
	snprintf(err, errlen, "%s:0: out of memory", path);
fail:
	free(buf);
	gzclose(gz);
	return -1;
}
