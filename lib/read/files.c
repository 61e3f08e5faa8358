/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Reading one of a message's files (files.h): without the database, for show.c and for show's
 * read-ahead thread (prefetch.c); and the first of a stored message's files that parses, for address
 * and reindex. It never changes the store: reindex drops the files found gone. */
#include "files.h"
#include "mime/mime.h"
#include "mime/parse.h"
#include "util/maildir.h"

#include <errno.h>
#include <sys/stat.h>

int maildex__read_files(void *ctx, const char *const *files, size_t n, int duplicate, maildex__open_fn *fn,
                        void *data, size_t *tried, char **error)
{
    int rc = MAILDEX__PARSE_ERROR;

    *error = NULL;
    for (size_t i = duplicate > 0 ? (size_t) duplicate - 1 : 0; i < n; i++) {
        talloc_free(*error);
        *error = NULL;
        *tried = i;
        rc = fn(ctx, files[i], data, error);
        if (rc != MAILDEX__PARSE_ERROR || duplicate > 0)
            break;
    }
    return rc;
}

maildex_status_t maildex__read_files_status(maildex_db_t *db, int rc, const char *file, const char *error)
{
    if (rc == MAILDEX__PARSE_ERROR)
        return maildex__error(db, MAILDEX_STATUS_FILE_NOT_FOUND, "cannot read '%s': %s", file,
                              error ? error : "unknown error");
    if (rc == MAILDEX__PARSE_NOT_MAIL)
        return maildex__error(db, MAILDEX_STATUS_FILE_NOT_EMAIL, "cannot parse '%s': %s", file,
                              error ? error : "no message found");
    return MAILDEX_STATUS_OK;
}

static bool is_gone(const char *path)
{
    struct stat sb;
    return stat(path, &sb) != 0 && (errno == ENOENT || errno == ENOTDIR);
}

maildex_status_t maildex__parse_first_file(maildex_db_t *db, const struct maildex__mime_ops *mime, void *ctx,
                                           int64_t key, const struct maildex__parse_options *opts,
                                           struct maildex__parsed_message **out, GArray *gone)
{
    sqlite3_stmt *stmt;
    bool row;
    maildex_status_t st = maildex__stmt(db, MAILDEX__STMT_FILE_FIRST_OF_MESSAGE, &stmt);

    *out = NULL;
    if (st)
        return st;
    sqlite3_bind_int64(stmt, 1, key);
    while ((*out == NULL || gone) && (st = maildex__step_row(db, stmt, &row, "cannot read files")) == 0 &&
           row) {
        char *path = maildex__path_join(ctx, db->mail_root, (const char *) sqlite3_column_text(stmt, 0),
                                        (const char *) sqlite3_column_text(stmt, 1));
        int64_t file_id = sqlite3_column_int64(stmt, 2);
        struct maildex__parsed_message *m = NULL;
        if (path == NULL) {
            st = MAILDEX_STATUS_NO_MEMORY;
            break;
        }
        if (*out == NULL && mime->parse_file(ctx, path, opts, &m, NULL) == MAILDEX__PARSE_OK)
            *out = m;
        else if (m == NULL && gone && is_gone(path))
            g_array_append_val(gone, file_id);
    }
    sqlite3_reset(stmt);
    return st;
}
