/* SPDX-License-Identifier: GPL-3.0-or-later */
/* header.c: the headers of a mail file as notmuch_message_get_header reads those its database does
 * not keep (maildex_message_header): the file opened and parsed once as show opens it, every header
 * decoded by maildex__show_file_header, so that a client reading To, Date and Cc of one message pays
 * for one parse. Nothing here knows the database. */
#include "show.h"

#include <strings.h>

/* Whether name is among the n pairs already in list. */
static bool seen(char **list, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcasecmp(list[2 * i], name) == 0)
            return true;
    return false;
}

/* The pairs of message's headers on ctx, NULL only when out of memory. */
static char **all_headers(void *ctx, GMimeMessage *message)
{
    GMimeHeaderList *headers = message ? g_mime_object_get_header_list(GMIME_OBJECT(message)) : NULL;
    int count = headers ? g_mime_header_list_get_count(headers) : 0;
    char **list = talloc_array(ctx, char *, 2 * (size_t) count + 1);
    size_t n = 0;

    for (int i = 0; list && i < count; i++) {
        const char *name = g_mime_header_get_name(g_mime_header_list_get_header_at(headers, i));
        if (name == NULL || seen(list, n, name))
            continue;
        list[2 * n] = talloc_strdup(list, name);
        list[2 * n + 1] = maildex__show_file_header(list, message, name);
        if (list[2 * n] == NULL || list[2 * n + 1] == NULL) {
            talloc_free(list);
            return NULL;
        }
        n++;
    }
    if (list)
        list[2 * n] = NULL;
    return list;
}

int maildex__show_headers_file(void *ctx, const char *path, char ***out, char **error)
{
    void *local = talloc_new(NULL);
    int rc = MAILDEX__PARSE_ERROR;
    GMimeMessage *indexed = NULL;
    GMimeMessage *message = local ? maildex__show_open(local, path, &indexed, &rc, error) : NULL;

    *out = NULL;
    if (message) {
        *out = all_headers(ctx, indexed);
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
