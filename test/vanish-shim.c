/* SPDX-License-Identifier: GPL-3.0-or-later */
/* vanish-shim.c: an LD_PRELOAD library for test/T062-new-debug.sh and T144. The first stat() of the
 * file named by $MAILDEX_TEST_VANISH unlinks it before stat'ing, as a mail program moving the file
 * away between the walk that listed it and the read would (notmuch's T050 does the same with a shim
 * on notmuch_database_index_file). Every opendir() of the directory named by
 * $MAILDEX_TEST_OPENDIR_FAIL after the first fails with EMFILE, as in a process that ran out of
 * descriptors between the walk and the listing of the directory's files for indexing. It changes
 * nothing else and is never installed. */
/* RTLD_NEXT needs _GNU_SOURCE, which the build defines. */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef int stat_fn(const char *path, struct stat *sb);

static stat_fn *real_stat;

__attribute__((constructor)) static void find_real_stat(void)
{
    real_stat = (stat_fn *) dlsym(RTLD_NEXT, "stat");
}

int stat(const char *restrict path, struct stat *restrict sb)
{
    const char *target = getenv("MAILDEX_TEST_VANISH");

    if (target && strcmp(path, target) == 0)
        unlink(path); /* only the first stat finds it there */
    return real_stat(path, sb);
}

typedef DIR *opendir_fn(const char *path);

DIR *opendir(const char *path)
{
    static opendir_fn *real_opendir;
    static int opened;
    const char *target = getenv("MAILDEX_TEST_OPENDIR_FAIL");

    if (real_opendir == NULL)
        real_opendir = (opendir_fn *) dlsym(RTLD_NEXT, "opendir");
    if (target && strcmp(path, target) == 0 && opened++ > 0) {
        errno = EMFILE;
        return NULL;
    }
    return real_opendir(path);
}
