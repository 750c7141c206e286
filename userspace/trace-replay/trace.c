// SPDX-License-Identifier: GPL-2.0
/*
 * Parser for the ppf trace format (docs/trace-format.md).
 *
 * Layout is strict and sectioned: header, meta lines, file table, events.
 * Strictness is deliberate: a consumer (simulator, replay in a VM) should
 * never run on a trace that was truncated, concatenated or hand-edited wrongly.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace.h"

#define PPF_MAX_FIELDS 12

enum ppf_section { PPF_SEC_HEADER, PPF_SEC_META, PPF_SEC_FILES, PPF_SEC_EVENTS };

struct ppf_parser {
	struct ppf_trace *t;
	const char *name;
	size_t lineno;
	char *err;
	size_t errlen;
	size_t cap_files, cap_events;
	enum ppf_section sec;
	uint64_t last_start;
	/* Meta keys this parser does not know, seen so far: each at most once. */
	char **other_keys;
	size_t n_other_keys;
};

static const char *const ppf_op_names[PPF_OP_COUNT] = {
	[PPF_OP_OPEN] = "open", [PPF_OP_EXEC] = "exec", [PPF_OP_READ] = "read",
	[PPF_OP_WRITE] = "write", [PPF_OP_MMAP] = "mmap", [PPF_OP_CLOSE] = "close",
	[PPF_OP_STAT] = "stat", [PPF_OP_UNLINK] = "unlink", [PPF_OP_RENAME] = "rename",
	[PPF_OP_MKDIR] = "mkdir", [PPF_OP_RMDIR] = "rmdir", [PPF_OP_DUP] = "dup",
};

/* First op that needs version 2, version 3. */
#define PPF_OP_FIRST_V2 PPF_OP_UNLINK
#define PPF_OP_FIRST_V3 PPF_OP_DUP

/* Argument count per op after the five common fields. */
static const int ppf_op_nargs[PPF_OP_COUNT] = {
	[PPF_OP_OPEN] = 2, [PPF_OP_EXEC] = 1, [PPF_OP_READ] = 4,
	[PPF_OP_WRITE] = 4, [PPF_OP_MMAP] = 4, [PPF_OP_CLOSE] = 2,
	[PPF_OP_STAT] = 1, [PPF_OP_UNLINK] = 1, [PPF_OP_RENAME] = 3,
	[PPF_OP_MKDIR] = 1, [PPF_OP_RMDIR] = 1, [PPF_OP_DUP] = 3,
};

const char *ppf_trace_op_name(enum ppf_trace_op op)
{
	if ((unsigned)op >= PPF_OP_COUNT)
		return "?";
	return ppf_op_names[op];
}

static int ppf_fail(struct ppf_parser *p, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (p->err && p->errlen)
		snprintf(p->err, p->errlen, "%s:%zu: %s", p->name, p->lineno, msg);
	return -1;
}

struct ppf_field {
	const char *s;
	size_t len;
};

static int ppf_is(const struct ppf_field *f, const char *word)
{
	size_t n = strlen(word);

	return f->len == n && memcmp(f->s, word, n) == 0;
}

/* Unsigned decimal, no sign, no leading zeros beyond "0", bounded by max. */
static int ppf_parse_u64(const struct ppf_field *f, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (f->len == 0 || f->len > 20 || (f->len > 1 && f->s[0] == '0'))
		return -1;
	for (i = 0; i < f->len; i++) {
		unsigned d = (unsigned char)f->s[i] - '0';

		if (d > 9 || v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	if (v > max)
		return -1;
	*out = v;
	return 0;
}

/* Signed decimal within [min, max]; "-0" is refused to keep one spelling. */
static int ppf_parse_i64(const struct ppf_field *f, int64_t min, int64_t max, int64_t *out)
{
	struct ppf_field mag = *f;
	uint64_t v;
	int neg = 0;

	if (mag.len && mag.s[0] == '-') {
		neg = 1;
		mag.s++;
		mag.len--;
	}
	if (ppf_parse_u64(&mag, neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX, &v))
		return -1;
	if (neg && v == 0)
		return -1;
	if (neg) {
		int64_t r = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;

		if (r < min)
			return -1;
		*out = r;
		return 0;
	}
	if ((int64_t)v > max)
		return -1;
	*out = (int64_t)v;
	return 0;
}

/* "0x" followed by 1..8 lowercase or uppercase hex digits. */
static int ppf_parse_hex32(const struct ppf_field *f, uint32_t *out)
{
	uint32_t v = 0;
	size_t i;

	if (f->len < 3 || f->len > 10 || f->s[0] != '0' || f->s[1] != 'x')
		return -1;
	for (i = 2; i < f->len; i++) {
		char c = f->s[i];
		unsigned d;

		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			d = (unsigned)(c - 'A' + 10);
		else
			return -1;
		v = v * 16 + d;
	}
	*out = v;
	return 0;
}

/*
 * Split line into at most max fields separated by exactly one space; the
 * last field takes the rest of the line when rest is set (PATH, VALUE).
 * Returns the field count, or -1 on an empty field.
 */
static int ppf_split(const char *s, size_t len, struct ppf_field *f, int max, int rest)
{
	size_t i = 0;
	int n = 0;

	for (;;) {
		size_t start = i;
		int last = rest && n == max - 1;

		if (n == max)
			return max + 1;	/* more fields than max */
		if (last)
			i = len;
		else
			while (i < len && s[i] != ' ')
				i++;
		f[n].s = s + start;
		f[n].len = i - start;
		/* Only a rest-of-line field (an empty meta VALUE) may be empty. */
		if (f[n].len == 0 && !last)
			return -1;
		n++;
		if (i >= len)
			return n;
		i++;	/* skip the single separator */
		if (i >= len && !(rest && n == max - 1))
			return -1;	/* trailing space */
	}
}

static char *ppf_unescape_dup(struct ppf_parser *p, const struct ppf_field *f, const char *what)
{
	const char *why = NULL;
	char *s = malloc(f->len + 1);

	if (!s) {
		ppf_fail(p, "out of memory");
		return NULL;
	}
	if (ppf_trace_unescape(f->s, f->len, s, &why) < 0) {
		free(s);
		ppf_fail(p, "%s: %s", what, why);
		return NULL;
	}
	return s;
}

static int ppf_grow(struct ppf_parser *p, void **arr, size_t *cap, size_t n, size_t elem)
{
	size_t ncap;
	void *na;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 64;
	if (ncap < *cap || ncap > SIZE_MAX / elem)
		return ppf_fail(p, "too many entries");
	na = realloc(*arr, ncap * elem);
	if (!na)
		return ppf_fail(p, "out of memory");
	*arr = na;
	*cap = ncap;
	return 0;
}

static int ppf_meta_num(struct ppf_parser *p, const struct ppf_field *key,
			const struct ppf_field *val)
{
	static const struct { const char *key; size_t off; } nums[] = {
		{ "elapsed_ns", offsetof(struct ppf_trace, elapsed_ns) },
		{ "corrected_elapsed_ns", offsetof(struct ppf_trace, corrected_elapsed_ns) },
		{ "untraced_elapsed_ns", offsetof(struct ppf_trace, untraced_elapsed_ns) },
		{ "compute_ns", offsetof(struct ppf_trace, compute_ns) },
		{ "traced_syscalls", offsetof(struct ppf_trace, traced_syscalls) },
		{ "strace_overhead_ns", offsetof(struct ppf_trace, overhead_ns) },
		{ "strace_dur_overhead_ns", offsetof(struct ppf_trace, overhead_dur_ns) },
		{ "strace_gap_overhead_ns", offsetof(struct ppf_trace, overhead_gap_ns) },
		{ "inherited_fd_calls", offsetof(struct ppf_trace, inherited_fd_calls) },
		{ "dropped_events", offsetof(struct ppf_trace, dropped_events) },
	};
	size_t i;

	for (i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
		uint64_t *dst = (uint64_t *)((char *)p->t + nums[i].off);

		if (!ppf_is(key, nums[i].key))
			continue;
		if (*dst != PPF_TRACE_UNKNOWN)
			return ppf_fail(p, "duplicate meta %s", nums[i].key);
		/* UNKNOWN itself is reserved, so the bound is one below it. */
		if (ppf_parse_u64(val, UINT64_MAX - 1, dst))
			return ppf_fail(p, "meta %s: bad number", nums[i].key);
		return 1;
	}
	return 0;
}

/* A key this parser does not know: checked (once each, value well formed), not kept. */
static int ppf_meta_other(struct ppf_parser *p, const struct ppf_field *key,
			  const struct ppf_field *val)
{
	char *tmp, **keys;
	size_t i;

	for (i = 0; i < p->n_other_keys; i++)
		if (ppf_is(key, p->other_keys[i]))
			return ppf_fail(p, "duplicate meta %s", p->other_keys[i]);
	tmp = ppf_unescape_dup(p, val, "meta value");
	if (!tmp)
		return -1;
	free(tmp);
	keys = realloc(p->other_keys, (p->n_other_keys + 1) * sizeof(*keys));
	if (!keys)
		return ppf_fail(p, "out of memory");
	p->other_keys = keys;
	/* A key has no escapes (checked above): this only copies it. */
	keys[p->n_other_keys] = ppf_unescape_dup(p, key, "meta key");
	if (!keys[p->n_other_keys])
		return -1;
	p->n_other_keys++;
	return 0;
}

static int ppf_meta_line(struct ppf_parser *p, const char *s, size_t len)
{
	static const struct { const char *key; size_t off; } strs[] = {
		{ "name", offsetof(struct ppf_trace, name) },
		{ "command", offsetof(struct ppf_trace, command) },
		{ "root", offsetof(struct ppf_trace, root) },
		{ "tracer", offsetof(struct ppf_trace, tracer) },
		{ "dropped_events_reason", offsetof(struct ppf_trace, dropped_events_reason) },
	};
	struct ppf_field f[3];
	size_t i, k;
	int n, r;

	if (p->sec > PPF_SEC_META)
		return ppf_fail(p, "meta line after the file table");
	p->sec = PPF_SEC_META;
	n = ppf_split(s, len, f, 3, 1);
	if (n != 3)
		return ppf_fail(p, "meta: expected 'meta KEY VALUE'");
	for (k = 0; k < f[1].len; k++) {
		char c = f[1].s[k];

		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'))
			return ppf_fail(p, "meta: bad key");
	}
	r = ppf_meta_num(p, &f[1], &f[2]);
	if (r)
		return r < 0 ? -1 : 0;
	for (i = 0; i < sizeof(strs) / sizeof(strs[0]); i++) {
		char **dst = (char **)((char *)p->t + strs[i].off);

		if (!ppf_is(&f[1], strs[i].key))
			continue;
		if (*dst)
			return ppf_fail(p, "duplicate meta %s", strs[i].key);
		*dst = ppf_unescape_dup(p, &f[2], "meta value");
		return *dst ? 0 : -1;
	}
	/* Unknown keys are kept out of the struct but allowed: newer writers. */
	return ppf_meta_other(p, &f[1], &f[2]);
}

static int ppf_file_line(struct ppf_parser *p, const char *s, size_t len)
{
	struct ppf_trace *t = p->t;
	struct ppf_trace_file *file;
	struct ppf_field f[5];
	uint64_t id, size;
	int created, is_dir = 0;
	char *path;

	if (p->sec > PPF_SEC_FILES)
		return ppf_fail(p, "file line after the first event");
	p->sec = PPF_SEC_FILES;
	if (ppf_split(s, len, f, 5, 1) != 5)
		return ppf_fail(p, "file: expected 'file ID SIZE ORIGIN PATH'");
	if (ppf_parse_u64(&f[1], UINT32_MAX - 1, &id))
		return ppf_fail(p, "file: bad id");
	if (id != t->nfiles)
		return ppf_fail(p, "file: id %llu out of sequence (expected %zu)",
				(unsigned long long)id, t->nfiles);
	if (ppf_parse_u64(&f[2], INT64_MAX, &size))
		return ppf_fail(p, "file: bad size");
	if (ppf_is(&f[3], "pre"))
		created = 0;
	else if (ppf_is(&f[3], "new"))
		created = 1;
	else if (t->version >= 2 && ppf_is(&f[3], "dir"))
		created = 0, is_dir = 1;
	else if (t->version >= 2 && ppf_is(&f[3], "newdir"))
		created = 1, is_dir = 1;
	else if (t->version >= 2)
		return ppf_fail(p, "file: origin must be 'pre', 'new', 'dir' or 'newdir'");
	else
		return ppf_fail(p, "file: origin must be 'pre' or 'new'");
	if (created && !is_dir && size != 0)
		return ppf_fail(p, "file: a new file must have size 0");
	if (is_dir && size != 0)
		return ppf_fail(p, "file: a directory must have size 0");
	if (f[4].len == 0)
		return ppf_fail(p, "file: empty path");
	path = ppf_unescape_dup(p, &f[4], "file: path");
	if (!path)
		return -1;
	if (ppf_grow(p, (void **)&t->files, &p->cap_files, t->nfiles, sizeof(*file))) {
		free(path);
		return -1;
	}
	file = &t->files[t->nfiles++];
	file->path = path;
	file->size = size;
	file->created = created;
	file->outside_root = path[0] == '/';
	file->is_dir = is_dir;
	return 0;
}

static int ppf_event_op(const struct ppf_field *f, int version, enum ppf_trace_op *op)
{
	int i, n = version >= 3 ? PPF_OP_COUNT : version == 2 ? PPF_OP_FIRST_V3 : PPF_OP_FIRST_V2;

	for (i = 0; i < n; i++) {
		if (ppf_is(f, ppf_op_names[i])) {
			*op = (enum ppf_trace_op)i;
			return 0;
		}
	}
	return -1;
}

/* Parse the op-specific arguments a[] into e; returns 0 or fails on p. */
static int ppf_event_args(struct ppf_parser *p, struct ppf_trace_event *e,
			  const struct ppf_field *a)
{
	const char *op = ppf_op_names[e->op];
	int64_t fd;

	switch (e->op) {
	case PPF_OP_OPEN:
		if (ppf_parse_hex32(&a[0], &e->flags))
			return ppf_fail(p, "open: bad flags");
		if (ppf_parse_i64(&a[1], -4095, INT32_MAX, &e->result))
			return ppf_fail(p, "open: bad result");
		e->fd = e->result >= 0 ? (int32_t)e->result : -1;
		return 0;
	case PPF_OP_EXEC:
	case PPF_OP_STAT:
	case PPF_OP_UNLINK:
	case PPF_OP_MKDIR:
	case PPF_OP_RMDIR:
		if (ppf_parse_i64(&a[0], -4095, 0, &e->result))
			return ppf_fail(p, "%s: bad result", op);
		return 0;
	case PPF_OP_RENAME: {
		uint64_t v;

		if (ppf_parse_u64(&a[0], UINT32_MAX, &v))
			return ppf_fail(p, "rename: bad new file id");
		if (v >= p->t->nfiles)
			return ppf_fail(p, "rename: new file id %llu not in file table (%zu files)",
					(unsigned long long)v, p->t->nfiles);
		e->file2 = (uint32_t)v;
		if (ppf_parse_hex32(&a[1], &e->flags))
			return ppf_fail(p, "rename: bad flags");
		if (ppf_parse_i64(&a[2], -4095, 0, &e->result))
			return ppf_fail(p, "rename: bad result");
		return 0;
	}
	case PPF_OP_DUP:
		/* only successful dups are events: RESULT is the new fd */
		if (ppf_parse_i64(&a[0], 0, INT32_MAX, &fd))
			return ppf_fail(p, "dup: bad fd");
		e->fd = (int32_t)fd;
		if (ppf_parse_hex32(&a[1], &e->flags))
			return ppf_fail(p, "dup: bad flags");
		if (ppf_parse_i64(&a[2], 0, INT32_MAX, &e->result))
			return ppf_fail(p, "dup: bad result");
		return 0;
	case PPF_OP_CLOSE:
		if (ppf_parse_i64(&a[0], 0, INT32_MAX, &fd))
			return ppf_fail(p, "close: bad fd");
		e->fd = (int32_t)fd;
		if (ppf_parse_i64(&a[1], -4095, 0, &e->result))
			return ppf_fail(p, "close: bad result");
		return 0;
	case PPF_OP_READ:
	case PPF_OP_WRITE:
	case PPF_OP_MMAP:
		if (ppf_parse_i64(&a[0], 0, INT32_MAX, &fd))
			return ppf_fail(p, "%s: bad fd", op);
		e->fd = (int32_t)fd;
		if (ppf_parse_i64(&a[1], 0, INT64_MAX, &e->offset))
			return ppf_fail(p, "%s: bad offset", op);
		if (ppf_parse_i64(&a[2], 0, INT64_MAX, &e->len))
			return ppf_fail(p, "%s: bad length", op);
		if (e->offset > INT64_MAX - e->len)
			return ppf_fail(p, "%s: offset + length overflows", op);
		if (e->op == PPF_OP_MMAP) {
			if (ppf_parse_hex32(&a[3], &e->flags))
				return ppf_fail(p, "mmap: bad prot");
			e->result = 0;
			return 0;
		}
		if (ppf_parse_i64(&a[3], -4095, INT64_MAX, &e->result))
			return ppf_fail(p, "%s: bad result", op);
		if (e->result > e->len)
			return ppf_fail(p, "%s: result larger than length", op);
		return 0;
	default:
		return ppf_fail(p, "unknown op");
	}
}

static int ppf_event_line(struct ppf_parser *p, const char *s, size_t len)
{
	struct ppf_trace *t = p->t;
	struct ppf_field f[PPF_MAX_FIELDS];
	struct ppf_trace_event e;
	uint64_t v;
	int n;

	if (p->sec < PPF_SEC_META)
		return ppf_fail(p, "event before header");
	p->sec = PPF_SEC_EVENTS;
	memset(&e, 0, sizeof(e));
	e.fd = -1;
	e.offset = e.len = e.result = -1;
	e.file2 = PPF_TRACE_NO_FILE;

	n = ppf_split(s, len, f, PPF_MAX_FIELDS, 0);
	if (n < 0)
		return ppf_fail(p, "empty field (fields are separated by one space)");
	if (n < 5)
		return ppf_fail(p, "event: expected 'START_NS DUR_NS PID OP FILE ...'");
	if (ppf_parse_u64(&f[0], UINT64_MAX, &e.start_ns))
		return ppf_fail(p, "bad start time");
	if (ppf_parse_u64(&f[1], UINT64_MAX - e.start_ns, &e.dur_ns))
		return ppf_fail(p, "bad duration");
	if (ppf_parse_u64(&f[2], INT32_MAX, &v) || v == 0)
		return ppf_fail(p, "bad pid");
	e.pid = (uint32_t)v;
	if (ppf_event_op(&f[3], t->version, &e.op))
		return ppf_fail(p, "unknown op '%.*s'", (int)(f[3].len > 32 ? 32 : f[3].len), f[3].s);
	if (ppf_parse_u64(&f[4], UINT32_MAX, &v))
		return ppf_fail(p, "bad file id");
	if (v >= t->nfiles)
		return ppf_fail(p, "file id %llu not in file table (%zu files)",
				(unsigned long long)v, t->nfiles);
	e.file = (uint32_t)v;
	if (n != 5 + ppf_op_nargs[e.op])
		return ppf_fail(p, "%s: expected %d arguments, got %s%d", ppf_op_names[e.op],
				ppf_op_nargs[e.op], n > PPF_MAX_FIELDS ? "more than " : "",
				(n > PPF_MAX_FIELDS ? PPF_MAX_FIELDS : n) - 5);
	if (e.start_ns < p->last_start)
		return ppf_fail(p, "start time goes backwards");
	if (ppf_event_args(p, &e, f + 5))
		return -1;
	p->last_start = e.start_ns;
	if (ppf_grow(p, (void **)&t->events, &p->cap_events, t->nevents, sizeof(e)))
		return -1;
	t->events[t->nevents++] = e;
	return 0;
}

static int ppf_header_line(struct ppf_parser *p, const char *s, size_t len)
{
	static const char magic[] = "ppf-trace ";
	struct ppf_field v;
	uint64_t ver;

	if (len < sizeof(magic) - 1 || memcmp(s, magic, sizeof(magic) - 1))
		return ppf_fail(p, "missing header 'ppf-trace %d'", PPF_TRACE_VERSION);
	v.s = s + sizeof(magic) - 1;
	v.len = len - (sizeof(magic) - 1);
	if (ppf_parse_u64(&v, 1000, &ver))
		return ppf_fail(p, "bad version in header");
	if (ver < PPF_TRACE_MIN_VERSION || ver > PPF_TRACE_VERSION)
		return ppf_fail(p, "unsupported version %llu (this parser reads %d to %d)",
				(unsigned long long)ver, PPF_TRACE_MIN_VERSION, PPF_TRACE_VERSION);
	p->t->version = (int)ver;
	p->sec = PPF_SEC_META;
	return 0;
}

static int ppf_line(struct ppf_parser *p, const char *s, size_t len)
{
	if (memchr(s, '\0', len))
		return ppf_fail(p, "NUL byte in line");
	if (p->sec == PPF_SEC_HEADER)
		return ppf_header_line(p, s, len);
	/* Blank lines and comments help hand-written traces (tests, corpora). */
	if (len == 0 || s[0] == '#')
		return 0;
	if (len >= 5 && !memcmp(s, "meta ", 5))
		return ppf_meta_line(p, s, len);
	if (len >= 5 && !memcmp(s, "file ", 5))
		return ppf_file_line(p, s, len);
	if (s[0] >= '0' && s[0] <= '9')
		return ppf_event_line(p, s, len);
	return ppf_fail(p, "unknown line type");
}

static struct ppf_trace *ppf_trace_new(void)
{
	struct ppf_trace *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->elapsed_ns = t->corrected_elapsed_ns = t->untraced_elapsed_ns = PPF_TRACE_UNKNOWN;
	t->compute_ns = t->traced_syscalls = PPF_TRACE_UNKNOWN;
	t->overhead_ns = t->overhead_dur_ns = t->overhead_gap_ns = PPF_TRACE_UNKNOWN;
	t->inherited_fd_calls = t->dropped_events = PPF_TRACE_UNKNOWN;
	return t;
}

static void ppf_parser_release(struct ppf_parser *p)
{
	size_t i;

	for (i = 0; i < p->n_other_keys; i++)
		free(p->other_keys[i]);
	free(p->other_keys);
}

int ppf_trace_parse(const char *buf, size_t len, const char *name,
		    struct ppf_trace **out, char *err, size_t errlen)
{
	struct ppf_parser p;
	size_t pos = 0;

	memset(&p, 0, sizeof(p));
	p.name = name ? name : "<buffer>";
	p.err = err;
	p.errlen = errlen;
	*out = NULL;
	if (err && errlen)
		err[0] = '\0';
	p.t = ppf_trace_new();
	if (!p.t)
		return ppf_fail(&p, "out of memory");

	while (pos < len) {
		const char *s = buf + pos;
		const char *nl = memchr(s, '\n', len - pos);
		size_t l = nl ? (size_t)(nl - s) : len - pos;

		p.lineno++;
		if (!nl) {
			/* A missing final newline is the mark of a truncated file. */
			ppf_fail(&p, "last line not terminated by newline (truncated?)");
			goto fail;
		}
		if (ppf_line(&p, s, l))
			goto fail;
		pos += l + 1;
	}
	if (p.sec == PPF_SEC_HEADER) {
		p.lineno = 1;
		ppf_fail(&p, "missing header 'ppf-trace %d' (empty input)", PPF_TRACE_VERSION);
		goto fail;
	}
	ppf_parser_release(&p);
	*out = p.t;
	return 0;
fail:
	ppf_parser_release(&p);
	ppf_trace_free(p.t);
	return -1;
}

void ppf_trace_free(struct ppf_trace *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->nfiles; i++)
		free(t->files[i].path);
	free(t->files);
	free(t->events);
	free(t->name);
	free(t->command);
	free(t->root);
	free(t->tracer);
	free(t->dropped_events_reason);
	free(t);
}
