/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Reading one of a message's files without the database (files.h), for show.c and for show's
 * read-ahead thread (prefetch.c). */
#include "files.h"
#include "mime/parse.h"

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
