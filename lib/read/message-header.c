/* SPDX-License-Identifier: GPL-3.0-or-later */
/* message-header.c: maildex_message_header(), a message's header by name as notmuch_message_get_header
 * answers: Message-ID, Subject and From from what was stored when the message was indexed (notmuch
 * keeps those three in its database), every other header from the message's first file that can be
 * read, through the parser module, which parses that file once for all of its headers. Reads only;
 * it must not touch gmime itself. */
#include "files.h"
#include "mime/mime.h"
#include "search.h"

#include <strings.h>

/* Column 0 of a cached statement run with ?1 = the message's key, on m ("" when there is no row). */
static maildex_status_t stored(maildex_message_t *m, maildex__stmt_id_t id, const char **value)
{
    maildex_db_t *db = m->q->db;
    sqlite3_stmt *stmt;
    bool row = false;
    maildex_status_t st = maildex__stmt(db, id, &stmt);

    if (st != MAILDEX_STATUS_OK)
        return st;
    sqlite3_bind_int64(stmt, 1, m->key);
    st = maildex__step_row(db, stmt, &row, "cannot read a message's header");
    if (st == MAILDEX_STATUS_OK) {
        const char *text = row ? (const char *) sqlite3_column_text(stmt, 0) : NULL;
        *value = talloc_strdup(m, text ? text : "");
        if (*value == NULL)
            st = maildex__error(db, MAILDEX_STATUS_NO_MEMORY, "out of memory");
    }
    sqlite3_reset(stmt);
    return st;
}

struct headers_call {
    const struct maildex__mime_ops *ops;
    char **pairs;
};

static int read_headers(void *ctx, const char *path, void *data, char **error)
{
    struct headers_call *c = data;

    return c->ops->show_headers_file(ctx, path, &c->pairs, error);
}

/* The header from the first of m's files that can be read, which is parsed once: every header of it
 * is kept on m for the next call. */
static maildex_status_t from_file(maildex_message_t *m, const char *name, const char **value)
{
    maildex_db_t *db = m->q->db;
    struct headers_call c = {0};
    const char *const *files;
    size_t n = 0, tried = 0;
    char *error = NULL;
    maildex_status_t st = MAILDEX_STATUS_OK;
    int rc;

    if (m->headers == NULL) {
        st = maildex_message_files(m, &files);
        if (st == MAILDEX_STATUS_OK)
            st = maildex__mime(db, &c.ops);
        if (st != MAILDEX_STATUS_OK)
            return st;
        while (files[n])
            n++;
        if (n == 0)
            return maildex__error(db, MAILDEX_STATUS_FILE_NOT_FOUND, "message id:%s has no file", m->message_id);
        rc = maildex__read_files(m, files, n, 0, read_headers, &c, &tried, &error);
        st = maildex__read_files_status(db, rc, files[tried], error);
        talloc_free(error);
        if (st != MAILDEX_STATUS_OK)
            return st;
        m->headers = c.pairs;
    }
    *value = "";
    for (char **p = m->headers; *p; p += 2)
        if (strcasecmp(p[0], name) == 0) {
            *value = p[1];
            break;
        }
    return MAILDEX_STATUS_OK;
}

maildex_status_t maildex_message_header(maildex_message_t *m, const char *name, const char **value)
{
    *value = NULL;
    if (name == NULL)
        return maildex__error(m->q->db, MAILDEX_STATUS_INVALID_ARGUMENT, "no header name given");
    if (strcasecmp(name, "message-id") == 0) {
        *value = m->message_id;
        return MAILDEX_STATUS_OK;
    }
    if (m->ghost) {
        *value = "";
        return MAILDEX_STATUS_OK;
    }
    if (strcasecmp(name, "subject") == 0)
        return stored(m, MAILDEX__STMT_MESSAGE_SUBJECT, value);
    if (strcasecmp(name, "from") == 0)
        return stored(m, MAILDEX__STMT_MESSAGE_INDEXED_FROM, value);
    return from_file(m, name, value);
}
