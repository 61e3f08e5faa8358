/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What the walk and the relisting of a new directory skip (see ignore.h): new.ignore's names and
 * regular expressions, and the database's own files. Reads no directory, writes nothing. */
#include "ignore.h"

#include "util/regexp.h"

#include <stdlib.h>
#include <string.h>

/* Sets ig->self_dir and self_name when the database's directory is the mail root or below it,
 * comparing the names with symbolic links resolved. */
static void find_self(struct maildex__ignore *ig, maildex_db_t *db, GStringChunk *chunk)
{
    char *dir = g_path_get_dirname(db->path), *base = g_path_get_basename(db->path);
    char *real_dir = realpath(dir, NULL), *real_root = realpath(db->mail_root, NULL);
    const char *d = real_dir ? real_dir : dir, *r = real_root ? real_root : db->mail_root;
    size_t n = strlen(r);

    if (strncmp(d, r, n) == 0 && (d[n] == '\0' || d[n] == '/')) {
        ig->self_dir = g_string_chunk_insert(chunk, d[n] ? d + n + 1 : "");
        ig->self_name = g_string_chunk_insert(chunk, base);
    }
    free(real_dir);
    free(real_root);
    g_free(dir);
    g_free(base);
}

/* notmuch's new.ignore: an entry starting with '/' is a POSIX extended regex between slashes, any
 * other a name. A pattern that is malformed or does not compile fails the run before anything is
 * read, as in notmuch: skipping it would index what the user meant to keep out. */
maildex_status_t maildex__ignore_init(struct maildex__ignore *ig, maildex_db_t *db, const char *const *ignore,
                                      GStringChunk *chunk)
{
    maildex_status_t st = MAILDEX_STATUS_OK;

    find_self(ig, db, chunk);
    ig->names = g_ptr_array_new();
    ig->regexes = g_ptr_array_new_with_free_func((GDestroyNotify) maildex__regex_free);
    for (size_t i = 0; ignore && ignore[i] && !st; i++) {
        const char *e = ignore[i];
        size_t len = strlen(e);
        struct maildex__regex *re;
        char *pattern, *error;
        if (len == 0)
            continue;
        if (e[0] != '/') {
            g_ptr_array_add(ig->names, (gpointer) e);
            continue;
        }
        if (len < 3 || e[len - 1] != '/') {
            st = maildex__error(db, MAILDEX_STATUS_INVALID_ARGUMENT, "malformed pattern '%s' in new.ignore", e);
            continue;
        }
        pattern = talloc_strndup(NULL, e + 1, len - 2);
        error = pattern ? maildex__regex_compile(pattern, pattern, &re) : NULL;
        if (pattern == NULL)
            st = MAILDEX_STATUS_NO_MEMORY;
        else if (error)
            st = maildex__error(db, MAILDEX_STATUS_INVALID_ARGUMENT, "%s in new.ignore", error);
        else
            g_ptr_array_add(ig->regexes, re);
        talloc_free(pattern);
    }
    return st;
}

void maildex__ignore_clear(struct maildex__ignore *ig)
{
    if (ig->names)
        g_ptr_array_free(ig->names, TRUE);
    if (ig->regexes)
        g_ptr_array_free(ig->regexes, TRUE);
    ig->names = ig->regexes = NULL;
}

bool maildex__ignored(const struct maildex__ignore *ig, const char *dir, const char *name)
{
    bool hit = false;
    char *rel;

    for (guint i = 0; i < ig->names->len; i++)
        if (strcmp(name, ig->names->pdata[i]) == 0)
            return true;
    if (ig->regexes->len == 0)
        return false;
    rel = dir[0] ? g_strdup_printf("%s/%s", dir, name) : g_strdup(name);
    for (guint i = 0; i < ig->regexes->len && !hit; i++)
        hit = maildex__regex_match(ig->regexes->pdata[i], rel);
    g_free(rel);
    return hit;
}

/* notmuch's database directory and maildex's, skipped at the top of the mail root only: deeper down
 * a folder of either name is mail like any other, as notmuch indexes it. And the database's own files
 * wherever they are below the root (a database.path inside the mail): they are not mail. */
bool maildex__ignore_internal(const struct maildex__ignore *ig, const char *dir, const char *name)
{
    if (ig->self_dir && strcmp(dir, ig->self_dir) == 0 && strncmp(name, ig->self_name, strlen(ig->self_name)) == 0)
        return true;
    return dir[0] == '\0' && (strcmp(name, ".notmuch") == 0 || strcmp(name, ".maildex") == 0);
}
