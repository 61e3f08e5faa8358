/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The replay driver: runs a harness's LLVMFuzzerTestOneInput on every file of its seed corpus, as a TAP
 * test, so inputs that once crashed stay fixed in the ordinary gcc build, under the sanitizers too.
 *
 *     test/fuzz/replay-NAME              every file of $srcdir/test/fuzz/corpus-NAME, sorted
 *     test/fuzz/replay-NAME FILE|DIR...  just those (a crash file libFuzzer wrote, say)
 *
 * It reports one TAP result for the lot, naming each file in a comment before running it, so a file
 * that crashes the harness (which ends the program) is the last one named in the log. It knows
 * nothing of the harness but its entry point; FUZZ_CORPUS names the corpus (set by Makefile.am). */
#include "fuzz.h"

#include <dirent.h>
#include <errno.h>
#include <glib.h>
#include <string.h>
#include <sys/stat.h>

#ifndef FUZZ_CORPUS
#error "FUZZ_CORPUS must name the corpus directory"
#endif

static int replayed, failures;

/* The file's bytes in a buffer of exactly their size (g_file_get_contents adds a NUL), so the
 * sanitizers see a read past the end as in libFuzzer's run; NULL with *error set when unreadable. */
static uint8_t *read_exactly(const char *path, size_t *size, GError **error)
{
    gchar *contents;
    gsize len;
    uint8_t *data;

    if (!g_file_get_contents(path, &contents, &len, error))
        return NULL;
    data = g_malloc(len ? len : 1);
    memcpy(data, contents, len);
    g_free(contents);
    *size = len;
    return data;
}

static void replay_file(const char *path)
{
    GError *error = NULL;
    size_t size = 0;
    uint8_t *data;

    /* Printed first and flushed, so a crash leaves the culprit's name in the log. */
    printf("# %s\n", path);
    fflush(stdout);
    data = read_exactly(path, &size, &error);
    if (data == NULL) {
        printf("# cannot read: %s\n", error->message);
        g_error_free(error);
        failures++;
        return;
    }
    LLVMFuzzerTestOneInput(data, size);
    g_free(data);
    replayed++;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

static void replay_path(const char *path)
{
    struct stat st;
    struct dirent **names;
    int n;

    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
        replay_file(path);
        return;
    }
    n = scandir(path, &names, NULL, by_name);
    if (n < 0) {
        printf("# cannot list '%s': %s\n", path, strerror(errno));
        failures++;
        return;
    }
    for (int i = 0; i < n; i++) {
        const char *name = names[i]->d_name;
        /* A README.md describes the corpus; hidden files (and . and ..) are no inputs. */
        if (name[0] != '.' && strcmp(name, "README.md") != 0) {
            char *file = g_build_filename(path, name, NULL);
            replay_path(file);
            g_free(file);
        }
        free(names[i]);
    }
    free(names);
}

int main(int argc, char **argv)
{
    const char *srcdir = getenv("srcdir");
    char corpus[4096];

    printf("1..1\n");
    if (argc > 1) {
        for (int i = 1; i < argc; i++)
            replay_path(argv[i]);
    } else {
        snprintf(corpus, sizeof corpus, "%s/test/fuzz/%s", srcdir ? srcdir : ".", FUZZ_CORPUS);
        replay_path(corpus);
    }
    /* An empty corpus would prove nothing. */
    if (failures > 0 || replayed == 0)
        printf("not ok 1 - %s: %d files replayed, %d unreadable\n", FUZZ_CORPUS, replayed, failures);
    else
        printf("ok 1 - %s: %d files replayed\n", FUZZ_CORPUS, replayed);
    return 0;
}
