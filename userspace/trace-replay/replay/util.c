// SPDX-License-Identifier: GPL-2.0
/*
 * ppf-replay: helpers shared by build-tree and run (paths in the replay
 * tree, the content pattern, directories, loading a trace, the clock).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

#include "replay.h"

static int bad_component(const char *c, size_t n)
{
	return n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.');
}

char *replay_map_path(const char *dir, const char *path)
{
	const char *p, *mid;
	size_t dl = strlen(dir), pl = strlen(path);
	char *out;

	while (dl > 1 && dir[dl - 1] == '/')
		dl--;
	if (strcmp(path, ".") == 0) {
		out = malloc(dl + 1);
		if (!out)
			return NULL;
		memcpy(out, dir, dl);
		out[dl] = 0;
		return out;
	}
	p = path[0] == '/' ? path + 1 : path;
	/* every component must be a real name: the tree stays under DIR */
	for (const char *c = p;;) {
		const char *e = strchr(c, '/');
		size_t n = e ? (size_t)(e - c) : strlen(c);

		if (bad_component(c, n)) {
			errno = EINVAL;
			return NULL;
		}
		if (!e)
			break;
		c = e + 1;
	}
	mid = path[0] == '/' ? "/_abs/" : "/";
	out = malloc(dl + strlen(mid) + pl + 1);
	if (!out)
		return NULL;
	memcpy(out, dir, dl);
	strcpy(out + dl, mid);
	strcat(out, p);
	return out;
}

void replay_fill_pattern(unsigned char *buf, size_t len)
{
	uint64_t x = 0x9e3779b97f4a7c15ull;

	for (size_t i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		buf[i] = (unsigned char)(x >> 24) ? (unsigned char)(x >> 24) : 0x5a;
	}
}

int replay_mkdir_p(const char *path)
{
	struct stat st;

	if (stat(path, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			return 0;
		errno = ENOTDIR;
		return -1;
	}
	if (replay_mkdir_parents(path))
		return -1;
	if (mkdir(path, 0755) && errno != EEXIST)
		return -1;
	return 0;
}

int replay_mkdir_parents(const char *path)
{
	char *tmp = strdup(path), *s;
	int ret = 0;

	if (!tmp)
		return -1;
	s = strrchr(tmp, '/');
	if (s && s != tmp) {
		*s = 0;
		ret = replay_mkdir_p(tmp);
	}
	free(tmp);
	return ret;
}

struct ppf_trace *replay_load_trace(const char *path)
{
	struct ppf_trace *t;
	char err[1024];

	if (ppf_trace_load(path, &t, err, sizeof(err))) {
		fprintf(stderr, "ppf-replay: %s\n", err);
		exit(1);
	}
	return t;
}

uint64_t replay_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
