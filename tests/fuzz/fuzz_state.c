// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_state.c - libFuzzer target for the saved state's parser
 *
 * The parser (models/state_file.c) is the kernel loader's first line: it
 * must refuse anything malformed without reading past the input, and what
 * it accepts must be exactly what the writer writes.  The first byte
 * chooses the limits and whether to set the header's length and checksum
 * right (a mutated file almost never has a valid CRC, and the fuzzer would
 * otherwise never get past it); the rest is the file.  An accepted file is
 * read record by record and written again with the writer: the copy must
 * be byte for byte the input.
 */
#include "../../models/state_file.h"
#include <stdio.h>

static void put32(u8 *p, u32 v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

static void rewrite(const struct ppf_state *st, const u8 *in, u64 len)
{
	struct ppf_state_writer w = { 0 };
	struct ppf_state_file f;
	struct ppf_state_event ev;
	struct ppf_state_fs fs;
	const u8 *p = st->files;
	u32 i;

	w.size = len;
	w.buf = malloc(len);
	ppf_state_begin(&w, st->flags, st->nfs, st->nfiles, st->nevents);
	for (i = 0; i < st->nfs; i++) {
		ppf_state_get_fs(st, i, &fs);
		ppf_state_put_fs(&w, &fs);
	}
	for (i = 0; i < st->nfiles; i++) {
		p = ppf_state_get_file(p, &f);
		ppf_state_put_file(&w, &f);
	}
	for (i = 0; i < st->nevents; i++) {
		ppf_state_get_event(st, i, &ev);
		ppf_state_put_event(&w, &ev);
	}
	if (p != st->events || w.pos != w.size)
		__builtin_trap();
	ppf_state_finish(&w);
	if (memcmp(w.buf, in, len)) {
		fprintf(stderr, "an accepted state written again differs\n");
		__builtin_trap();
	}
	free(w.buf);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct ppf_state_limits lim;
	struct ppf_state st;
	u8 *buf;
	int err;

	if (!size)
		return 0;
	lim.max_files = data[0] & 1 ? 1u << 24 : 4;
	lim.max_events = data[0] & 2 ? 1u << 20 : 8;
	lim.paths = data[0] & 4;
	buf = malloc(size - 1 ? size - 1 : 1);
	memcpy(buf, data + 1, size - 1);
	if ((data[0] & 8) && size - 1 >= PPF_STATE_HEADER) {
		put32(buf + 28, (u32)(size - 1 - PPF_STATE_HEADER));
		ppf_state_finish(&(struct ppf_state_writer){ buf, size - 1,
							     size - 1 });
	}
	if (!ppf_state_parse(&st, buf, size - 1, &lim, &err))
		rewrite(&st, buf, size - 1);
	else if (err != -EINVAL && err != -EFBIG)
		__builtin_trap();
	free(buf);
	return 0;
}
