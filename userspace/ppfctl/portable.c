// SPDX-License-Identifier: GPL-2.0
/*
 * portable.c - ppfctl export | import: a state naming files by path
 *
 * The kernel's state names each file by handle and file system UUID, good
 * on this machine only.  export opens each handle (open_by_handle_at(2), on
 * a mount of the file system found in /proc/self/mountinfo) and reads back
 * its path; import turns each path into a handle (name_to_handle_at(2)) on
 * the machine that imports it.  A build farm trains one runner, exports,
 * and every runner with the same tree imports.  Reading, checking and
 * writing the state files is state.c's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "state.h"

/* A file handle with room for the longest the state format keeps. */
struct ppf_fh_buf {
	struct file_handle fh;
	unsigned char bytes[PPF_STATE_FH_WORDS * 4];
};

/**
 * struct ppf_mount - one line of /proc/self/mountinfo we may use
 * @major: its device's major number
 * @minor: its device's minor number
 * @root: the file system's directory mounted there
 * @dir: where
 * @type: its type
 */
struct ppf_mount {
	unsigned int major, minor;
	char root[PATH_MAX];
	char dir[PATH_MAX];
	char type[PPF_STATE_TYPE_LEN];
};

/*
 * The mount of device major:minor, preferring one of the file system's
 * root; 0 if found, else -ENOENT.
 */
static int ppf_find_mount(unsigned int major, unsigned int minor,
			  struct ppf_mount *out)
{
	char line[3 * PATH_MAX], type[64];
	struct ppf_mount m;
	FILE *f = fopen("/proc/self/mountinfo", "re");
	int found = -ENOENT;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		const char *sep = strstr(line, " - ");

		if (sscanf(line, "%*u %*u %u:%u %4095s %4095s", &m.major,
			   &m.minor, m.root, m.dir) != 4 || !sep ||
		    sscanf(sep + 3, "%63s", type) != 1)
			continue;
		if (m.major != major || m.minor != minor)
			continue;
		/* A longer type name than the kernel keeps cannot match. */
		if (strlen(type) >= sizeof(m.type))
			continue;
		memcpy(m.type, type, strlen(type) + 1);
		if (found || !strcmp(m.root, "/")) {
			*out = m;
			found = 0;
		}
		if (!strcmp(m.root, "/"))
			break;
	}
	fclose(f);
	return found;
}

/* The path of what @fd is open on, checked to lead to it; 0 or -errno. */
static int ppf_fd_path(int fd, char *path, size_t size)
{
	struct stat a, b;
	char link[64];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, size - 1);
	if (n <= 0 || (size_t)n >= size - 1 || path[0] != '/')
		return -ENOENT;
	path[n] = '\0';
	/*
	 * A disconnected dentry (its directory not in the dcache, as after
	 * drop_caches) reads back as "/": check the path leads to the file.
	 */
	if (fstat(fd, &a) || stat(path, &b) || a.st_dev != b.st_dev ||
	    a.st_ino != b.st_ino)
		return -ENOENT;
	return 0;
}

static int ppf_open_handle(int mfd, unsigned int type, unsigned int words,
			   const __u32 *fh, int flags)
{
	struct ppf_fh_buf h;

	h.fh.handle_bytes = words * 4;
	h.fh.handle_type = type;
	memcpy(h.fh.f_handle, fh, words * 4);
	return open_by_handle_at(mfd, &h.fh, flags | O_CLOEXEC);
}

/*
 * A file's path through its directory: a connectable handle of the kind
 * ext2/3/4 and xfs make (type 2, FILEID_INO32_GEN_PARENT: the file's inode
 * and generation, then its directory's) holds the directory's handle (type
 * 1), and the kernel reconnects a directory it decodes, so the directory's
 * path and the file's name give the file's path.
 */
static int ppf_path_by_dir(int mfd, const struct ppf_state_file *rec,
			   char *path, size_t size)
{
	char dir[PATH_MAX];
	int fd, err;

	if (rec->fh_type != 2 || rec->fh_len != 4 || !rec->name_len)
		return -ENOENT;
	fd = ppf_open_handle(mfd, 1, 2, rec->fh + 2, O_PATH | O_DIRECTORY);
	if (fd < 0)
		return -errno;
	err = ppf_fd_path(fd, dir, sizeof(dir));
	close(fd);
	if (err)
		return err;
	if (snprintf(path, size, "%s/%.*s", strcmp(dir, "/") ? dir : "",
		     (int)rec->name_len, rec->name) >= (int)size)
		return -ENAMETOOLONG;
	return 0;
}

/* The path of a file by handle on the mount @mfd; 0 or -errno. */
static int ppf_handle_path(int mfd, const struct ppf_state_file *rec,
			   char *path, size_t size)
{
	struct stat a, b;
	int fd, err;

	fd = ppf_open_handle(mfd, rec->fh_type, rec->fh_len, rec->fh, O_PATH);
	if (fd < 0)
		return -errno;
	err = ppf_fd_path(fd, path, size);
	if (err) {
		err = ppf_path_by_dir(mfd, rec, path, size);
		if (!err && (fstat(fd, &a) || stat(path, &b) ||
			     a.st_dev != b.st_dev || a.st_ino != b.st_ino))
			err = -ENOENT;
	}
	close(fd);
	return err;
}

struct ppf_xfile {
	struct ppf_state_file rec;
	char *name;		/* owned: a path or a handle file's name */
	unsigned int newindex;	/* UINT_MAX: dropped */
};

/* Write the files @x that were kept and @st's events for them. */
static int ppf_build(struct ppf_buf *out, const struct ppf_state *st,
		     unsigned int flags, const struct ppf_state_fs *fs,
		     unsigned int nfs, struct ppf_xfile *x)
{
	struct ppf_state_writer w = { 0 };
	unsigned int i, nfiles = 0, nevents = 0;
	struct ppf_state_event ev;
	unsigned long long bytes = 0;

	for (i = 0; i < st->nfiles; i++) {
		if (x[i].newindex == UINT_MAX)
			continue;
		x[i].newindex = nfiles++;
		x[i].rec.name = x[i].name;
		x[i].rec.name_len = strlen(x[i].name);
		bytes += ppf_state_file_bytes(x[i].rec.fh_len, x[i].rec.name_len,
					      x[i].rec.pages_len);
	}
	for (i = 0; i < st->nevents; i++) {
		ppf_state_get_event(st, i, &ev);
		nevents += x[ev.file].newindex != UINT_MAX;
	}
	w.size = ppf_state_size(nfs, bytes, nevents);
	w.buf = malloc(w.size);
	if (!w.buf)
		return -ENOMEM;
	ppf_state_begin(&w, flags, nfs, nfiles, nevents);
	for (i = 0; i < nfs; i++)
		ppf_state_put_fs(&w, &fs[i]);
	for (i = 0; i < st->nfiles; i++)
		if (x[i].newindex != UINT_MAX)
			ppf_state_put_file(&w, &x[i].rec);
	for (i = 0; i < st->nevents; i++) {
		ppf_state_get_event(st, i, &ev);
		if (x[ev.file].newindex == UINT_MAX)
			continue;
		ev.file = x[ev.file].newindex;
		ppf_state_put_event(&w, &ev);
	}
	ppf_state_finish(&w);
	out->data = w.buf;
	out->len = w.size;
	return 0;
}

static void ppf_free_x(struct ppf_xfile *x, unsigned int n)
{
	while (x && n--)
		free(x[n].name);
	free(x);
}

int ppf_cmd_export(const char *path)
{
	struct ppf_state_limits lim = { UINT32_MAX, UINT32_MAX, false };
	struct ppf_buf b = { 0 }, out = { 0 };
	int mfd[PPF_STATE_MAX_FS];
	unsigned int i, kept = 0;
	struct ppf_xfile *x = NULL;
	const unsigned char *p;
	struct ppf_state st;
	char name[PATH_MAX];
	int err;

	err = ppf_read_state(PPF_PROC_STATE, &b, &st, &lim);
	if (err)
		goto out;
	for (i = 0; i < st.nfs; i++) {
		struct ppf_state_fs fs;
		struct ppf_mount m;

		ppf_state_get_fs(&st, i, &fs);
		mfd[i] = -1;
		if (!ppf_find_mount(fs.major, fs.minor, &m))
			mfd[i] = open(m.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (mfd[i] < 0)
			fprintf(stderr, "ppfctl: %s file system %u:%u is not mounted: its files are left out\n",
				fs.type, fs.major, fs.minor);
	}
	x = calloc(st.nfiles ? st.nfiles : 1, sizeof(*x));
	if (!x)
		err = -ENOMEM;
	for (i = 0, p = st.files; x && i < st.nfiles; i++) {
		p = ppf_state_get_file(p, &x[i].rec);
		x[i].newindex = UINT_MAX;
		if (mfd[x[i].rec.fs] < 0 ||
		    ppf_handle_path(mfd[x[i].rec.fs], &x[i].rec, name, sizeof(name))) {
			if (i - kept < 10)
				fprintf(stderr, "ppfctl: file %u of the state no longer exists (its handle does not open), left out\n",
					i);
			continue;
		}
		x[i].name = strdup(name);
		if (!x[i].name)
			continue;
		x[i].rec.fs = 0;
		x[i].rec.fh_len = 0;
		x[i].rec.fh_type = 0;
		x[i].newindex = 0;
		kept++;
	}
	for (i = 0; i < st.nfs; i++)
		if (mfd[i] >= 0)
			close(mfd[i]);
	if (!err)
		err = ppf_build(&out, &st, PPF_STATE_PATHS, NULL, 0, x);
	if (!err)
		err = ppf_store(path, &out);
	if (err) {
		fprintf(stderr, "ppfctl: export to %s: %s\n", path, strerror(-err));
		err = 1;
	} else {
		printf("exported %u files (%u not found, left out) to %s\n", kept,
		       st.nfiles - kept, path);
	}
out:
	ppf_free_x(x, st.nfiles);
	free(out.data);
	free(b.data);
	return err;
}

/* The file system record index of @path's file system, added if new. */
static int ppf_import_fs(const struct stat *sb, struct ppf_state_fs *fs,
			 unsigned int *nfs)
{
	struct ppf_mount m;
	unsigned int i;

	for (i = 0; i < *nfs; i++)
		if (fs[i].major == major(sb->st_dev) && fs[i].minor == minor(sb->st_dev))
			return i;
	if (*nfs == PPF_STATE_MAX_FS || ppf_find_mount(major(sb->st_dev),
						      minor(sb->st_dev), &m))
		return -1;
	memset(&fs[*nfs], 0, sizeof(fs[*nfs]));
	memcpy(fs[*nfs].type, m.type, sizeof(m.type));
	fs[*nfs].major = major(sb->st_dev);
	fs[*nfs].minor = minor(sb->st_dev);
	fs[*nfs].flags = 0;	/* this boot's device number names it */
	return (*nfs)++;
}

/* Turn a path record into a handle record; false if the file is not here. */
static bool ppf_import_file(struct ppf_xfile *x, struct ppf_state_fs *fs,
			    unsigned int *nfs)
{
	struct ppf_fh_buf h;
	char path[PPF_STATE_PATH_MAX + 1];
	struct stat sb;
	int mount_id, idx;

	memcpy(path, x->rec.name, x->rec.name_len);
	path[x->rec.name_len] = '\0';
	h.fh.handle_bytes = sizeof(h.bytes);
	if (stat(path, &sb) || !S_ISREG(sb.st_mode) ||
	    name_to_handle_at(AT_FDCWD, path, &h.fh, &mount_id, 0) ||
	    h.fh.handle_bytes % 4 || h.fh.handle_type <= 0 ||
	    h.fh.handle_type >= 0xff)
		return false;
	idx = ppf_import_fs(&sb, fs, nfs);
	if (idx < 0)
		return false;
	/*
	 * A plain handle, with no name: the kernel looks a file up by name
	 * only with its directory's handle (a connectable one, DOC: Metadata).
	 */
	x->name = strdup("");
	if (!x->name)
		return false;
	x->rec.fs = idx;
	x->rec.fh_type = h.fh.handle_type;
	x->rec.fh_len = h.fh.handle_bytes / 4;
	memcpy(x->rec.fh, h.fh.f_handle, h.fh.handle_bytes);
	return true;
}

int ppf_cmd_import(const char *path)
{
	struct ppf_state_limits lim = { .paths = true };
	struct ppf_state_fs fs[PPF_STATE_MAX_FS];
	struct ppf_buf b = { 0 }, out = { 0 };
	unsigned int i, nfs = 0, kept = 0;
	struct ppf_xfile *x = NULL;
	const unsigned char *p;
	struct ppf_state st;
	int err;

	ppf_kernel_limits(&lim);
	err = ppf_read_state(path, &b, &st, &lim);
	if (err)
		goto out;
	if (!(st.flags & PPF_STATE_PATHS)) {
		fprintf(stderr, "ppfctl: %s: files by handle, not by path: load it with 'ppfctl load'\n",
			path);
		err = 1;
		goto out;
	}
	x = calloc(st.nfiles ? st.nfiles : 1, sizeof(*x));
	for (i = 0, p = st.files; x && i < st.nfiles; i++) {
		p = ppf_state_get_file(p, &x[i].rec);
		x[i].newindex = UINT_MAX;
		if (ppf_import_file(&x[i], fs, &nfs)) {
			x[i].newindex = 0;
			kept++;
		} else if (i - kept < 10) {
			fprintf(stderr, "ppfctl: %.*s: not a regular file here, left out\n",
				(int)x[i].rec.name_len, x[i].rec.name);
		}
	}
	err = x ? ppf_build(&out, &st, 0, fs, nfs, x) : -ENOMEM;
	if (err) {
		fprintf(stderr, "ppfctl: import %s: %s\n", path, strerror(-err));
		err = 1;
		goto out;
	}
	printf("imported %u files (%u not found here, left out) from %s\n",
	       kept, st.nfiles - kept, path);
	err = ppf_write_kernel(&out);
out:
	ppf_free_x(x, st.nfiles);
	free(out.data);
	free(b.data);
	return err;
}
