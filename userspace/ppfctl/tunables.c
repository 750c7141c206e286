// SPDX-License-Identifier: GPL-2.0
/*
 * tunables.c - get and set vm.predictive_prefetch.*
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tunables.h"

/*
 * Open one tunable's file; a name is one path component: no "../enabled"
 * tricks.  Returns the descriptor or -errno.
 */
static int ppf_tunable_open(const char *name, int flags)
{
	char path[256];
	int fd;

	if (!*name || strchr(name, '/') || name[0] == '.')
		return -ENOENT;
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", PPF_SYSCTL_DIR,
			     name) >= sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, flags);
	return fd < 0 ? -errno : fd;
}

int ppf_tunable_get(const char *name, char *buf, size_t size)
{
	int fd = ppf_tunable_open(name, O_RDONLY);
	ssize_t n;
	int err;

	if (fd < 0)
		return fd;
	n = read(fd, buf, size - 1);
	err = n < 0 ? -errno : 0;
	close(fd);
	if (err)
		return err;
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' ' ||
			 buf[n - 1] == '\t'))
		buf[--n] = '\0';
	return 0;
}

int ppf_tunable_set(const char *name, const char *value)
{
	size_t len = strlen(value);
	int fd = ppf_tunable_open(name, O_WRONLY);
	ssize_t n;
	int err = 0;

	if (fd < 0)
		return fd;
	/* One write of the whole value, as the kernel's handlers expect. */
	n = write(fd, value, len);
	if (n < 0)
		err = -errno;
	else if ((size_t)n != len)
		err = -EIO;
	if (close(fd) && !err)
		err = -errno;
	return err;
}

static int ppf_cmp_name(const void *a, const void *b)
{
	return strcmp((const char *)a, (const char *)b);
}

int ppf_tunable_list(char (*names)[64], int max)
{
	struct dirent *de;
	DIR *d;
	int n = 0;

	d = opendir(PPF_SYSCTL_DIR);
	if (!d)
		return -errno;
	while ((de = readdir(d)) && n < max) {
		/* Ours are short; a name that would not fit is not ours. */
		if (de->d_name[0] == '.' || strlen(de->d_name) >= 64)
			continue;
		memcpy(names[n++], de->d_name, strlen(de->d_name) + 1);
	}
	closedir(d);
	qsort(names, n, sizeof(names[0]), ppf_cmp_name);
	return n;
}
