// SPDX-License-Identifier: GPL-2.0
/*
 * C-style escapes for PATH and meta VALUE fields. Paths are arbitrary bytes
 * except NUL, so the writer escapes backslash, control bytes and bytes >= 0x80
 * to keep the trace one record per line and plain ASCII.
 */
#include "trace.h"

long ppf_trace_unescape(const char *in, size_t len, char *out, const char **why)
{
	size_t i = 0, o = 0;

	while (i < len) {
		unsigned char c = (unsigned char)in[i++];

		if (c != '\\') {
			/* A raw control byte means the writer forgot to escape. */
			if (c < 0x20 || c == 0x7f) {
				*why = "unescaped control character";
				return -1;
			}
			out[o++] = (char)c;
			continue;
		}
		if (i >= len) {
			*why = "backslash at end of field";
			return -1;
		}
		c = (unsigned char)in[i++];
		switch (c) {
		case '\\': out[o++] = '\\'; break;
		case 'n': out[o++] = '\n'; break;
		case 't': out[o++] = '\t'; break;
		case 'r': out[o++] = '\r'; break;
		case '0': case '1': case '2': case '3': {
			unsigned v = c - '0';
			int k;

			/* Exactly three octal digits so "\0101" is unambiguous. */
			for (k = 0; k < 2; k++) {
				if (i >= len || in[i] < '0' || in[i] > '7') {
					*why = "bad octal escape (need 3 digits)";
					return -1;
				}
				v = v * 8 + (unsigned)(in[i++] - '0');
			}
			if (v == 0) {
				*why = "NUL byte in escaped field";
				return -1;
			}
			out[o++] = (char)v;
			break;
		}
		default:
			*why = "unknown escape";
			return -1;
		}
	}
	out[o] = '\0';
	return (long)o;
}
