// SPDX-License-Identifier: GPL-2.0
/*
 * test_state.c - the saved state's format (models/state_file.c)
 *
 * A state written with the writer parses back to the same records; each
 * way of damaging one (truncated, a wrong version, a wrong checksum,
 * counts past the budget, indices out of range, bad names) is refused with
 * the error and a reason that names it, never read past its end (the test
 * runs under ASan).  With an argument, writes a valid state there: the
 * fuzzer's seed (tests/fuzz/corpus-state).
 */
#include <stdlib.h>
#include "../../models/state_file.h"
#include "test_harness.h"

static const struct ppf_state_limits lim = { 100, 1000, false };

/* The third file's page bitmap: pages 0, 2 and 23, a bit a page. */
static const u8 pages[3] = { 0x05, 0x00, 0x80 };

/* A state of two file systems, three files (the third with a page bitmap),
 * five events; caller frees. */
static u8 *make_state(u64 *len, u32 flags)
{
	static const char *const names[] = { "a.c", "", "lib.so" };
	struct ppf_state_fs fs[2] = {
		{ .type = "ext4", .uuid = { 1, 2, 3 }, .major = 8, .minor = 1,
		  .flags = PPF_STATE_FS_UUID },
		{ .type = "xfs", .major = 253, .minor = 0 },
	};
	struct ppf_state_file f = { .fh_type = 1, .fh_len = 2, .first = 0,
				    .last = 7, .map = 1 };
	struct ppf_state_writer w = { 0 };
	bool paths = flags & PPF_STATE_PATHS;
	u32 nfs = paths ? 0 : 2, i;
	u64 bytes = 0;

	for (i = 0; i < 3; i++)
		bytes += ppf_state_file_bytes(paths ? 0 : 2,
					      paths ? 6 : strlen(names[i]),
					      i == 2 ? sizeof(pages) : 0);
	w.size = ppf_state_size(nfs, bytes, 5);
	w.buf = malloc(w.size);
	ppf_state_begin(&w, flags, nfs, 3, 5);
	for (i = 0; i < nfs; i++)
		ppf_state_put_fs(&w, &fs[i]);
	for (i = 0; i < 3; i++) {
		f.fs = paths ? 0 : i % 2;
		f.fh_len = paths ? 0 : 2;
		f.fh_type = paths ? 0 : 1;
		f.fh[0] = 100 + i;
		f.fh[1] = 7;
		f.name = paths ? (i == 0 ? "/a/b.c" : i == 1 ? "/a/cc1" : "/x/y.h")
			       : names[i];
		f.name_len = strlen(f.name);
		f.pages = i == 2 ? pages : NULL;
		f.pages_len = i == 2 ? sizeof(pages) : 0;
		f.pages_shift = 0;
		ppf_state_put_file(&w, &f);
	}
	for (i = 0; i < 5; i++) {
		struct ppf_state_event ev = { i % 3, 40 + i, 1, 1000 };

		ppf_state_put_event(&w, &ev);
	}
	EXPECT(w.pos == w.size, "wrote %llu of %llu", (unsigned long long)w.pos,
	       (unsigned long long)w.size);
	ppf_state_finish(&w);
	*len = w.size;
	return w.buf;
}

static void put32(u8 *p, u32 v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

/* Set the checksum of a damaged copy right again. */
static void recrc(u8 *buf, u64 len)
{
	ppf_state_finish(&(struct ppf_state_writer){ buf, len, len });
}

static void test_state_roundtrip(void)
{
	struct ppf_state_file f;
	struct ppf_state_event ev;
	struct ppf_state_fs fs;
	struct ppf_state st;
	const u8 *p;
	u64 len;
	u8 *buf = make_state(&len, 0);
	const char *why = ppf_state_parse(&st, buf, len, &lim, &(int){ 0 });

	EXPECT(!why, "%s", why);
	EXPECT(st.nfs == 2 && st.nfiles == 3 && st.nevents == 5, "counts");
	ppf_state_get_fs(&st, 0, &fs);
	EXPECT(!strcmp(fs.type, "ext4") && fs.uuid[2] == 3 && fs.major == 8 &&
	       fs.flags == PPF_STATE_FS_UUID, "fs 0");
	ppf_state_get_fs(&st, 1, &fs);
	EXPECT(!strcmp(fs.type, "xfs") && fs.minor == 0 && fs.flags == 0, "fs 1");
	p = ppf_state_get_file(st.files, &f);
	EXPECT(f.fs == 0 && f.fh[0] == 100 && f.fh_len == 2 && f.last == 7 &&
	       f.name_len == 3 && !memcmp(f.name, "a.c", 3), "file 0");
	EXPECT(f.pages_len == 0 && !f.pages, "file 0 has no page bitmap");
	p = ppf_state_get_file(p, &f);
	EXPECT(f.fs == 1 && f.name_len == 0, "file 1");
	p = ppf_state_get_file(p, &f);
	EXPECT(p == st.events && f.name_len == 6, "file 2 ends at the events");
	EXPECT(f.pages_len == 3 && f.pages_shift == 0 && f.pages &&
	       !memcmp(f.pages, pages, 3), "file 2's page bitmap");
	ppf_state_get_event(&st, 4, &ev);
	EXPECT(ev.file == 1 && ev.ctx == 44 && ev.parent == 1 && ev.domain == 1000,
	       "event 4");
	free(buf);
}

/* The CRC is zlib's: the check value of "123456789". */
static void test_state_crc(void)
{
	EXPECT(ppf_state_crc32(0, (const u8 *)"123456789", 9) == 0xcbf43926,
	       "%08x", ppf_state_crc32(0, (const u8 *)"123456789", 9));
}

/* Damage a good state with @fn, fix its CRC if @fix, expect @err and @what. */
static void refused(const char *name, void (*fn)(u8 *, u64 *), bool fix,
		    int want, const char *what, const struct ppf_state_limits *l)
{
	struct ppf_state st;
	int err = 0;
	u64 len;
	u8 *buf = make_state(&len, 0);
	const char *why;

	fn(buf, &len);
	if (fix)
		recrc(buf, len);
	why = ppf_state_parse(&st, buf, len, l, &err);
	EXPECT(why && err == want && strstr(why, what),
	       "%s: err %d, '%s' (wanted %d, '%s')", name, err, why ? why : "accepted",
	       want, what);
	free(buf);
}

static void cut_header(u8 *b, u64 *len) { (void)b; *len = 20; }
static void cut_tail(u8 *b, u64 *len) { (void)b; *len -= 3; }
static void add_tail(u8 *b, u64 *len) { (void)b; (void)len; }
static void bad_magic(u8 *b, u64 *len) { (void)len; b[0] = 'X'; }
static void bad_version(u8 *b, u64 *len) { (void)len; put32(b + 8, 2); }
static void bad_byte(u8 *b, u64 *len) { b[*len - 1] ^= 1; }
static void bad_flags(u8 *b, u64 *len) { (void)len; put32(b + 12, 4); }
static void many_files(u8 *b, u64 *len) { (void)len; put32(b + 20, 101); }
static void many_events(u8 *b, u64 *len) { (void)len; put32(b + 24, 1001); }
static void many_fs(u8 *b, u64 *len) { (void)len; put32(b + 16, 65); }
static void more_events(u8 *b, u64 *len) { (void)len; put32(b + 24, 900); }
/* The last event's file index: 3 of 3 files. */
static void event_range(u8 *b, u64 *len) { put32(b + *len - 20, 3); }
/* The first file's file system index: 2 of 2. */
static void fs_range(u8 *b, u64 *len) { (void)len; b[40 + 96] = 2; }
static void fh_len(u8 *b, u64 *len) { (void)len; b[40 + 96 + 3] = 9; }
static void fs_type(u8 *b, u64 *len) { (void)len; b[40] = 'E'; }
static void name_slash(u8 *b, u64 *len) { (void)len; b[40 + 96 + 32 + 8] = '/'; }
static void first_last(u8 *b, u64 *len)
{
	(void)len;
	put32(b + 40 + 96 + 16, 0);
	put32(b + 40 + 96 + 20, 1 << 20);	/* last = 2^52 units */
}

/* The third file's page bitmap: its length, unit and zero byte, then it. */
#define PAGES_AT(len)	(*(len) - 5 * 20 - 3 - 4)
static void pages_flags(u8 *b, u64 *len) { (void)len; b[40 + 96 + 6] = 2; }
static void pages_empty(u8 *b, u64 *len) { b[PAGES_AT(len)] = 0; }
static void pages_long(u8 *b, u64 *len) { b[PAGES_AT(len) + 1] = 0x10; b[PAGES_AT(len)] = 1; }
static void pages_shift(u8 *b, u64 *len) { b[PAGES_AT(len) + 2] = 25; }
static void pages_pad(u8 *b, u64 *len) { b[PAGES_AT(len) + 3] = 1; }
/* A page bitmap's length past the record: the next bytes read as it. */
static void pages_past(u8 *b, u64 *len) { b[PAGES_AT(len)] = 200; }

static void test_state_refused(void)
{
	struct ppf_state_limits small = lim;

	refused("truncated header", cut_header, false, -EINVAL, "truncated", &lim);
	refused("truncated", cut_tail, false, -EINVAL, "truncated", &lim);
	refused("bad magic", bad_magic, false, -EINVAL, "magic", &lim);
	refused("wrong version", bad_version, true, -EINVAL, "version", &lim);
	refused("wrong checksum", bad_byte, false, -EINVAL, "checksum", &lim);
	refused("unknown flags", bad_flags, true, -EINVAL, "flags", &lim);
	refused("files past the budget", many_files, true, -EFBIG, "max_files", &lim);
	refused("events past the budget", many_events, true, -EFBIG, "save_events", &lim);
	refused("file systems past 64", many_fs, true, -EFBIG, "64", &lim);
	refused("counts past the data", more_events, true, -EINVAL, "truncated", &lim);
	refused("event file out of range", event_range, true, -EINVAL, "out of range", &lim);
	refused("file system out of range", fs_range, true, -EINVAL, "out of range", &lim);
	refused("handle too long", fh_len, true, -EINVAL, "handle", &lim);
	refused("bad type name", fs_type, true, -EINVAL, "type", &lim);
	refused("name with a slash", name_slash, true, -EINVAL, "name", &lim);
	refused("last use past any end", first_last, true, -EINVAL, "last use", &lim);
	refused("unknown file record flags", pages_flags, true, -EINVAL, "flags", &lim);
	refused("empty page bitmap", pages_empty, true, -EINVAL, "page bitmap", &lim);
	refused("page bitmap past 4096 bytes", pages_long, true, -EINVAL, "page bitmap", &lim);
	refused("page bitmap unit past 2^24", pages_shift, true, -EINVAL, "page bitmap", &lim);
	refused("page bitmap's zero byte set", pages_pad, true, -EINVAL, "page bitmap", &lim);
	refused("page bitmap past the records", pages_past, true, -EINVAL, "", &lim);
	small.max_files = 2;
	refused("files past a small budget", add_tail, false, -EFBIG, "max_files", &small);
}

static void test_state_trailing(void)
{
	struct ppf_state st;
	int err = 0;
	u64 len;
	u8 *buf = make_state(&len, 0), *longer = calloc(1, len + 4);
	const char *why;

	memcpy(longer, buf, len);
	why = ppf_state_parse(&st, longer, len + 4, &lim, &err);
	EXPECT(why && strstr(why, "trailing") && err == -EINVAL, "%s", why);
	free(longer);
	free(buf);
}

static void test_state_paths(void)
{
	struct ppf_state_limits paths = lim;
	struct ppf_state st;
	int err = 0;
	u64 len;
	u8 *buf = make_state(&len, PPF_STATE_PATHS);
	const char *why = ppf_state_parse(&st, buf, len, &lim, &err);

	EXPECT(why && strstr(why, "import"), "a loader refuses a path file: %s", why);
	paths.paths = true;
	why = ppf_state_parse(&st, buf, len, &paths, &err);
	EXPECT(!why && st.nfs == 0 && st.nfiles == 3, "import reads it: %s", why);
	free(buf);
}

static const struct ppf_test tests[] = {
	{ "state_roundtrip", test_state_roundtrip },
	{ "state_crc", test_state_crc },
	{ "state_refused", test_state_refused },
	{ "state_trailing", test_state_trailing },
	{ "state_paths", test_state_paths },
};

int main(int argc, char **argv)
{
	if (argc > 2 && !strcmp(argv[1], "--seed")) {
		u64 len;
		u8 *buf = make_state(&len, argc > 3 ? PPF_STATE_PATHS : 0);
		FILE *f = fopen(argv[2], "wb");

		if (!f || fwrite(buf, 1, len, f) != len || fclose(f))
			return 1;
		free(buf);
		return 0;
	}
	return ppf_run_tests(tests, sizeof(tests) / sizeof(tests[0]),
			     argc > 1 ? argv[1] : NULL);
}
