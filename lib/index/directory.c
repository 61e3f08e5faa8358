/* SPDX-License-Identifier: GPL-3.0-or-later */
/* directory.c: a directory of the mail root as the store knows it (maildex.h, "directories": notmuch's
 * directory documents): its stored mtime, the names of its files and subdirectories, its removal --
 * the rows `new`'s walk (scan.c) keeps, read and written through the same cached statements. The
 * mtime is kept in nanoseconds (st_mtim); notmuch's API speaks seconds. It must not walk the file
 * system. */
#include "store/maildex-private.h"

#include <glib.h>
#include <string.h>

#define NS_PER_SECOND INT64_C(1000000000)

struct maildex_directory {
    maildex_db_t *db;
    int64_t id;
    int64_t mtime_ns;
};

maildex_status_t maildex_db_directory(maildex_db_t *db, const char *path, maildex_directory_t **out)
{
    const char *rel = path;
    size_t len = strlen(db->mail_root);
    sqlite3_stmt *stmt;
    bool row = false;
    maildex_status_t st;

    *out = NULL;
    if (path == NULL)
        return maildex__error(db, MAILDEX_STATUS_INVALID_ARGUMENT, "no directory given");
    if (path[0] == '/') {
        if (strncmp(path, db->mail_root, len) != 0 || (path[len] != '/' && path[len] != '\0'))
            return MAILDEX_STATUS_OK;
        rel = path[len] ? path + len + 1 : "";
    }
    st = maildex__stmt(db, MAILDEX__STMT_DIR_FIND, &stmt);
    if (st != MAILDEX_STATUS_OK)
        return st;
    sqlite3_bind_text(stmt, 1, rel, -1, SQLITE_STATIC);
    st = maildex__step_row(db, stmt, &row, "cannot find a directory");
    if (st == MAILDEX_STATUS_OK && row) {
        maildex_directory_t *d = talloc_zero(db, maildex_directory_t);
        if (d == NULL) {
            st = maildex__error(db, MAILDEX_STATUS_NO_MEMORY, "out of memory");
        } else {
            d->db = db;
            d->id = sqlite3_column_int64(stmt, 0);
            d->mtime_ns = sqlite3_column_int64(stmt, 1);
            *out = d;
        }
    }
    sqlite3_reset(stmt);
    sqlite3_clear_bindings(stmt);
    return st;
}

int64_t maildex_directory_mtime(const maildex_directory_t *d)
{
    return d->mtime_ns / NS_PER_SECOND;
}

/* One write of statement id on the directory's row, in its own transaction (or the caller's). */
static maildex_status_t write_row(maildex_directory_t *d, maildex__stmt_id_t id, int64_t value)
{
    maildex_db_t *db = d->db;
    maildex_status_t st;

    if (db->mode == MAILDEX_DB_READ_ONLY)
        return maildex__error(db, MAILDEX_STATUS_READ_ONLY, "database '%s' was opened read-only", db->path);
    st = maildex__begin(db);
    if (st != MAILDEX_STATUS_OK)
        return st;
    st = maildex__run_ids(db, id, d->id, value, "cannot change a directory");
    if (st == MAILDEX_STATUS_OK)
        return maildex__commit(db);
    maildex__rollback(db);
    return st;
}

maildex_status_t maildex_directory_set_mtime(maildex_directory_t *d, int64_t mtime)
{
    maildex_status_t st = write_row(d, MAILDEX__STMT_DIR_SET_MTIME, mtime * NS_PER_SECOND);

    if (st == MAILDEX_STATUS_OK)
        d->mtime_ns = mtime * NS_PER_SECOND;
    return st;
}

maildex_status_t maildex_directory_delete(maildex_directory_t *d)
{
    return write_row(d, MAILDEX__STMT_DIR_DELETE, 0);
}

static gint compare_names(gconstpointer a, gconstpointer b)
{
    return strcmp(*(const char *const *) a, *(const char *const *) b);
}

maildex_status_t maildex_directory_children(maildex_directory_t *d, bool directories, char ***out)
{
    maildex_db_t *db = d->db;
    GPtrArray *names = g_ptr_array_new();
    sqlite3_stmt *stmt = NULL;
    bool row;
    maildex_status_t st = maildex__stmt(db, directories ? MAILDEX__STMT_DIR_CHILDREN : MAILDEX__STMT_DIR_FILES, &stmt);

    *out = NULL;
    if (st == MAILDEX_STATUS_OK)
        sqlite3_bind_int64(stmt, 1, d->id);
    while (st == MAILDEX_STATUS_OK &&
           (st = maildex__step_row(db, stmt, &row, "cannot list a directory")) == MAILDEX_STATUS_OK && row) {
        const char *name = (const char *) sqlite3_column_text(stmt, 1), *slash;
        if (directories && (slash = strrchr(name, '/')) != NULL) /* a path: its last component */
            name = slash + 1;
        g_ptr_array_add(names, (gpointer) talloc_strdup(db, name));
    }
    if (st == MAILDEX_STATUS_OK) {
        g_ptr_array_sort(names, compare_names);
        *out = talloc_array(db, char *, names->len + 1);
        for (guint i = 0; *out && i < names->len; i++)
            (*out)[i] = talloc_steal(*out, names->pdata[i]);
        if (*out)
            (*out)[names->len] = NULL;
        else
            st = maildex__error(db, MAILDEX_STATUS_NO_MEMORY, "out of memory");
    }
    if (st != MAILDEX_STATUS_OK || *out == NULL)
        for (guint i = 0; i < names->len; i++)
            talloc_free(names->pdata[i]);
    g_ptr_array_free(names, TRUE);
    if (stmt)
        sqlite3_reset(stmt);
    return st;
}

void maildex_directory_free(maildex_directory_t *d)
{
    talloc_free(d);
}
