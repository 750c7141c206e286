// SPDX-License-Identifier: GPL-2.0
/*
 * Summary counts. "ppf-trace info" (Python) computes the same numbers with
 * the same rules; the tests compare both to catch writer/parser drift.
 */
#include <string.h>

#include "trace.h"

void ppf_trace_get_stats(const struct ppf_trace *t, struct ppf_trace_stats *s)
{
	size_t i;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < t->nfiles; i++) {
		s->files++;
		s->files_new += t->files[i].created ? 1 : 0;
		s->files_outside += t->files[i].outside_root ? 1 : 0;
		s->dirs += t->files[i].is_dir ? 1 : 0;
	}
	for (i = 0; i < t->nevents; i++) {
		const struct ppf_trace_event *e = &t->events[i];

		switch (e->op) {
		case PPF_OP_OPEN:
			s->opens++;
			s->failed_opens += e->result < 0 ? 1 : 0;
			break;
		case PPF_OP_EXEC:
			s->execs++;
			break;
		case PPF_OP_READ:
			s->reads++;
			s->bytes_read += e->result > 0 ? (uint64_t)e->result : 0;
			break;
		case PPF_OP_WRITE:
			s->writes++;
			s->bytes_written += e->result > 0 ? (uint64_t)e->result : 0;
			break;
		case PPF_OP_MMAP:
			s->mmaps++;
			s->mapped_bytes += (uint64_t)e->len;
			break;
		case PPF_OP_CLOSE:
			s->closes++;
			break;
		case PPF_OP_STAT:
			s->stats++;
			break;
		case PPF_OP_UNLINK:
			s->unlinks++;
			break;
		case PPF_OP_RENAME:
			s->renames++;
			break;
		case PPF_OP_MKDIR:
			s->mkdirs++;
			break;
		case PPF_OP_RMDIR:
			s->rmdirs++;
			break;
		case PPF_OP_DUP:
			s->dups++;
			break;
		default:
			break;
		}
	}
}
