/* SPDX-License-Identifier: GPL-2.0 */
/*
 * state_file.h - the saved state's format: parse and write it
 *
 * DOC: Saved state
 *
 * What ppf has learnt is saved as the recent opens it learnt from, not as
 * the model's inside: replaying them into an empty model rebuilds it, so
 * one format serves every model kind and shape, a file saved under one
 * shape loads under another, and a loader need check little more than that
 * every index is in range (a hostile file can only feed a model events,
 * which it takes from any program).  The format is version 1, little
 * endian, with no padding the parser does not check:
 *
 *  - a header of PPF_STATE_HEADER bytes: the magic "PPFSTATE", the version,
 *    flags, the counts of file systems, files and events, the length of
 *    what follows the header, and a CRC-32 (the zlib one) of the whole file
 *    computed with this field zero;
 *  - nfs file system records of PPF_STATE_FS bytes: the type name, the
 *    UUID, the device number when saved, flags (PPF_STATE_FS_UUID: the
 *    UUID names it; otherwise the device number does, as in a file
 *    ppfctl import made on the machine that loads it);
 *  - nfiles file records: the file system's index, the file handle (type,
 *    length in 32-bit words, at most PPF_STATE_FH_WORDS), the pages read
 *    in its last use (in 4 KiB units; first > last: not known) with their
 *    256 KiB-segment map, and a name: the file's name in its directory in
 *    a handle file (may be empty), or its absolute path in a path file
 *    (PPF_STATE_PATHS, what ppfctl export writes: no file systems, no
 *    handles); then, if the record's flags say so (PPF_STATE_FILE_PAGES),
 *    the pages its uses through a mapping asked for: the bitmap's length
 *    in bytes (1 to PPF_STATE_PAGES_MAX), how many 4 KiB units each bit
 *    stands for (a power of two, its log2 at most PPF_STATE_PAGES_SHIFT),
 *    a zero byte, and the bitmap, bit 0 of byte 0 first;
 *  - nevents event records of PPF_STATE_EVENT bytes, oldest first: the
 *    file's index, the context and its parent, and the domain (uid, cgroup
 *    id or 0) of one open.
 *
 * This file is built unchanged into the kernel module (the loader), ppfctl
 * and the fuzzer, like the models.
 */
#ifndef PPF_STATE_FILE_H
#define PPF_STATE_FILE_H

#include "ppf_platform.h"

#define PPF_STATE_MAGIC		"PPFSTATE"
#define PPF_STATE_VERSION	1
#define PPF_STATE_HEADER	40
#define PPF_STATE_FS		48
#define PPF_STATE_FILE		32	/* without its handle and name */
#define PPF_STATE_EVENT		20
#define PPF_STATE_FH_WORDS	8
#define PPF_STATE_TYPE_LEN	16	/* with its NUL */
#define PPF_STATE_NAME_MAX	255
#define PPF_STATE_PATH_MAX	4095
#define PPF_STATE_MAX_FS	64
#define PPF_STATE_PAGES_MAX	4096	/* bytes of a file's page bitmap */
#define PPF_STATE_PAGES_SHIFT	24

/* Header flags */
#define PPF_STATE_PATHS		0x1	/* files by path, not by handle */
/* File system flags */
#define PPF_STATE_FS_UUID	0x1	/* the UUID identifies it */
/* File record flags */
#define PPF_STATE_FILE_PAGES	0x1	/* its page bitmap follows its name */

/**
 * struct ppf_state_limits - what a loader accepts
 * @max_files: most files
 * @max_events: most events
 * @paths: accept a path file (ppfctl import); otherwise only handles
 */
struct ppf_state_limits {
	u32 max_files;
	u32 max_events;
	bool paths;
};

/**
 * struct ppf_state - a parsed state file, pointing into its buffer
 * @flags: header flags
 * @nfs: file systems
 * @nfiles: files
 * @nevents: events
 * @fs: the first file system record
 * @files: the first file record
 * @events: the first event record
 */
struct ppf_state {
	u32 flags;
	u32 nfs;
	u32 nfiles;
	u32 nevents;
	const u8 *fs;
	const u8 *files;
	const u8 *events;
};

/**
 * struct ppf_state_fs - one file system
 * @type: its type name, NUL-terminated
 * @uuid: its UUID
 * @major: its device's major number when saved
 * @minor: its device's minor number when saved
 * @flags: PPF_STATE_FS_* flags
 */
struct ppf_state_fs {
	char type[PPF_STATE_TYPE_LEN];
	u8 uuid[16];
	u32 major;
	u32 minor;
	u32 flags;
};

/**
 * struct ppf_state_file - one file
 * @fs: index of its file system (0 in a path file)
 * @fh_type: file handle type
 * @fh_len: file handle length in 32-bit words
 * @fh: the handle
 * @first: first 4 KiB unit read in its last use
 * @last: last one (first > last: not known)
 * @map: the 256 KiB segments read then
 * @name_len: length of @name
 * @name: its name in its directory, or its path; not NUL-terminated
 * @pages_len: bytes of @pages (0: none)
 * @pages_shift: each bit of @pages stands for 2^@pages_shift 4 KiB units
 * @pages: the pages its uses through a mapping asked for, a bitmap
 */
struct ppf_state_file {
	u32 fs;
	u8 fh_type;
	u8 fh_len;
	u32 fh[PPF_STATE_FH_WORDS];
	u64 first;
	u64 last;
	u64 map;
	u32 name_len;
	const char *name;
	u32 pages_len;
	u8 pages_shift;
	const u8 *pages;
};

/**
 * struct ppf_state_event - one open
 * @file: the file's index
 * @ctx: the context the open belonged to
 * @parent: the context that started @ctx
 * @domain: whose model learnt from it
 */
struct ppf_state_event {
	u32 file;
	u32 ctx;
	u32 parent;
	u64 domain;
};

/**
 * struct ppf_state_writer - a state file being written
 * @buf: where
 * @size: its size, from ppf_state_size()
 * @pos: bytes written
 */
struct ppf_state_writer {
	u8 *buf;
	u64 size;
	u64 pos;
};

u32 ppf_state_crc32(u32 crc, const u8 *buf, u64 len);
const char *ppf_state_parse(struct ppf_state *st, const u8 *buf, u64 len,
			    const struct ppf_state_limits *limits, int *err);
void ppf_state_get_fs(const struct ppf_state *st, u32 i,
		      struct ppf_state_fs *fs);
const u8 *ppf_state_get_file(const u8 *rec, struct ppf_state_file *file);
void ppf_state_get_event(const struct ppf_state *st, u32 i,
			 struct ppf_state_event *ev);
u64 ppf_state_file_bytes(u32 fh_len, u32 name_len, u32 pages_len);
u64 ppf_state_size(u32 nfs, u64 file_bytes, u32 nevents);
void ppf_state_begin(struct ppf_state_writer *w, u32 flags, u32 nfs,
		     u32 nfiles, u32 nevents);
void ppf_state_put_fs(struct ppf_state_writer *w,
		      const struct ppf_state_fs *fs);
void ppf_state_put_file(struct ppf_state_writer *w,
			const struct ppf_state_file *file);
void ppf_state_put_event(struct ppf_state_writer *w,
			 const struct ppf_state_event *ev);
void ppf_state_finish(struct ppf_state_writer *w);

#endif /* PPF_STATE_FILE_H */
