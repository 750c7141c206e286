/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ppf-replay: rebuild the file tree a ppf trace touched and replay the
 * trace's calls against it with their think time (docs/replay.md).
 * The helpers below live in util.c.
 */
#ifndef PPF_REPLAY_H
#define PPF_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "../trace.h"

#define REPLAY_PAGE 4096u

/* Map a trace path to the replay tree: "rel" -> DIR/rel, "/abs" -> DIR/_abs/abs,
 * "." -> DIR. NULL (errno EINVAL) for paths with "." or ".." components or
 * empty components, ENOMEM on allocation failure. */
char *replay_map_path(const char *dir, const char *path);

/* Fill buf with the deterministic, never-zero content pattern. */
void replay_fill_pattern(unsigned char *buf, size_t len);

/* Create every directory above path (not path itself); 0 or -1 with errno. */
int replay_mkdir_parents(const char *path);
/* mkdir -p path; 0 or -1 with errno. */
int replay_mkdir_p(const char *path);

/* The two commands (tree.c, run.c). */
int replay_build_tree(int argc, char **argv);
int replay_run(int argc, char **argv);

/* Load a trace; on error print the parser's message and exit 1. */
struct ppf_trace *replay_load_trace(const char *path);

/* CLOCK_MONOTONIC in ns. */
uint64_t replay_now(void);

#endif
