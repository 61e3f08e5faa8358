/* The replay driver: runs a harness's LLVMFuzzerTestOneInput on every file of its seed corpus, as a TAP
 * test, so inputs that once crashed stay fixed in the ordinary gcc build, under the sanitizers too.
 *
 *     test/fuzz/replay-NAME              every file of $srcdir/test/fuzz/corpus-NAME, sorted
 *     test/fuzz/replay-NAME FILE|DIR...  just those (a crash file libFuzzer wrote, say)
 *
 * A file that crashes the harness ends the program, with its name as the last line printed. It knows
 * nothing of the harness but its entry point; FUZZ_CORPUS names the corpus (set by Makefile.am). */
#include "fuzz.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>

#ifndef FUZZ_CORPUS
#error "FUZZ_CORPUS must name the corpus directory"
#endif

static int number, failures;
static size_t label_skip; /* bytes of each path left out of the test names (the source tree's) */

static bool read_file(const char *path, uint8_t **data, size_t *size)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf = NULL;
    size_t len = 0, cap = 0, n;

    if (f == NULL)
        return false;
    do {
        if (len == cap) {
            uint8_t *grown = realloc(buf, cap ? cap * 2 : 4096);
            if (grown == NULL) {
                free(buf);
                fclose(f);
                return false;
            }
            buf = grown;
            cap = cap ? cap * 2 : 4096;
        }
        n = fread(buf + len, 1, cap - len, f);
        len += n;
    } while (n > 0);
    fclose(f);
    /* Exactly `len` bytes, so the sanitizers see a read past the end as libFuzzer's run would. */
    *data = malloc(len ? len : 1);
    if (*data)
        memcpy(*data, buf, len);
    free(buf);
    *size = len;
    return *data != NULL;
}

static void replay_file(const char *path)
{
    uint8_t *data;
    size_t size;

    const char *label = strlen(path) > label_skip ? path + label_skip : path;

    number++;
    /* Printed first and flushed, so a crash leaves the culprit's name in the log. */
    printf("# %s\n", path);
    fflush(stdout);
    if (!read_file(path, &data, &size)) {
        printf("not ok %d - %s: cannot read: %s\n", number, label, strerror(errno));
        failures++;
        return;
    }
    /* libFuzzer passes a buffer of exactly `size` bytes, no NUL after: so does this. */
    LLVMFuzzerTestOneInput(data, size);
    free(data);
    printf("ok %d - %s\n", number, label);
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
        printf("not ok %d - %s: cannot list: %s\n", ++number, path, strerror(errno));
        failures++;
        return;
    }
    for (int i = 0; i < n; i++) {
        const char *name = names[i]->d_name;
        char *file;
        /* README.md and the like describe the corpus; inputs have no dot in front or extension. */
        if (name[0] != '.' && strcmp(name, "README.md") != 0 &&
            (file = malloc(strlen(path) + strlen(name) + 2)) != NULL) {
            sprintf(file, "%s/%s", path, name);
            replay_path(file);
            free(file);
        }
        free(names[i]);
    }
    free(names);
}

int main(int argc, char **argv)
{
    const char *srcdir = getenv("srcdir");
    char corpus[4096];

    if (argc > 1) {
        for (int i = 1; i < argc; i++)
            replay_path(argv[i]);
    } else {
        snprintf(corpus, sizeof corpus, "%s/test/fuzz/%s", srcdir ? srcdir : ".", FUZZ_CORPUS);
        label_skip = strlen(corpus) - strlen(FUZZ_CORPUS);
        replay_path(corpus);
    }
    printf("1..%d\n", number);
    return failures > 0;
}
