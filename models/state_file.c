// SPDX-License-Identifier: GPL-2.0
/*
 * state_file.c - the saved state's format: parse and write it
 *
 * See DOC: Saved state in state_file.h.  The parser treats its input as
 * hostile: it reads nothing past @len, multiplies nothing that can wrap,
 * checks every field, and says what is wrong in a sentence the kernel logs
 * and ppfctl prints.  It allocates nothing: a loader walks the records in
 * the caller's buffer after the parser has accepted all of them.
 */
#include "state_file.h"

/* 4 PiB in 4 KiB units: 2^40 */
#define PPF_STATE_PAGE_LIMIT	0x10000000000ULL

static u16 get16(const u8 *p)
{
	return (u16)(p[0] | p[1] << 8);
}

static u32 get32(const u8 *p)
{
	return (u32)p[0] | (u32)p[1] << 8 | (u32)p[2] << 16 | (u32)p[3] << 24;
}

static u64 get64(const u8 *p)
{
	return (u64)get32(p) | (u64)get32(p + 4) << 32;
}

static void put16(u8 *p, u16 v)
{
	p[0] = (u8)v;
	p[1] = (u8)(v >> 8);
}

static void put32(u8 *p, u32 v)
{
	put16(p, (u16)v);
	put16(p + 2, (u16)(v >> 16));
}

static void put64(u8 *p, u64 v)
{
	put32(p, (u32)v);
	put32(p + 4, (u32)(v >> 32));
}

/**
 * ppf_state_crc32() - the zlib CRC-32 (reflected 0xEDB88320)
 * @crc: the CRC so far (0 to start)
 * @buf: the bytes
 * @len: how many
 *
 * Four bits a step from a 16-entry table: no table to build or share.
 *
 * Return: the CRC of what came before and @buf.
 */
u32 ppf_state_crc32(u32 crc, const u8 *buf, u64 len)
{
	static const u32 nibble[16] = {
		0x00000000, 0x1db71064, 0x3b6e20c8, 0x26d930ac,
		0x76dc4190, 0x6b6b51f4, 0x4db26158, 0x5005713c,
		0xedb88320, 0xf00f9344, 0xd6d6a3e8, 0xcb61b38c,
		0x9b64c2b0, 0x86d3d2d4, 0xa00ae278, 0xbdbdf21c,
	};
	u64 i;

	crc = ~crc;
	for (i = 0; i < len; i++) {
		crc ^= buf[i];
		crc = (crc >> 4) ^ nibble[crc & 15];
		crc = (crc >> 4) ^ nibble[crc & 15];
	}
	return ~crc;
}

/* The CRC of a whole file, its own CRC field read as zero. */
static u32 ppf_state_file_crc(const u8 *buf, u64 len)
{
	static const u8 zero[4];
	u32 crc;

	crc = ppf_state_crc32(0, buf, 32);
	crc = ppf_state_crc32(crc, zero, 4);
	return ppf_state_crc32(crc, buf + 36, len - 36);
}

static bool ppf_state_type_ok(const u8 *t)
{
	unsigned int i;

	for (i = 0; i < PPF_STATE_TYPE_LEN && t[i]; i++)
		if (!((t[i] >= 'a' && t[i] <= 'z') || (t[i] >= '0' && t[i] <= '9') ||
		      t[i] == '_' || t[i] == '.' || t[i] == '-'))
			return false;
	if (i == 0 || i == PPF_STATE_TYPE_LEN)
		return false;
	for (; i < PPF_STATE_TYPE_LEN; i++)
		if (t[i])
			return false;
	return true;
}

static bool ppf_state_name_ok(const u8 *name, u32 len, bool path)
{
	u32 i;

	if (path && (len == 0 || len > PPF_STATE_PATH_MAX || name[0] != '/'))
		return false;
	if (!path && (len > PPF_STATE_NAME_MAX ||
		      (len == 1 && name[0] == '.') ||
		      (len == 2 && name[0] == '.' && name[1] == '.')))
		return false;
	for (i = 0; i < len; i++)
		if (!name[i] || (!path && name[i] == '/'))
			return false;
	return true;
}

/* Check one file record at @p, @room bytes left; its size, or 0 if bad. */
static u64 ppf_state_check_file(const struct ppf_state *st, const u8 *p,
				u64 room, const char **why)
{
	bool path = st->flags & PPF_STATE_PATHS;
	u32 fs, fh_len, name_len, flags, pages_len = 0;
	u64 size, first, last;
	const u8 *pages;

	if (room < PPF_STATE_FILE) {
		*why = "file records run past the end";
		return 0;
	}
	fs = get16(p);
	fh_len = p[3];
	name_len = get16(p + 4);
	flags = get16(p + 6);
	first = get64(p + 8);
	last = get64(p + 16);
	size = ppf_state_file_bytes(fh_len, name_len, 0);
	pages = p + size;
	if (flags & PPF_STATE_FILE_PAGES) {
		if (room < size + 4) {
			*why = "file records run past the end";
			return 0;
		}
		pages_len = get16(pages);
		size = ppf_state_file_bytes(fh_len, name_len, pages_len);
	}
	if (flags & ~(u32)PPF_STATE_FILE_PAGES) {
		*why = "a file record's flags are unknown";
	} else if ((flags & PPF_STATE_FILE_PAGES) &&
		   (pages_len == 0 || pages_len > PPF_STATE_PAGES_MAX ||
		    pages[2] > PPF_STATE_PAGES_SHIFT || pages[3])) {
		*why = "a file's page bitmap has a bad length or unit";
	} else if (path ? fs != 0 : fs >= st->nfs) {
		*why = "a file names a file system out of range";
	} else if (path ? fh_len != 0 || p[2] != 0 :
		   fh_len == 0 || fh_len > PPF_STATE_FH_WORDS ||
		   p[2] == 0 || p[2] == 0xff) {
		*why = "a file handle has a bad type or length";
	} else if (first <= last && last >= PPF_STATE_PAGE_LIMIT) {
		*why = "a file's last use is past any file's end";
	} else if (room < size) {
		*why = "file records run past the end";
	} else if (!ppf_state_name_ok(p + PPF_STATE_FILE + fh_len * 4, name_len,
				      path)) {
		*why = path ? "a path is empty, relative, too long or holds a NUL" :
			      "a file name is too long or holds a '/' or a NUL";
	} else {
		return size;
	}
	return 0;
}

/**
 * ppf_state_parse() - check a state file and find its records
 * @st: filled in on success
 * @buf: the file
 * @len: its length
 * @limits: what the caller accepts
 * @err: set on failure: -EINVAL (malformed) or -EFBIG (past @limits)
 *
 * Return: NULL if the file is well formed and within @limits, else what is
 * wrong with it.
 */
const char *ppf_state_parse(struct ppf_state *st, const u8 *buf, u64 len,
			    const struct ppf_state_limits *limits, int *err)
{
	u64 body, fixed, i, room;
	const u8 *p;

	*err = -EINVAL;
	if (len < PPF_STATE_HEADER)
		return "shorter than the header: truncated";
	if (memcmp(buf, PPF_STATE_MAGIC, 8))
		return "not a ppf state file (bad magic)";
	if (get32(buf + 8) != PPF_STATE_VERSION)
		return "a version this kernel does not read (only 1)";
	st->flags = get32(buf + 12);
	st->nfs = get32(buf + 16);
	st->nfiles = get32(buf + 20);
	st->nevents = get32(buf + 24);
	body = get32(buf + 28);
	if (st->flags & ~(u32)PPF_STATE_PATHS)
		return "unknown header flags";
	if (get32(buf + 36))
		return "the header's reserved field is set";
	if (body != len - PPF_STATE_HEADER)
		return body > len - PPF_STATE_HEADER ?
		       "shorter than its header says: truncated" :
		       "longer than its header says: trailing data";
	if (ppf_state_file_crc(buf, len) != get32(buf + 32))
		return "checksum mismatch: the file is damaged";
	if ((st->flags & PPF_STATE_PATHS) && !limits->paths)
		return "files named by path (ppfctl export): load it with ppfctl import";
	if ((st->flags & PPF_STATE_PATHS) && st->nfs)
		return "a path file with file system records";
	*err = -EFBIG;
	if (st->nfs > PPF_STATE_MAX_FS)
		return "more file systems than 64";
	if (st->nfiles > limits->max_files)
		return "more files than max_files allows";
	if (st->nevents > limits->max_events)
		return "more events than save_events allows";
	*err = -EINVAL;
	fixed = (u64)st->nfs * PPF_STATE_FS + (u64)st->nevents * PPF_STATE_EVENT +
		(u64)st->nfiles * PPF_STATE_FILE;
	if (fixed > body)
		return "shorter than its counts need: truncated";
	st->fs = buf + PPF_STATE_HEADER;
	for (i = 0; i < st->nfs; i++) {
		p = st->fs + i * PPF_STATE_FS;
		if (!ppf_state_type_ok(p))
			return "a file system type is empty, too long or not a type name";
		if (get32(p + 40) & ~(u32)PPF_STATE_FS_UUID || get32(p + 44))
			return "a file system record's flags are unknown";
	}
	st->files = st->fs + (u64)st->nfs * PPF_STATE_FS;
	room = body - (u64)st->nfs * PPF_STATE_FS -
	       (u64)st->nevents * PPF_STATE_EVENT;
	p = st->files;
	for (i = 0; i < st->nfiles; i++) {
		const char *why = NULL;
		u64 size = ppf_state_check_file(st, p, room, &why);

		if (!size)
			return why;
		p += size;
		room -= size;
	}
	if (room)
		return "bytes between the files and the events: the counts are wrong";
	st->events = p;
	for (i = 0; i < st->nevents; i++)
		if (get32(st->events + i * PPF_STATE_EVENT) >= st->nfiles)
			return "an event names a file out of range";
	*err = 0;
	return NULL;
}

/**
 * ppf_state_get_fs() - read a file system record of a parsed file
 * @st: the parsed file
 * @i: which, below @st->nfs
 * @fs: filled in
 */
void ppf_state_get_fs(const struct ppf_state *st, u32 i,
		      struct ppf_state_fs *fs)
{
	const u8 *p = st->fs + (u64)i * PPF_STATE_FS;

	memcpy(fs->type, p, PPF_STATE_TYPE_LEN);
	memcpy(fs->uuid, p + 16, 16);
	fs->major = get32(p + 32);
	fs->minor = get32(p + 36);
	fs->flags = get32(p + 40);
}

/**
 * ppf_state_get_file() - read a file record of a parsed file
 * @rec: the record: @st->files, then what the previous call returned
 * @file: filled in; its name points into the file
 *
 * Return: the next record.
 */
const u8 *ppf_state_get_file(const u8 *rec, struct ppf_state_file *file)
{
	u32 i;

	file->fs = get16(rec);
	file->fh_type = rec[2];
	file->fh_len = rec[3];
	file->name_len = get16(rec + 4);
	file->first = get64(rec + 8);
	file->last = get64(rec + 16);
	file->map = get64(rec + 24);
	for (i = 0; i < file->fh_len; i++)
		file->fh[i] = get32(rec + PPF_STATE_FILE + i * 4);
	file->name = (const char *)rec + PPF_STATE_FILE + file->fh_len * 4;
	file->pages_len = 0;
	file->pages_shift = 0;
	file->pages = NULL;
	if (get16(rec + 6) & PPF_STATE_FILE_PAGES) {
		const u8 *p = (const u8 *)file->name + file->name_len;

		file->pages_len = get16(p);
		file->pages_shift = p[2];
		file->pages = p + 4;
	}
	return rec + ppf_state_file_bytes(file->fh_len, file->name_len,
					  file->pages_len);
}

/**
 * ppf_state_get_event() - read an event record of a parsed file
 * @st: the parsed file
 * @i: which, below @st->nevents
 * @ev: filled in
 */
void ppf_state_get_event(const struct ppf_state *st, u32 i,
			 struct ppf_state_event *ev)
{
	const u8 *p = st->events + (u64)i * PPF_STATE_EVENT;

	ev->file = get32(p);
	ev->ctx = get32(p + 4);
	ev->parent = get32(p + 8);
	ev->domain = get64(p + 12);
}

/**
 * ppf_state_file_bytes() - the size of one file record
 * @fh_len: its handle's length in words
 * @name_len: its name's length
 * @pages_len: its page bitmap's length in bytes (0: none)
 *
 * Return: bytes.
 */
u64 ppf_state_file_bytes(u32 fh_len, u32 name_len, u32 pages_len)
{
	return PPF_STATE_FILE + (u64)fh_len * 4 + name_len +
	       (pages_len ? 4 + (u64)pages_len : 0);
}

/**
 * ppf_state_size() - the size of a state file
 * @nfs: file systems
 * @file_bytes: the sum of its files' ppf_state_file_bytes()
 * @nevents: events
 *
 * Return: bytes.
 */
u64 ppf_state_size(u32 nfs, u64 file_bytes, u32 nevents)
{
	return PPF_STATE_HEADER + (u64)nfs * PPF_STATE_FS + file_bytes +
	       (u64)nevents * PPF_STATE_EVENT;
}

/**
 * ppf_state_begin() - start writing a state file
 * @w: its buffer (@w->buf, @w->size from ppf_state_size()); @w->pos is set
 * @flags: header flags
 * @nfs: file systems that will be put
 * @nfiles: files that will be put
 * @nevents: events that will be put
 *
 * Then put the file systems, files and events, in that order, and finish.
 */
void ppf_state_begin(struct ppf_state_writer *w, u32 flags, u32 nfs,
		     u32 nfiles, u32 nevents)
{
	memset(w->buf, 0, PPF_STATE_HEADER);
	memcpy(w->buf, PPF_STATE_MAGIC, 8);
	put32(w->buf + 8, PPF_STATE_VERSION);
	put32(w->buf + 12, flags);
	put32(w->buf + 16, nfs);
	put32(w->buf + 20, nfiles);
	put32(w->buf + 24, nevents);
	put32(w->buf + 28, (u32)(w->size - PPF_STATE_HEADER));
	w->pos = PPF_STATE_HEADER;
}

/**
 * ppf_state_put_fs() - write the next file system record
 * @w: the writer
 * @fs: the record (@fs->type NUL-terminated)
 */
void ppf_state_put_fs(struct ppf_state_writer *w,
		      const struct ppf_state_fs *fs)
{
	u8 *p = w->buf + w->pos;

	memset(p, 0, PPF_STATE_FS);
	memcpy(p, fs->type, strnlen(fs->type, PPF_STATE_TYPE_LEN - 1));
	memcpy(p + 16, fs->uuid, 16);
	put32(p + 32, fs->major);
	put32(p + 36, fs->minor);
	put32(p + 40, fs->flags);
	w->pos += PPF_STATE_FS;
}

/**
 * ppf_state_put_file() - write the next file record
 * @w: the writer
 * @file: the record
 */
void ppf_state_put_file(struct ppf_state_writer *w,
			const struct ppf_state_file *file)
{
	u8 *p = w->buf + w->pos;
	u32 i;

	put16(p, (u16)file->fs);
	p[2] = file->fh_type;
	p[3] = file->fh_len;
	put16(p + 4, (u16)file->name_len);
	put16(p + 6, file->pages_len ? PPF_STATE_FILE_PAGES : 0);
	put64(p + 8, file->first);
	put64(p + 16, file->last);
	put64(p + 24, file->map);
	for (i = 0; i < file->fh_len; i++)
		put32(p + PPF_STATE_FILE + i * 4, file->fh[i]);
	p += PPF_STATE_FILE + file->fh_len * 4;
	memcpy(p, file->name, file->name_len);
	p += file->name_len;
	if (file->pages_len) {
		put16(p, (u16)file->pages_len);
		p[2] = file->pages_shift;
		p[3] = 0;
		memcpy(p + 4, file->pages, file->pages_len);
	}
	w->pos += ppf_state_file_bytes(file->fh_len, file->name_len,
				       file->pages_len);
}

/**
 * ppf_state_put_event() - write the next event record
 * @w: the writer
 * @ev: the record
 */
void ppf_state_put_event(struct ppf_state_writer *w,
			 const struct ppf_state_event *ev)
{
	u8 *p = w->buf + w->pos;

	put32(p, ev->file);
	put32(p + 4, ev->ctx);
	put32(p + 8, ev->parent);
	put64(p + 12, ev->domain);
	w->pos += PPF_STATE_EVENT;
}

/**
 * ppf_state_finish() - checksum a state file whose records are all put
 * @w: the writer; @w->pos must equal @w->size
 */
void ppf_state_finish(struct ppf_state_writer *w)
{
	put32(w->buf + 32, ppf_state_file_crc(w->buf, w->size));
}
