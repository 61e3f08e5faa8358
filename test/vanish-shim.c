/* SPDX-License-Identifier: GPL-3.0-or-later */
/* vanish-shim.c: an LD_PRELOAD library for test/T062-new-debug.sh, T144 and T071. The first stat() of the
 * file named by $MAILDEX_TEST_VANISH unlinks it (renames it to $MAILDEX_TEST_VANISH_TO when that is
 * set: `tag` flipping a flag back) before stat'ing, as a mail program moving the file
 * away between the walk that listed it and the read would (notmuch's T050 does the same with a shim
 * on notmuch_database_index_file). Every opendir() of the directory named by
 * $MAILDEX_TEST_OPENDIR_FAIL after the first fails with EMFILE, as in a process that ran out of
 * descriptors between the walk and the listing of the directory's files for indexing. The first
 * opendir() of the directory of $MAILDEX_TEST_RENAME_FROM renames that file to
 * $MAILDEX_TEST_RENAME_TO, and readdir() on that listing returns neither name: a sync tool's rename
 * racing the walk, when readdir sees neither the old name nor the new one (T071). It changes
 * nothing else and is never installed. */
/* RTLD_NEXT needs _GNU_SOURCE, which the build defines. */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
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
    const char *to = getenv("MAILDEX_TEST_VANISH_TO");

    if (target && strcmp(path, target) == 0 && to) /* the first stat finds it renamed */
        rename(path, to);
    else if (target && strcmp(path, target) == 0)
        unlink(path); /* only the first stat finds it there */
    return real_stat(path, sb);
}

typedef DIR *opendir_fn(const char *path);

static DIR *renaming;                 /* the listing that must not see either name */
static const char *rename_from, *rename_to; /* their last components */

/* Renames $MAILDEX_TEST_RENAME_FROM once its directory, path, is opened for listing. */
static void rename_unseen(const char *path, DIR *dh)
{
    static int done;
    const char *from = getenv("MAILDEX_TEST_RENAME_FROM");
    const char *to = getenv("MAILDEX_TEST_RENAME_TO");
    const char *slash = from ? strrchr(from, '/') : NULL;

    if (done || dh == NULL || to == NULL || slash == NULL || strrchr(to, '/') == NULL ||
        strlen(path) != (size_t) (slash - from) || strncmp(path, from, slash - from) != 0)
        return;
    done = 1;
    renaming = dh;
    rename_from = slash + 1;
    rename_to = strrchr(to, '/') + 1;
    rename(from, to);
}

DIR *opendir(const char *path)
{
    static opendir_fn *real_opendir;
    static int opened;
    const char *target = getenv("MAILDEX_TEST_OPENDIR_FAIL");
    DIR *dh;

    if (real_opendir == NULL)
        real_opendir = (opendir_fn *) dlsym(RTLD_NEXT, "opendir");
    if (target && strcmp(path, target) == 0 && opened++ > 0) {
        errno = EMFILE;
        return NULL;
    }
    dh = real_opendir(path);
    rename_unseen(path, dh);
    return dh;
}

typedef struct dirent *readdir_fn(DIR *dh);

struct dirent *readdir(DIR *dh)
{
    static readdir_fn *real_readdir;
    struct dirent *de;

    if (real_readdir == NULL)
        real_readdir = (readdir_fn *) dlsym(RTLD_NEXT, "readdir");
    do
        de = real_readdir(dh);
    while (de && dh == renaming &&
           (strcmp(de->d_name, rename_from) == 0 || strcmp(de->d_name, rename_to) == 0));
    return de;
}

typedef int closedir_fn(DIR *dh);

int closedir(DIR *dh)
{
    static closedir_fn *real_closedir;

    if (real_closedir == NULL)
        real_closedir = (closedir_fn *) dlsym(RTLD_NEXT, "closedir");
    if (dh == renaming)
        renaming = NULL;
    return real_closedir(dh);
}
