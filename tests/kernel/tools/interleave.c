// SPDX-License-Identifier: GPL-2.0
/*
 * interleave - two threads, or two processes, reading files in turn
 *
 * usage: interleave threads|procs ROUNDS FILE1 FILE2 [WARM]
 *
 * Two workers, two threads of one process or two processes forked from
 * it, take turns, passing a token through pipes: the first reads WARM (if
 * given), then the second reads WARM; then ROUNDS times the first reads
 * FILE1 and the second FILE2.  So the opens the system sees are, in this
 * order, WARM WARM FILE1 FILE2 FILE1 FILE2 ..., and each worker's own opens
 * are WARM FILE1 FILE1 ... and WARM FILE2 FILE2 ....  The main thread (or
 * process) opens nothing itself.  test_limits.sh tells by what ppf learnt
 * from them whether it followed the workers as one stream of opens or two
 * (vm.predictive_prefetch.contexts).  Built static for the test VM.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int rounds;
static const char *files[2], *warm;
/* pipes[0]: the token to worker 0; pipes[1]: to worker 1 */
static int pipes[2][2];

static int read_file(const char *path)
{
	char buf[65536];
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0) {
		perror(path);
		return -1;
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		;
	close(fd);
	if (n < 0) {
		perror(path);
		return -1;
	}
	return 0;
}

static int take(int me)
{
	char c;

	return read(pipes[me][0], &c, 1) == 1 ? 0 : -1;
}

static int give(int me)
{
	return write(pipes[!me][1], "t", 1) == 1 ? 0 : -1;
}

/* Worker @me: 0 starts, 1 waits for the token first. */
static int worker(int me)
{
	int r;

	if (me == 1 && take(me))
		return -1;
	if (warm && read_file(warm))
		return -1;
	if (give(me))
		return -1;
	for (r = 0; r < rounds; r++) {
		if (take(me) || read_file(files[me]) || give(me))
			return -1;
	}
	return 0;
}

static void *thread_fn(void *arg)
{
	return (void *)(long)worker((int)(long)arg);
}

int main(int argc, char **argv)
{
	int i, failed = 0;

	if (argc < 5 || argc > 6 ||
	    (strcmp(argv[1], "threads") && strcmp(argv[1], "procs"))) {
		fprintf(stderr, "usage: interleave threads|procs ROUNDS FILE1 FILE2 [WARM]\n");
		return 2;
	}
	rounds = atoi(argv[2]);
	files[0] = argv[3];
	files[1] = argv[4];
	warm = argc == 6 ? argv[5] : NULL;
	if (pipe(pipes[0]) || pipe(pipes[1])) {
		perror("pipe");
		return 1;
	}
	if (!strcmp(argv[1], "threads")) {
		pthread_t t[2];
		void *ret;

		for (i = 0; i < 2; i++)
			if (pthread_create(&t[i], NULL, thread_fn, (void *)(long)i)) {
				fprintf(stderr, "interleave: pthread_create failed\n");
				return 1;
			}
		for (i = 0; i < 2; i++) {
			pthread_join(t[i], &ret);
			failed |= ret != NULL;
		}
	} else {
		pid_t pid[2];
		int status;

		for (i = 0; i < 2; i++) {
			pid[i] = fork();
			if (pid[i] < 0) {
				perror("fork");
				return 1;
			}
			if (!pid[i])
				_exit(worker(i) ? 1 : 0);
		}
		for (i = 0; i < 2; i++) {
			if (waitpid(pid[i], &status, 0) < 0 || !WIFEXITED(status) ||
			    WEXITSTATUS(status))
				failed = 1;
		}
	}
	return failed;
}
