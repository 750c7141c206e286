// SPDX-License-Identifier: GPL-2.0
/*
 * statefix FILE OFFSET VALUE - set the 32-bit little-endian field at OFFSET
 * of a saved state and set its checksum right again
 *
 * For test_persist.sh: a state damaged this way passes the checksum, so
 * the kernel's loader must find what is wrong (an index out of range, a
 * count past the budget) in the fields themselves.
 */
#include <stdio.h>
#include <stdlib.h>
#include "../../../models/state_file.c"	/* put32(), the writer */

int main(int argc, char **argv)
{
	static unsigned char buf[1 << 24];
	unsigned long off;
	size_t len;
	FILE *f;

	if (argc != 4) {
		fprintf(stderr, "usage: statefix FILE OFFSET VALUE\n");
		return 2;
	}
	off = strtoul(argv[2], NULL, 0);
	f = fopen(argv[1], "r+b");
	if (!f)
		return 1;
	len = fread(buf, 1, sizeof(buf), f);
	if (len < PPF_STATE_HEADER || off + 4 > len)
		return 1;
	put32(buf + off, strtoul(argv[3], NULL, 0));
	ppf_state_finish(&(struct ppf_state_writer){ buf, len, len });
	rewind(f);
	if (fwrite(buf, 1, len, f) != len || fclose(f))
		return 1;
	return 0;
}
