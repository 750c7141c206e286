// SPDX-License-Identifier: GPL-2.0
/*
 * oracle - the practical limit of prefetching, for the ppf evaluation.
 *
 * usage: oracle resident LIST > RANGES
 *        oracle exact --faults FAULTS --root DIR USES > RANGES
 *        oracle plan --dev DEV --root DIR LIST > PLAN
 *        oracle run [--class be|idle] --start-mark FILE --dev DEV PLAN
 *
 * LIST is the boot list's ("OFFSET LEN PATH" per range, LEN 0: the whole
 * file).  "resident" turns the ranges a run used, in the order it used them,
 * into the ranges of those files in the page cache right after it ran cold
 * (mincore(2) of each file, in its first use's order): what the run brought
 * in, its mapped files as far as it faulted them and the kernel read around
 * the faults, which is what a boot prefetcher records.  Taken after a
 * warm-up that replayed the same trace as the measured run, that list is
 * every page the run will read: the oracle knows it at the start.
 *
 * "exact" does the same for a run whose mapped files were replayed at the
 * pages the real program faulted (ppf-replay --faults FAULTS, the faults
 * file as text): a file FAULTS names is listed at the pages the run itself
 * touches, its faulted pages and the pages its reads asked for, not at
 * what the kernel's read-around of each fault brought in besides (for the
 * parallel build, 224 MB against 107): a prefetcher that knows the pages
 * reads only those, and the faults then find them cached.  USES is the
 * run's data ranges with their operation, "OP OFFSET LEN PATH" (LEN 0: the
 * whole file), in the order it used them; DIR is the replay's tree, where
 * FAULTS' absolute paths are under DIR/_abs and its relative ones under
 * DIR.  Other files are listed as "resident" lists them.
 *
 * The oracle also knows the metadata the run's opens will read: the inode table block
 * of every file and of every directory between it and DIR, and the blocks
 * of those directories.
 *
 * "plan" runs while everything is still cached, after the replay has built
 * its tree and before it drops its caches: it maps each range to the disk
 * with FIEMAP and each inode to its inode table block from the ext4
 * superblock and group descriptors on DEV, and writes the plan (files
 * absent then are ones the run creates: left out).  "run" holds no file
 * open until FILE appears (start_mark.h: after the replay's cache drop; an
 * open file would keep its
 * inode and dentries cached across the drop), then issues, in the run's own
 * I/O priority class (--class idle: demand reads first; measured weaker, on
 * a one-arm disk a sweep that yields to every demand read is no sweep):
 *
 *   1. the metadata blocks, sorted by block number and merged, as
 *      WILLNEED on DEV: ext4 keeps its metadata in the block device's page
 *      cache, where a folio read ahead is found up to date by sb_getblk();
 *   2. the data ranges of every file, sorted by physical block and merged
 *      where both the file offsets and the blocks are contiguous, as
 *      WILLNEED on each file (opened after step 1: its inode is then read
 *      from the swept blocks, not by a seek of its own).
 *
 * One elevator sweep for the metadata, one for the data: what an ideal
 * prefetcher with perfect knowledge does on a disk whose cost is the arm's
 * position.  It does not know the extent-tree blocks of files deep enough
 * to have any (FIEMAP does not report them); those are read on open.
 *
 * Prints "oracle: ..." with its counts and times to stderr at the end.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "range_list.h"
#include "start_mark.h"

#define PAGE 4096ull
#define IOPRIO_CLASS_IDLE 3
#define IOPRIO_CLASS_SHIFT 13
#define IOPRIO_WHO_PROCESS 1

struct ext { uint64_t phys, logical, len; int file; };

struct vec { struct ext *v; size_t n, cap; };

static struct {
	char **path;
	size_t n, cap;
} files;

static unsigned long errors;

static void *grow(void *p, size_t n, size_t size)
{
	p = realloc(p, n * size);
	if (!p) {
		perror("oracle");
		exit(1);
	}
	return p;
}

static void push(struct vec *a, struct ext e)
{
	if (a->n == a->cap) {
		a->cap = a->cap ? 2 * a->cap : 1024;
		a->v = grow(a->v, a->cap, sizeof(*a->v));
	}
	a->v[a->n++] = e;
}

/*
 * A set of 64-bit keys with a value each (open addressing, at most half
 * full): the file table by path hash, the directories seen by inode.
 */
struct set { uint64_t *key; int *val; size_t cap, n; };

static int *set_slot(struct set *t, uint64_t key, int *fresh)
{
	size_t i;

	if (2 * (t->n + 1) > t->cap) {
		struct set old = *t;

		t->cap = t->cap ? 2 * t->cap : 1024;
		t->key = calloc(t->cap, sizeof(*t->key));
		t->val = calloc(t->cap, sizeof(*t->val));
		if (!t->key || !t->val) {
			perror("oracle");
			exit(1);
		}
		t->n = 0;
		for (i = 0; i < old.cap; i++)
			if (old.key[i])
				*set_slot(t, old.key[i], fresh) = old.val[i];
		free(old.key);
		free(old.val);
	}
	key |= !key;	/* 0 marks a free slot */
	for (i = key % t->cap; t->key[i] && t->key[i] != key; i = (i + 1) % t->cap)
		;
	*fresh = !t->key[i];
	if (*fresh) {
		t->key[i] = key;
		t->n++;
	}
	return &t->val[i];
}

static uint64_t fnv1a(const char *s)
{
	uint64_t h = 14695981039346656037ull;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

/* The index of path in the file table, added if new (paths whose hashes
 * collide are told apart by a second slot keyed by the next hash). */
static int file_index(const char *path)
{
	static struct set by_path;
	uint64_t h = fnv1a(path);
	int fresh, *slot;

	for (;; h = h * 31 + 7) {
		slot = set_slot(&by_path, h, &fresh);
		if (fresh || !strcmp(files.path[*slot], path))
			break;
	}
	if (!fresh)
		return *slot;
	if (files.n == files.cap) {
		files.cap = files.cap ? 2 * files.cap : 256;
		files.path = grow(files.path, files.cap, sizeof(*files.path));
	}
	files.path[files.n] = strdup(path);
	if (!files.path[files.n]) {
		perror("oracle");
		exit(1);
	}
	*slot = (int)files.n;
	return (int)files.n++;
}

/* ext4's layout: where inode ino lives on the device. */
static struct {
	int fd, ok;
	uint64_t bs, first, ipg, isz, desc;
} fs;

static uint32_t le32(const unsigned char *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static int read_layout(const char *dev)
{
	unsigned char sb[1024];

	fs.fd = open(dev, O_RDONLY | O_CLOEXEC);
	if (fs.fd < 0 || pread(fs.fd, sb, sizeof(sb), 1024) != sizeof(sb)) {
		perror(dev);
		return -1;
	}
	if ((sb[56] | sb[57] << 8) != 0xEF53) {
		fprintf(stderr, "oracle: %s: not ext4 (no magic): no metadata sweep\n", dev);
		return 0;
	}
	fs.bs = 1024ull << le32(sb + 24);
	fs.first = le32(sb + 20);
	fs.ipg = le32(sb + 40);
	fs.isz = sb[88] | sb[89] << 8;
	fs.desc = (le32(sb + 96) & 0x80) ? (uint64_t)(sb[254] | sb[255] << 8) : 32;
	fs.ok = fs.bs && fs.ipg && fs.isz && fs.desc >= 32;
	return 0;
}

/* The byte offset on the device of the inode table block holding ino. */
static int inode_block(uint64_t ino, uint64_t *at)
{
	uint64_t g = (ino - 1) / fs.ipg, idx = (ino - 1) % fs.ipg, table;
	unsigned char d[64];

	if (pread(fs.fd, d, fs.desc > 32 ? 64 : 32,
		  (fs.first + 1) * fs.bs + g * fs.desc) < 32)
		return -1;
	table = le32(d + 8);
	if (fs.desc > 32)
		table |= (uint64_t)le32(d + 0x28) << 32;
	*at = (table + idx * fs.isz / fs.bs) * fs.bs;
	return 0;
}

/* FIEMAP of [off, off + len) of fd, clipped to it, appended to out. */
static void map_range(int fd, int file, uint64_t off, uint64_t len, struct vec *out)
{
	enum { N = 64 };
	struct {
		struct fiemap fm;
		struct fiemap_extent fe[N];
	} m;
	uint64_t start = off, end = off + len;
	int last = 0;

	while (!last && start < end) {
		memset(&m, 0, sizeof(m));
		m.fm.fm_start = start;
		m.fm.fm_length = end - start;
		m.fm.fm_extent_count = N;
		if (ioctl(fd, FS_IOC_FIEMAP, &m.fm)) {
			errors++;
			return;
		}
		if (!m.fm.fm_mapped_extents)	/* a hole to the end */
			return;
		for (unsigned int i = 0; i < m.fm.fm_mapped_extents; i++) {
			struct fiemap_extent *e = &m.fe[i];
			uint64_t lo = e->fe_logical > start ? e->fe_logical : start;
			uint64_t hi = e->fe_logical + e->fe_length;

			last = e->fe_flags & FIEMAP_EXTENT_LAST;
			hi = hi < end ? hi : end;
			if (hi > lo && !(e->fe_flags & (FIEMAP_EXTENT_UNKNOWN |
							 FIEMAP_EXTENT_DATA_INLINE)))
				push(out, (struct ext){ e->fe_physical + lo - e->fe_logical,
							lo, hi - lo, file });
			start = e->fe_logical + e->fe_length;
		}
	}
}

/* The metadata an open of path reads: its inode's block, and for each
 * directory up to root its inode's block and its own blocks (once each). */
static void map_metadata(const char *path, const char *root, struct vec *meta)
{
	static struct set seen_dirs;	/* by inode number */
	char buf[4096];
	struct stat st;
	uint64_t at;
	size_t rl = strlen(root);

	snprintf(buf, sizeof(buf), "%s", path);
	while (fs.ok && strlen(buf) >= rl && !stat(buf, &st)) {
		int dir = S_ISDIR(st.st_mode), fresh = 1;
		char *slash;

		if (dir)
			set_slot(&seen_dirs, st.st_ino, &fresh);
		if (!fresh)
			break;
		if (!inode_block(st.st_ino, &at))
			push(meta, (struct ext){ at, 0, fs.bs, -1 });
		if (dir) {
			int fd = open(buf, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

			if (fd >= 0) {
				map_range(fd, -1, 0, (uint64_t)st.st_size, meta);
				close(fd);
			}
		}
		if (strlen(buf) == rl)
			break;
		slash = strrchr(buf, '/');
		if (!slash || slash == buf)
			break;
		*slash = 0;
	}
}

static int by_phys(const void *a, const void *b)
{
	const struct ext *x = a, *y = b;

	return x->phys < y->phys ? -1 : x->phys > y->phys;
}

/* Sort by physical position; merge what is contiguous on the disk and, for
 * data, in the same file at contiguous offsets. */
static void sort_merge(struct vec *a)
{
	size_t o = 0;

	qsort(a->v, a->n, sizeof(*a->v), by_phys);
	for (size_t i = 0; i < a->n; i++) {
		struct ext *p = o ? &a->v[o - 1] : NULL, *e = &a->v[i];

		if (p && p->file == e->file && e->phys <= p->phys + p->len &&
		    (e->file < 0 || e->logical - p->logical == e->phys - p->phys)) {
			uint64_t end = e->phys + e->len;

			if (end > p->phys + p->len)
				p->len = end - p->phys;
			continue;
		}
		a->v[o++] = *e;
	}
	a->n = o;
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static uint64_t bytes(const struct vec *a)
{
	uint64_t b = 0;

	for (size_t i = 0; i < a->n; i++)
		b += a->v[i].len;
	return b;
}

/* Read LIST: map every range (whole file for LEN 0) and its metadata. */
static int plan(const char *list, const char *root, struct vec *data, struct vec *meta)
{
	char line[8192], last[4096] = "", *path;
	long long off, len;
	int fd = -1, file = -1;
	FILE *f = fopen(list, "r");
	struct stat st;

	if (!f) {
		perror(list);
		return -1;
	}
	while ((path = range_next(f, line, sizeof(line), &off, &len))) {
		uint64_t lo, hi;

		if (strcmp(path, last)) {
			if (fd >= 0)
				close(fd);
			snprintf(last, sizeof(last), "%s", path);
			fd = open(path, O_RDONLY | O_CLOEXEC);
			if (fd < 0 || fstat(fd, &st)) {
				errors++;
				continue;
			}
			file = file_index(path);
			map_metadata(path, root, meta);
		}
		if (fd < 0)
			continue;
		lo = off < 0 ? 0 : (uint64_t)off & ~(PAGE - 1);
		hi = len <= 0 ? (uint64_t)st.st_size : (uint64_t)off + (uint64_t)len;
		hi = hi < (uint64_t)st.st_size ? hi : (uint64_t)st.st_size;
		if (hi > lo)
			map_range(fd, file, lo, hi - lo, data);
	}
	if (fd >= 0)
		close(fd);
	fclose(f);
	sort_merge(data);
	sort_merge(meta);
	return 0;
}

/*
 * The plan: "M PHYS LEN" metadata, "F PATH" files (numbered from 0 in
 * order), "D PHYS FILE OFFSET LEN" data, each kind sorted by PHYS.
 */
static int write_plan(const char *dev, const char *root, const char *list)
{
	struct vec data = { 0 }, meta = { 0 };

	if (read_layout(dev) || plan(list, root, &data, &meta))
		return 1;
	for (size_t k = 0; k < meta.n; k++)
		printf("M %llu %llu\n", (unsigned long long)meta.v[k].phys,
		       (unsigned long long)meta.v[k].len);
	for (size_t k = 0; k < files.n; k++)
		printf("F %s\n", files.path[k]);
	for (size_t k = 0; k < data.n; k++)
		printf("D %llu %d %llu %llu\n", (unsigned long long)data.v[k].phys,
		       data.v[k].file, (unsigned long long)data.v[k].logical,
		       (unsigned long long)data.v[k].len);
	fprintf(stderr, "oracle plan: %zu data extents (%llu bytes) in %zu files, %zu "
		"metadata extents (%llu bytes), %lu errors\n", data.n,
		(unsigned long long)bytes(&data), files.n, meta.n,
		(unsigned long long)bytes(&meta), errors);
	return fflush(stdout) ? 1 : 0;
}

static int read_plan(const char *path, struct vec *data, struct vec *meta)
{
	char line[8192];
	unsigned long long a, b, c;
	int file, n;
	FILE *f = fopen(path, "r");

	if (!f) {
		perror(path);
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (sscanf(line, "M %llu %llu", &a, &b) == 2) {
			push(meta, (struct ext){ a, 0, b, -1 });
		} else if (!strncmp(line, "F ", 2)) {
			file_index(line + 2);
		} else if (sscanf(line, "D %llu %d %llu %llu%n", &a, &file, &b, &c, &n) == 4 &&
			   file >= 0 && (size_t)file < files.n) {
			push(data, (struct ext){ a, b, c, file });
		} else {
			fprintf(stderr, "oracle: %s: not a plan line: %s\n", path, line);
			fclose(f);
			return -1;
		}
	}
	fclose(f);
	return 0;
}

static int run_plan(const char *start, const char *dev, const char *path, int idle)
{
	struct vec data = { 0 }, meta = { 0 };
	uint64_t t0, t_meta, t_open;
	int *fd, bdev = open(dev, O_RDONLY | O_CLOEXEC);

	if (bdev < 0) {
		perror(dev);
		return 1;
	}
	if (read_plan(path, &data, &meta))
		return 1;
	fd = calloc(files.n + 1, sizeof(*fd));
	if (!fd || wait_for_start("oracle", start))
		return 1;
	t0 = now_ns();
	if (idle && syscall(SYS_ioprio_set, IOPRIO_WHO_PROCESS, 0,
			    IOPRIO_CLASS_IDLE << IOPRIO_CLASS_SHIFT))
		perror("oracle: ioprio_set");
	for (size_t k = 0; k < meta.n; k++)
		if (posix_fadvise(bdev, meta.v[k].phys, meta.v[k].len, POSIX_FADV_WILLNEED))
			errors++;
	t_meta = now_ns();
	for (size_t k = 0; k < files.n; k++) {
		fd[k] = open(files.path[k], O_RDONLY | O_CLOEXEC | O_NOATIME);
		if (fd[k] < 0)
			fd[k] = open(files.path[k], O_RDONLY | O_CLOEXEC);
		errors += fd[k] < 0;
	}
	t_open = now_ns();
	for (size_t k = 0; k < data.n; k++) {
		struct ext *e = &data.v[k];

		if (fd[e->file] >= 0 &&
		    posix_fadvise(fd[e->file], e->logical, e->len, POSIX_FADV_WILLNEED))
			errors++;
	}
	for (size_t k = 0; k < files.n; k++)
		if (fd[k] >= 0)
			close(fd[k]);
	fprintf(stderr, "oracle: %zu data extents (%llu bytes) in %zu files, %zu metadata "
		"extents (%llu bytes), %lu errors; metadata issued in %llu ns, files "
		"opened in %llu ns, all issued in %llu ns\n", data.n,
		(unsigned long long)bytes(&data), files.n, meta.n,
		(unsigned long long)bytes(&meta), errors,
		(unsigned long long)(t_meta - t0), (unsigned long long)(t_open - t_meta),
		(unsigned long long)(now_ns() - t0));
	return 0;
}

/*
 * "OFFSET LEN PATH" for each run of pages of each file of LIST (in its first
 * use's order) that the page cache holds.
 */
/* Print the ranges of @path in the page cache (mincore(2)). */
static void print_resident(const char *path)
{
	unsigned char *vec;
	struct stat st;
	size_t pages, i, run;
	void *map;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st) || !st.st_size) {
		errors += fd < 0;
		if (fd >= 0)
			close(fd);
		return;
	}
	pages = (st.st_size + PAGE - 1) / PAGE;
	map = mmap(NULL, st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	vec = malloc(pages);
	if (map == MAP_FAILED || !vec || mincore(map, st.st_size, vec)) {
		errors++;
	} else {
		for (i = 0; i < pages; i = run) {
			for (run = i; run < pages && (vec[run] & 1); run++)
				;
			if (run > i)
				printf("%llu %llu %s\n", (unsigned long long)(i * PAGE),
				       (unsigned long long)(min_u64(run * PAGE, st.st_size) -
							    i * PAGE),
				       path);
			else
				run++;
		}
	}
	free(vec);
	if (map != MAP_FAILED)
		munmap(map, st.st_size);
	close(fd);
}

static int resident(const char *list)
{
	char line[8192], *path;
	long long off, len;
	FILE *f = fopen(list, "r");
	size_t known;

	if (!f) {
		perror(list);
		return 1;
	}
	while ((path = range_next(f, line, sizeof(line), &off, &len))) {
		known = files.n;
		if ((size_t)file_index(path) != known)
			continue;	/* named before: listed at its first use */
		print_resident(path);
	}
	fclose(f);
	if (errors)
		fprintf(stderr, "oracle resident: %lu files not read\n", errors);
	return fflush(stdout) ? 1 : 0;
}

/* The pages of each file the faults file names (index: file_index()). */
static struct {
	uint64_t **page;
	size_t *n, *cap;
	char *named;
	size_t size;
} touched;

static void touched_grow(size_t file)
{
	size_t n = touched.size;

	if (file < n)
		return;
	touched.size = 2 * file + 16;
	touched.page = grow(touched.page, touched.size, sizeof(*touched.page));
	touched.n = grow(touched.n, touched.size, sizeof(*touched.n));
	touched.cap = grow(touched.cap, touched.size, sizeof(*touched.cap));
	touched.named = grow(touched.named, touched.size, 1);
	for (; n < touched.size; n++) {
		touched.page[n] = NULL;
		touched.n[n] = touched.cap[n] = 0;
		touched.named[n] = 0;
	}
}

static void touch_page(size_t file, uint64_t page)
{
	if (touched.n[file] == touched.cap[file]) {
		touched.cap[file] = touched.cap[file] ? 2 * touched.cap[file] : 64;
		touched.page[file] = grow(touched.page[file], touched.cap[file],
					  sizeof(uint64_t));
	}
	touched.page[file][touched.n[file]++] = page;
}

static int by_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The faults file (docs/replay.md), its paths made the tree's under @root. */
static int read_faults(const char *faults, const char *root)
{
	char line[8192], path[8192 + 4096], *tok, *end;
	long file = -1;
	unsigned long n = 0;
	FILE *f = fopen(faults, "r");

	if (!f) {
		perror(faults);
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		n++;
		line[strcspn(line, "\n")] = 0;
		if (n == 1 && strcmp(line, "ppf-faults 1")) {
			fprintf(stderr, "oracle: %s:1: not a faults file (no \"ppf-faults 1\")\n", faults);
			fclose(f);
			return -1;
		}
		if (n == 1 || line[0] == '#')
			continue;
		if (!strncmp(line, "file ", 5)) {
			snprintf(path, sizeof(path), "%s/%s%s", root,
				 line[5] == '/' ? "_abs" : "", line + 5);
			file = file_index(path);
			touched_grow(file);
			touched.named[file] = 1;
			continue;
		}
		for (tok = strtok(line, " \t"); tok; tok = strtok(NULL, " \t")) {
			uint64_t page = strtoull(tok, &end, 10);

			if (file < 0 || *end) {
				fprintf(stderr, "oracle: %s:%lu: not a page index after a file line: %s\n",
					faults, n, tok);
				fclose(f);
				return -1;
			}
			touch_page(file, page);
		}
	}
	fclose(f);
	return 0;
}

/* Print @file's touched pages, sorted and merged into ranges. */
static void print_touched(size_t file)
{
	uint64_t *p = touched.page[file];
	size_t n = touched.n[file], i, j;

	qsort(p, n, sizeof(*p), by_u64);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && p[j] <= p[j - 1] + 1; j++)
			;
		printf("%llu %llu %s\n", (unsigned long long)(p[i] * PAGE),
		       (unsigned long long)((p[j - 1] + 1 - p[i]) * PAGE),
		       files.path[file]);
	}
}

static int exact(const char *faults, const char *root, const char *uses)
{
	char line[8192], op[16];
	long long off, len;
	size_t nfaulted, i;
	char *listed;
	FILE *f;

	if (read_faults(faults, root))
		return 1;
	nfaulted = files.n;
	f = fopen(uses, "r");
	if (!f) {
		perror(uses);
		return 1;
	}
	listed = calloc(files.n + 1, 1);
	if (!listed) {
		perror("oracle");
		return 1;
	}
	while (fgets(line, sizeof(line), f)) {
		size_t file, was = files.n;
		int at = 0;

		line[strcspn(line, "\n")] = 0;
		if (sscanf(line, "%15s %lld %lld %n", op, &off, &len, &at) < 3 || !at)
			continue;
		file = file_index(line + at);
		if (files.n != was) {
			listed = grow(listed, files.n, 1);
			listed[file] = 0;
		}
		if (file < nfaulted && touched.named[file]) {
			/* a read asks for its own pages; a mapping's are its faults */
			if (!strcmp(op, "read") && len > 0)
				for (i = off / PAGE; i < (off + len + PAGE - 1) / PAGE; i++)
					touch_page(file, i);
			if (!listed[file])
				listed[file] = 2;	/* printed once all its reads are in */
			continue;
		}
		if (!listed[file]) {
			listed[file] = 1;
			print_resident(files.path[file]);
		}
	}
	fclose(f);
	/* The faulted files after the others: the plan sorts by disk block anyway. */
	for (i = 0; i < nfaulted; i++)
		if (listed[i] == 2)
			print_touched(i);
	free(listed);
	if (errors)
		fprintf(stderr, "oracle exact: %lu files not read\n", errors);
	return fflush(stdout) ? 1 : 0;
}

static const char *opt(int argc, char **argv, const char *name)
{
	for (int i = 2; i + 1 < argc; i += 2)
		if (!strcmp(argv[i], name))
			return argv[i + 1];
	return NULL;
}

int main(int argc, char **argv)
{
	const char *start = opt(argc, argv, "--start-mark"), *dev = opt(argc, argv, "--dev");
	const char *root = opt(argc, argv, "--root"), *class = opt(argc, argv, "--class");
	const char *faults = opt(argc, argv, "--faults");
	int nopt = 1 + 2 * (!!start + !!dev + !!root + !!class + !!faults);

	if (argc == 3 && !strcmp(argv[1], "resident"))
		return resident(argv[2]);
	if (argc == nopt + 2 && !strcmp(argv[1], "exact") && faults && root &&
	    !dev && !start && !class)
		return exact(faults, root, argv[argc - 1]);
	if (argc == nopt + 2 && !strcmp(argv[1], "plan") && dev && root && !start && !class)
		return write_plan(dev, root, argv[argc - 1]);
	if (argc == nopt + 2 && !strcmp(argv[1], "run") && dev && start && !root &&
	    (!class || !strcmp(class, "idle") || !strcmp(class, "be")))
		return run_plan(start, dev, argv[argc - 1], class && !strcmp(class, "idle"));
	fprintf(stderr, "usage: oracle resident LIST > RANGES\n"
		"       oracle exact --faults FAULTS --root DIR USES > RANGES\n"
		"       oracle plan --dev DEV --root DIR LIST > PLAN\n"
		"       oracle run [--class be|idle] --start-mark FILE --dev DEV PLAN\n");
	return 1;
}
