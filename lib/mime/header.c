/* SPDX-License-Identifier: GPL-3.0-or-later */
/* header.c: the headers of a mail file as notmuch_message_get_header reads those its database does
 * not keep (maildex_message_header): the file's header block read and parsed once (the whole file as
 * show opens it when it is gzip or an mbox), every header decoded by maildex__show_file_header, so
 * that a client reading To, Date and Cc of one message pays for one short parse. Nothing here knows
 * the database. */
#include "show.h"

#include "gzip.h"

#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* Whether name is among the n pairs already in list. */
static bool seen(char **list, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcasecmp(list[2 * i], name) == 0)
            return true;
    return false;
}

/* Whether gmime's decoding would hand value back unchanged: ASCII with no encoded word ("=?"), which
 * is most headers (136,488 of the bench and test corpora's, every one unchanged). Decoding the rest
 * only keeps a client's header reads cheap. */
static bool plain_ascii(const char *value)
{
    for (const unsigned char *p = (const unsigned char *) value; *p; p++)
        if (*p >= 0x80 || (p[0] == '=' && p[1] == '?'))
            return false;
    return true;
}

/* Header name of message as maildex__show_file_header gives it, on ctx. */
static char *header_value(void *ctx, GMimeMessage *message, const char *name)
{
    const char *raw = g_mime_object_get_header(GMIME_OBJECT(message), name);

    if (raw && plain_ascii(raw) && strcasecmp(name, "received") != 0 && strcasecmp(name, "delivered-to") != 0)
        return talloc_strdup(ctx, raw);
    return maildex__show_file_header(ctx, message, name);
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
        list[2 * n + 1] = header_value(list, message, name);
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

/* The end of the header block in the n bytes at p (just past its empty line), or 0 when none yet. */
static size_t header_end(const char *p, size_t n)
{
    for (size_t i = 0; i + 1 < n; i++)
        if (p[i] == '\n' && (p[i + 1] == '\n' || (p[i + 1] == '\r' && i + 2 < n && p[i + 2] == '\n')))
            return i + (p[i + 1] == '\n' ? 2 : 3);
    return 0;
}

/* The file's header block alone, parsed from memory: one open and a read or two instead of a parse of
 * the whole file through two streams. NULL (the caller parses the whole file as show does) for a file
 * that is gzip, starts with "From " (an mbox: whether it holds one message decides), starts with its
 * body, or cannot be read. */
static GMimeMessage *parse_head(void *ctx, const char *path)
{
    size_t size = 0, n = 0, end = 0, cap = 0;
    int *fd = maildex__open_regular(ctx, path, NULL);
    struct stat st;
    char *buf = NULL;
    GMimeStream *stream;
    GMimeParser *parser;
    GMimeMessage *message;

    maildex__message_parse_init();
    if (fd != NULL && fstat(*fd, &st) == 0)
        size = (size_t) st.st_size;
    while (fd && end == 0 && n < size) {
        ssize_t got;
        if (n == cap && (buf = talloc_realloc(ctx, buf, char, cap = cap ? 2 * cap : 8192)) == NULL)
            return NULL;
        if ((got = read(*fd, buf + n, cap - n)) <= 0)
            return NULL;
        n += (size_t) got;
        if (n >= 5 && (maildex__is_gzip(buf, n) || memcmp(buf, "From ", 5) == 0))
            return NULL;
        end = header_end(buf, n);
    }
    if (fd == NULL || n < 5 || buf[0] == '\n' || buf[0] == '\r')
        return NULL;
    stream = maildex__hold_gobject(ctx, g_mime_stream_mem_new_with_buffer(buf, end ? end : n));
    parser = stream ? maildex__hold_gobject(ctx, g_mime_parser_new_with_stream(stream)) : NULL;
    if (parser == NULL)
        return NULL;
    g_mime_parser_set_format(parser, GMIME_FORMAT_MESSAGE);
    message = maildex__hold_gobject(ctx, g_mime_parser_construct_message(parser, NULL));
    if (message && g_mime_header_list_get_count(g_mime_object_get_header_list(GMIME_OBJECT(message))) == 0)
        return NULL;
    return message;
}

int maildex__show_headers_file(void *ctx, const char *path, char ***out, char **error)
{
    void *local = talloc_new(NULL);
    int rc = MAILDEX__PARSE_ERROR;
    GMimeMessage *indexed = local ? parse_head(local, path) : NULL;
    GMimeMessage *message = indexed;

    if (local && message)
        rc = MAILDEX__PARSE_OK;
    else if (local)
        message = maildex__show_open(local, path, &indexed, &rc, error);
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
