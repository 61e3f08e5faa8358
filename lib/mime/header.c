/* SPDX-License-Identifier: GPL-3.0-or-later */
/* header.c: one header of a mail file as notmuch_message_get_header reads a header its database does
 * not keep (maildex_message_header): the file opened as show opens it, the header decoded by
 * maildex__show_file_header. Nothing here knows the database. */
#include "show.h"

int maildex__show_header_file(void *ctx, const char *path, const char *name, char **out, char **error)
{
    void *local = talloc_new(NULL);
    int rc = MAILDEX__PARSE_ERROR;
    GMimeMessage *indexed = NULL;
    GMimeMessage *message = local ? maildex__show_open(local, path, &indexed, &rc, error) : NULL;

    *out = NULL;
    if (message) {
        *out = maildex__show_file_header(ctx, indexed, name);
        if (*out == NULL) {
            rc = MAILDEX__PARSE_ERROR;
            if (error)
                *error = talloc_strdup(local, "out of memory");
        }
    }
    if (error && *error)
        *error = talloc_steal(ctx, *error);
    talloc_free(local);
    return rc;
}
