#!/usr/bin/env bash
# Record the `configure` workload: a GNU Autoconf configure script run from
# a clean tree, the step before most builds from source.  It runs the shell,
# sed, grep, rm, cat, the C compiler (gcc, cc1, as, collect2, ld) and the
# programs it builds about a hundred times, each a short process that maps
# the same few libraries, and creates and deletes its conftest files.
#
#   eval/workloads/configure/record.sh [RUNS]        (default 2)
#
# Writes eval/workloads/configure/configure-I.trace.gz for I = 1..RUNS.
# configure.ac below asks what real projects ask (the compiler, headers,
# functions, a library, type sizes); autoconf makes the script once, outside
# the recording.  Installs what is missing from Debian (as root): autoconf
# gcc libc6-dev make strace zlib1g-dev.  Recorded by a session as a workload
# ppf was not tuned on.
#
# Environment: PPF_WORKDIR (default /var/tmp/ppf-work; uses $PPF_WORKDIR/configure),
# PPF_TRACE (default <repo>/userspace/trace-replay/ppf-trace).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$HERE/../lib.sh"
ppf_record_begin configure "${1:-}"  # say die REPO W SCRATCH PPF_TRACE RUNS, the C locale
ppf_ensure_packages autoconf gcc libc6-dev make strace zlib1g-dev
ppf_need_recorder

rm -rf "$W"; mkdir -p "$SCRATCH/src"
cd "$SCRATCH/src"
cat > configure.ac <<'EOS'
AC_INIT([ppf-configure], [1.0])
AC_CONFIG_SRCDIR([main.c])
AC_CONFIG_HEADERS([config.h])
AC_PROG_CC
AC_PROG_INSTALL
AC_PROG_MAKE_SET
AC_CHECK_HEADERS([fcntl.h limits.h stdint.h stdlib.h string.h strings.h sys/time.h unistd.h zlib.h])
AC_CHECK_HEADERS([sys/mman.h sys/stat.h sys/types.h sys/wait.h pthread.h])
AC_TYPE_SIZE_T
AC_TYPE_SSIZE_T
AC_TYPE_OFF_T
AC_TYPE_PID_T
AC_TYPE_UINT32_T
AC_TYPE_UINT64_T
AC_CHECK_SIZEOF([long])
AC_CHECK_SIZEOF([void *])
AC_C_BIGENDIAN
AC_C_INLINE
AC_FUNC_MMAP
AC_CHECK_FUNCS([clock_gettime fdatasync ftruncate getpagesize memmove memset munmap posix_fadvise pread pwrite readahead strdup strerror strtoul])
AC_SEARCH_LIBS([pthread_create], [pthread])
AC_SEARCH_LIBS([sqrt], [m])
AC_CHECK_LIB([z], [inflate])
AC_CONFIG_FILES([Makefile])
AC_OUTPUT
EOS
cat > main.c <<'EOS'
#include "config.h"
int main(void) { return 0; }
EOS
cat > Makefile.in <<'EOS'
CC = @CC@
CFLAGS = @CFLAGS@
LIBS = @LIBS@
main: main.c
	$(CC) $(CFLAGS) -o $@ main.c $(LIBS)
EOS
# The auxiliary scripts configure runs (the host's name, install), as
# autoreconf --install would copy them; autoconf ships them.
cp /usr/share/autoconf/build-aux/config.guess /usr/share/autoconf/build-aux/config.sub \
  /usr/share/autoconf/build-aux/install-sh .
autoheader
autoconf
rm -rf autom4te.cache
# One run before the recordings: what a first run leaves behind (nothing
# but its outputs, removed before each recording) is not in them.
./configure > /dev/null
rm -f config.status config.log config.h Makefile
# Each run starts from the tree without configure's outputs and leaves it
# so (--untraced-run: the command restores its own starting state).
cat > "$SCRATCH/work.sh" <<'EOS'
cd "$1"
./configure > /dev/null
rm -f config.status config.log config.h Makefile
EOS

ppf_record_runs configure "$RUNS" bash "$SCRATCH/work.sh" "$SCRATCH/src"
