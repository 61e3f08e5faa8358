/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What show and reply read out of gmime's objects besides the tree's shape (see show.h): opening a
 * file as notmuch's show opens it, a text part's text exactly as notmuch 0.37 prints it
 * (notmuch-show.c show_text_part_content), and the header strings notmuch builds with its gmime helpers
 * (util/gmime-extra.c, lib/message-file.c). Each follows notmuch's gmime calls one for one, because the
 * bytes printed depend on them (which filters run, in which order, unflushed); it must keep no state
 * and hold every gmime object it creates only until it returns. */
#include "show.h"

#include "gzip.h"

#include <string.h>
#include <strings.h>
#include <unistd.h>

char *maildex__show_strdup(void *ctx, const char *s)
{
    return s ? talloc_strdup(ctx, s) : NULL;
}

/* The file's bytes from the top, over a descriptor of its own, decompressed when it is gzip (as notmuch's
 * show reads it); held by ctx. NULL when out of memory or descriptors. Descriptors of one file share its
 * offset: each stream starts from the top, and gmime seeks before it reads a part again. */
static GMimeStream *open_stream(void *ctx, int fd)
{
    int own = lseek(fd, 0, SEEK_SET) == 0 ? dup(fd) : -1;
    GMimeStream *file = own < 0 ? NULL : maildex__hold_gobject(ctx, g_mime_stream_fs_new(own));

    return file ? maildex__gzip_stream(ctx, file) : NULL;
}

/* A parse of the file held by ctx (gmime reads the parts from the file as they are printed). */
static GMimeMessage *parse(void *ctx, int fd, GMimeFormat format, bool *eos)
{
    GMimeStream *stream = open_stream(ctx, fd);
    GMimeParser *parser = stream ? maildex__hold_gobject(ctx, g_mime_parser_new_with_stream(stream)) : NULL;
    GMimeMessage *message;

    if (parser == NULL)
        return NULL;
    g_mime_parser_set_format(parser, format);
    message = maildex__hold_gobject(ctx, g_mime_parser_construct_message(parser, NULL));
    if (eos)
        *eos = g_mime_parser_eos(parser);
    return message;
}

/* notmuch reads the headers it indexes, and those notmuch_message_get_header returns later, from a
 * parse that takes a file starting with "From " for a one-message mbox (lib/message-file.c); show
 * parses every file as a message. The two differ only for such files ("From  : x" is a header to
 * one and an mbox separator to the other), which then get a second parse. */
static GMimeMessage *as_indexed(void *ctx, int fd, GMimeMessage *message)
{
    char head[5];
    bool eos = true;
    GMimeMessage *mbox;
    GMimeStream *stream = open_stream(ctx, fd);

    if (stream == NULL || g_mime_stream_read(stream, head, sizeof head) != (ssize_t) sizeof head ||
        memcmp(head, "From ", 5) != 0)
        return message;
    mbox = parse(ctx, fd, GMIME_FORMAT_MBOX, &eos);
    return eos ? mbox : NULL;
}

GMimeMessage *maildex__show_open(void *ctx, const char *path, GMimeMessage **indexed, int *rc, char **error)
{
    int *fd = maildex__open_regular(ctx, path, error);
    GMimeMessage *message;

    *rc = MAILDEX__PARSE_ERROR;
    *indexed = NULL;
    maildex__message_parse_init();
    if (fd == NULL)
        return NULL;
    message = parse(ctx, *fd, GMIME_FORMAT_MESSAGE, NULL);
    if (message == NULL) {
        *rc = MAILDEX__PARSE_NOT_MAIL;
        if (error)
            *error = talloc_strdup(ctx, "not a mail file: no message found");
        return NULL;
    }
    *indexed = as_indexed(ctx, *fd, message);
    *rc = MAILDEX__PARSE_OK;
    return message;
}

/* The charset notmuch converts a text part from: the declared one under gmime's canonical name, or,
 * for an ISO-8859 one, the Windows code page gmime finds the bytes really use. *windows holds the
 * filter that owns the returned name (unref it after use). */
static const char *text_charset(GMimeObject *part, GMimeDataWrapper *wrapper, GMimeFilter **windows)
{
    const char *charset = g_mime_object_get_content_type_parameter(part, "charset");
    GMimeStream *null, *filtered;

    *windows = NULL;
    charset = charset ? g_mime_charset_canon_name(charset) : NULL;
    if (wrapper == NULL || charset == NULL || g_ascii_strncasecmp(charset, "iso-8859-", 9) != 0)
        return charset;
    null = g_mime_stream_null_new();
    filtered = g_mime_stream_filter_new(null);
    *windows = g_mime_filter_windows_new(charset);
    g_mime_stream_filter_add(GMIME_STREAM_FILTER(filtered), *windows);
    g_mime_data_wrapper_write_to_stream(wrapper, filtered);
    charset = g_mime_filter_windows_real_charset(GMIME_FILTER_WINDOWS(*windows));
    g_object_unref(filtered);
    g_object_unref(null);
    return charset;
}

char *maildex__show_text(void *ctx, GMimeObject *part, size_t *len)
{
    GMimeDataWrapper *wrapper = GMIME_IS_PART(part) ? g_mime_part_get_content(GMIME_PART(part)) : NULL;
    GMimeFilter *windows, *filter;
    const char *charset = text_charset(part, wrapper, &windows);
    GMimeStream *memory = g_mime_stream_mem_new();
    GMimeStream *filtered = g_mime_stream_filter_new(memory);
    GByteArray *bytes;
    char *text;

    /* CRLF first, then the charset: the order notmuch adds them in. */
    filter = g_mime_filter_dos2unix_new(FALSE);
    g_mime_stream_filter_add(GMIME_STREAM_FILTER(filtered), filter);
    g_object_unref(filter);
    /* NULL for charsets iconv does not know ("unknown-8bit"): the bytes then go through as they are. */
    if (charset && (filter = g_mime_filter_charset_new(charset, "UTF-8")) != NULL) {
        g_mime_stream_filter_add(GMIME_STREAM_FILTER(filtered), filter);
        g_object_unref(filter);
    }
    /* Not flushed, as notmuch does not flush it: what a filter holds back at the end is not printed. */
    if (wrapper)
        g_mime_data_wrapper_write_to_stream(wrapper, filtered);
    g_object_unref(filtered);
    if (windows)
        g_object_unref(windows);
    bytes = g_mime_stream_mem_get_byte_array(GMIME_STREAM_MEM(memory));
    *len = bytes->len;
    text = talloc_size(ctx, bytes->len + 1);
    if (text) {
        if (bytes->len > 0) /* an empty GByteArray has no data pointer */
            memcpy(text, bytes->data, bytes->len);
        text[bytes->len] = '\0';
    }
    g_object_unref(memory);
    return text;
}

char *maildex__show_date_string(void *ctx, GMimeMessage *message)
{
    GDateTime *date = g_mime_message_get_date(message);
    char *formatted;
    char *result;

    if (date == NULL)
        return talloc_strdup(ctx, "Thu, 01 Jan 1970 00:00:00 +0000");
    formatted = g_mime_utils_header_format_date(date);
    result = maildex__show_strdup(ctx, formatted);
    g_free(formatted);
    return result;
}

char *maildex__show_address_string(void *ctx, InternetAddressList *list)
{
    char *s = list ? internet_address_list_to_string(list, NULL, FALSE) : NULL;
    char *result = maildex__show_strdup(ctx, s);

    g_free(s);
    return result;
}

/* Received and Delivered-To: every instance decoded and joined with spaces (lib/message-file.c). */
static char *combined_header(void *ctx, GMimeMessage *message, const char *name)
{
    GMimeHeaderList *headers = message ? g_mime_object_get_header_list(GMIME_OBJECT(message)) : NULL;
    char *combined = NULL;

    for (int i = 0; headers && i < g_mime_header_list_get_count(headers); i++) {
        GMimeHeader *header = g_mime_header_list_get_header_at(headers, i);
        char *decoded;
        if (g_ascii_strcasecmp(g_mime_header_get_name(header), name) != 0)
            continue;
        decoded = g_mime_utils_header_decode_text(NULL, g_mime_header_get_value(header));
        combined = combined ? talloc_asprintf_append(combined, " %s", decoded ? decoded : "")
                            : talloc_strdup(ctx, decoded ? decoded : "");
        g_free(decoded);
    }
    return combined ? combined : talloc_strdup(ctx, "");
}

char *maildex__show_file_header(void *ctx, GMimeMessage *message, const char *name)
{
    const char *value;
    char *decoded, *result;

    if (strcasecmp(name, "received") == 0 || strcasecmp(name, "delivered-to") == 0)
        return combined_header(ctx, message, name);
    value = message ? g_mime_object_get_header(GMIME_OBJECT(message), name) : NULL;
    if (value == NULL)
        return talloc_strdup(ctx, "");
    decoded = g_mime_utils_header_decode_text(NULL, value);
    result = talloc_strdup(ctx, decoded ? decoded : "");
    g_free(decoded);
    return result;
}
