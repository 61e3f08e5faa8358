/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The driver behind TEST_MAIN: runs the listed tests (or those named in argv), prints TAP, and gives each
 * test a scratch directory on request. It knows nothing about maildex. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "test.h"

#include <ftw.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <unistd.h>

jmp_buf test__abort;
int test__failed;
const char *test_srcdir = ".";
const char *test_tmpdir = "/tmp";

static char scratch_root[2048];
static int scratch_count;

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void) sb, (void) flag, (void) ftw;
    return remove(path);
}

static void remove_scratch(void)
{
    if (scratch_root[0] && !getenv("MAILDEX_TEST_KEEP"))
        nftw(scratch_root, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

const char *test_scratch_dir(const char *label)
{
    static char dir[4096 + 64];

    if (!scratch_root[0]) {
        snprintf(scratch_root, sizeof scratch_root, "%s/maildex-unit-XXXXXX", test_tmpdir);
        if (!mkdtemp(scratch_root)) {
            perror(scratch_root);
            exit(99);
        }
        atexit(remove_scratch);
    }
    snprintf(dir, sizeof dir, "%s/%d-%.60s", scratch_root, ++scratch_count, label);
    if (mkdir(dir, 0700) != 0) {
        perror(dir);
        exit(99);
    }
    return dir;
}

static int selected(int argc, char **argv, const char *name)
{
    if (argc < 2)
        return 1;
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], name) == 0)
            return 1;
    return 0;
}

int test_run(int argc, char **argv, const struct test_entry *tests, size_t n)
{
    size_t planned = 0;
    volatile size_t number = 0;
    volatile int failures = 0;

    if (getenv("srcdir"))
        test_srcdir = getenv("srcdir");
    if (getenv("TMPDIR"))
        test_tmpdir = getenv("TMPDIR");
    for (size_t i = 0; i < n; i++)
        planned += selected(argc, argv, tests[i].name);
    printf("1..%zu\n", planned);
    fflush(stdout); /* not again by a child a test forks (gpgme's helpers) */
    for (volatile size_t i = 0; i < n; i++) {
        if (!selected(argc, argv, tests[i].name))
            continue;
        test__failed = 0;
        if (setjmp(test__abort) == 0)
            tests[i].fn();
        number++;
        printf("%s %zu - %s\n", test__failed ? "not ok" : "ok", number, tests[i].name);
        fflush(stdout);
        failures += test__failed;
    }
    return failures ? 1 : 0;
}
