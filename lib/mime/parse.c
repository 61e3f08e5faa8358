/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Parse one mail file into a struct maildex__parsed_message (see parse.h): read the file
 * (regular files only, without blocking), rewrite CR-only and CR CR LF line ends, let gmime parse it,
 * and read the headers. The MIME walk over the parts is body.c's.
 *
 * The behaviour copies notmuch 0.37 where the index depends on it: headers are fetched the way
 * lib/message-file.c does (gmime's value, decoded once more with g_mime_utils_header_decode_text),
 * and Message-IDs, references and the parent are read from them by message-id.c. Every gmime object is
 * held by a talloc destructor so any exit path releases it. This file must keep no mutable static
 * state besides gmime's one-time initialisation (it runs on several threads at once) and must stay
 * linear in the input: no step may rescan what it has already produced. */
#include "addresses.h"
#include "body.h"
#include "message-id.h"
#include "sqlext/tokenizer.h"
#include "gzip.h"
#include "line-ends.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <talloc.h>
#include <unistd.h>

/* ---- headers --------------------------------------------------------------------------------- */

/* The first header `name` of obj, decoded as notmuch does (gmime's value, then decode_text), as
 * valid UTF-8 under ctx; NULL when absent. */
static char *get_header(void *ctx, GMimeObject *obj, const char *name)
{
    const char *value = g_mime_object_get_header(obj, name);
    char *decoded, *result;

    if (value == NULL)
        return NULL;
    decoded = g_mime_utils_header_decode_text(NULL, value);
    result = maildex__valid_utf8_copy(ctx, decoded ? decoded : value);
    g_free(decoded);
    return result;
}

static bool empty(const char *s)
{
    return s == NULL || *s == '\0';
}

/* notmuch's _thread_cleanup_author: "Last, First" becomes "First Last" when the From header
 * contains "First.Last" (Exchange's habit), otherwise the name is kept. */
static char *cleanup_author(void *ctx, const char *author, const char *from)
{
    const char *comma = strchr(author, ',');
    const char *first;
    char *clean, *probe;

    if (comma == NULL || comma[1] == '\0')
        return talloc_strdup(ctx, author);
    for (first = comma + 1; *first == ' '; first++)
        ;
    clean = talloc_asprintf(ctx, "%s %.*s", first, (int) (comma - author), author);
    probe = talloc_strdup(ctx, clean);
    if (clean == NULL || probe == NULL)
        return NULL;
    for (char *p = probe; *p; p++)
        if (*p == ' ')
            *p = '.';
    if (strcasestr(from, probe) == NULL) {
        talloc_free(clean);
        clean = talloc_strdup(ctx, author);
    }
    talloc_free(probe);
    return clean;
}

/* The author notmuch shows for a message: the first From address's display name, else its
 * address; "" when From has no address. */
static char *author_of(void *ctx, const char *from)
{
    InternetAddressList *list;
    InternetAddress *address;
    const char *author = NULL;
    void *tmp = talloc_new(ctx);
    char *result = NULL;

    if (tmp == NULL)
        return NULL;
    list = maildex__hold_gobject(tmp, internet_address_list_parse(NULL, from));
    address = list && internet_address_list_length(list) > 0
                  ? internet_address_list_get_address(list, 0)
                  : NULL;
    if (address) {
        author = internet_address_get_name(address);
        if (empty(author) && INTERNET_ADDRESS_IS_MAILBOX(address))
            author = internet_address_mailbox_get_addr(INTERNET_ADDRESS_MAILBOX(address));
    }
    if (empty(author))
        result = talloc_strdup(ctx, "");
    else
        result = cleanup_author(ctx, author, from);
    talloc_free(tmp);
    return maildex__valid_utf8_copy(ctx, result);
}

static int64_t parse_date(const char *date)
{
    GDateTime *parsed;
    int64_t seconds;

    if (empty(date))
        return 0;
    parsed = g_mime_utils_header_decode_date(date);
    if (parsed == NULL)
        return 0;
    seconds = g_date_time_to_unix(parsed);
    g_date_time_unref(parsed);
    /* notmuch clamps pre-epoch dates (gnome bug 779923 workaround). */
    return seconds < 0 ? 0 : seconds;
}

/* ---- putting it together -------------------------------------------------------------------- */

static gpointer init_once(gpointer unused)
{
    (void) unused;
    g_mime_init();
    return NULL;
}

void maildex__message_parse_init(void)
{
    static GOnce once = G_ONCE_INIT;

    g_once(&once, init_once, NULL);
}

static void set_error(void *ctx, char **error, const char *message)
{
    if (error)
        *error = talloc_strdup(ctx, message);
}

/* Reads up to n bytes from the stream's start into buf and resets it; the number read. */
static size_t read_head(GMimeStream *stream, char *buf, size_t n)
{
    size_t got = 0;
    ssize_t r;

    while (got < n && (r = g_mime_stream_read(stream, buf + got, n - got)) > 0)
        got += (size_t) r;
    g_mime_stream_reset(stream);
    return got;
}

/* Parses text (a seekable stream at its start, held by local) with gmime, through the line-end repair
 * when it needs it (line-ends.h); NULL when gmime finds no message, or when the file is an mbox
 * holding more than one (notmuch accepts a single-message mbox only). Over text itself, gmime keeps
 * each part as a window on the stream and reads it only when asked, so nothing is copied; through the
 * repair it holds the parts in memory. The objects are held by local. */
static GMimeMessage *construct_message(void *local, GMimeStream *text, const char **why)
{
    char head[5];
    bool is_mbox = read_head(text, head, sizeof head) == sizeof head && memcmp(head, "From ", 5) == 0;
    GMimeStream *stream = text;
    GMimeParser *parser;
    GMimeMessage *message;

    *why = "not a mail file: no message found";
    if (maildex__line_ends_need_repair(text))
        stream = maildex__hold_gobject(local, maildex__line_ends_stream_new(text));
    parser = stream ? maildex__hold_gobject(local, g_mime_parser_new_with_stream(stream)) : NULL;
    if (parser == NULL)
        return NULL;
    g_mime_parser_set_format(parser, is_mbox ? GMIME_FORMAT_MBOX : GMIME_FORMAT_MESSAGE);
    message = maildex__hold_gobject(local, g_mime_parser_construct_message(parser, NULL));
    if (message && is_mbox && !g_mime_parser_eos(parser)) {
        *why = "not a mail file: mbox with more than one message";
        return NULL;
    }
    *why = "not a mail file: no From, Subject or To header";
    return message;
}

/* The sha1 notmuch makes the id of a message without one: over the file's bytes as they are on disk
 * (compressed ones included), read from the stream raw in pieces. g_free it. */
static char *sha1_of(GMimeStream *raw)
{
    GChecksum *sum = g_checksum_new(G_CHECKSUM_SHA1);
    char buf[16384];
    ssize_t n;
    char *hex;

    g_mime_stream_reset(raw);
    while ((n = g_mime_stream_read(raw, buf, sizeof buf)) > 0)
        g_checksum_update(sum, (const guchar *) buf, (gssize) n);
    g_mime_stream_reset(raw);
    hex = g_strdup(g_checksum_get_string(sum));
    g_checksum_free(sum);
    return hex;
}

static bool set_message_id(struct maildex__parsed_message *msg, const char *header, GMimeStream *raw)
{
    if (!empty(header)) {
        const char *next;
        msg->message_id = maildex__message_id_parse(msg, header, &next);
        /* Not RFC-compliant, but better than no id at all (notmuch's words). */
        if (msg->message_id == NULL)
            msg->message_id = talloc_strdup(msg, header);
    }
    if (msg->message_id == NULL) {
        char *sha1 = sha1_of(raw);
        msg->message_id = talloc_asprintf(msg, "notmuch-sha1-%s", sha1);
        g_free(sha1);
    }
    return msg->message_id != NULL;
}

static char *header_or_empty(void *ctx, GMimeObject *obj, const char *name)
{
    char *value = obj ? get_header(ctx, obj, name) : NULL;
    return value ? value : talloc_strdup(ctx, "");
}

/* notmuch's address reads From for senders, and To, Cc, Bcc for recipients. */
static bool set_mailboxes(struct maildex__parsed_message *msg)
{
    const char *senders[] = {msg->from, NULL};
    const char *recipients[] = {msg->to, msg->cc, msg->bcc, NULL};

    return maildex__mailboxes_encode(msg, senders, &msg->senders, &msg->senders_len) &&
           maildex__mailboxes_encode(msg, recipients, &msg->recipients, &msg->recipients_len);
}

/* The user-defined fields' values in the tokenizer's field form (parse.h, user_text). */
static bool set_user_text(struct maildex__parsed_message *msg, GMimeObject *obj, const maildex_pair_t *fields)
{
    GString *text = g_string_new(NULL);

    for (const maildex_pair_t *f = fields; obj && f && f->key; f++) {
        char *value = get_header(msg, obj, f->value);
        if (value == NULL || *value == '\0')
            continue;
        for (char *c = value; *c; c++)
            if ((unsigned char) *c < 0x20)
                *c = ' ';
        g_string_append_printf(text, "%c%s%c%s", MAILDEX_FTS_FIELD_MARKER, f->key, MAILDEX_FTS_FIELD_MARKER,
                               value);
        talloc_free(value);
    }
    msg->user_text = talloc_strdup(msg, text->str);
    g_string_free(text, TRUE);
    return msg->user_text != NULL;
}

static bool set_headers(struct maildex__parsed_message *msg, GMimeObject *obj)
{
    msg->from = header_or_empty(msg, obj, "From");
    msg->to = header_or_empty(msg, obj, "To");
    msg->cc = header_or_empty(msg, obj, "Cc");
    msg->bcc = header_or_empty(msg, obj, "Bcc");
    msg->reply_to = header_or_empty(msg, obj, "Reply-To");
    msg->subject = header_or_empty(msg, obj, "Subject");
    msg->date_header = obj ? get_header(msg, obj, "Date") : NULL;
    msg->date = parse_date(msg->date_header);
    msg->is_mail = !empty(msg->from) || !empty(msg->subject) || !empty(msg->to);
    msg->from_name = msg->from ? author_of(msg, msg->from) : NULL;
    return msg->from && msg->to && msg->cc && msg->bcc && msg->reply_to && msg->subject &&
           msg->from_name && set_mailboxes(msg);
}

/* Fills every field of msg; false only when out of memory. */
static bool fill(struct maildex__parsed_message *msg, void *local, GMimeMessage *message, GMimeStream *raw,
                 const struct maildex__parse_options *opts)
{
    GMimeObject *obj = message ? GMIME_OBJECT(message) : NULL;
    char *id_header = obj ? get_header(local, obj, "Message-ID") : NULL;
    char *references = obj ? get_header(local, obj, "References") : NULL;
    char *in_reply_to = obj ? get_header(local, obj, "In-Reply-To") : NULL;

    if (!set_headers(msg, obj) || !set_user_text(msg, obj, opts ? opts->user_fields : NULL) ||
        !set_message_id(msg, id_header, raw) ||
        !maildex__references_parse(msg, msg->message_id, references, in_reply_to,
                                   &msg->references, &msg->parent_id))
        return false;
    if (message)
        return maildex__message_walk(msg, local, message, opts);
    msg->body = talloc_strdup(msg, "");
    msg->attachment_names = talloc_strdup(msg, "");
    msg->mime_types = talloc_strdup(msg, "");
    return msg->body && msg->attachment_names && msg->mime_types;
}

/* The text gmime parses: raw itself, or for a gzip-compressed file its decompressed bytes in memory,
 * cut at MAILDEX__GZIP_MAX_SIZE (what came out of a damaged stream is kept, as notmuch keeps it); held
 * by local. NULL when out of memory. */
static GMimeStream *text_of(void *local, GMimeStream *raw)
{
    char head[2], buf[16384];
    GMimeStream *unzip, *text;
    GByteArray *bytes;
    ssize_t n;

    if (!maildex__is_gzip(head, read_head(raw, head, sizeof head)))
        return raw;
    unzip = maildex__gzip_stream(local, raw);
    text = unzip ? maildex__hold_gobject(local, g_mime_stream_mem_new()) : NULL;
    if (text == NULL)
        return NULL;
    bytes = g_mime_stream_mem_get_byte_array(GMIME_STREAM_MEM(text));
    while (bytes->len < MAILDEX__GZIP_MAX_SIZE && (n = g_mime_stream_read(unzip, buf, sizeof buf)) > 0)
        g_byte_array_append(bytes, (const guint8 *) buf,
                            (guint) MIN((size_t) n, MAILDEX__GZIP_MAX_SIZE - bytes->len));
    g_mime_stream_reset(raw);
    return text;
}

/* Parses the mail in raw (a seekable stream at its start, which the caller holds). */
static int parse_stream(void *ctx, GMimeStream *raw, const struct maildex__parse_options *opts,
                        struct maildex__parsed_message **out, char **error)
{
    void *local = talloc_new(ctx);
    struct maildex__parsed_message *msg = local ? talloc_zero(local, struct maildex__parsed_message) : NULL;
    GMimeStream *text = msg ? text_of(local, raw) : NULL;
    GMimeMessage *message;
    const char *why = NULL;
    int rc = MAILDEX__PARSE_ERROR;

    maildex__message_parse_init();
    message = text ? construct_message(local, text, &why) : NULL;
    if (text == NULL || !fill(msg, local, message, raw, opts)) {
        set_error(ctx, error, "out of memory");
        goto done;
    }
    rc = MAILDEX__PARSE_OK;
    if (!msg->is_mail) {
        rc = MAILDEX__PARSE_NOT_MAIL;
        set_error(ctx, error, why);
    }
    *out = talloc_steal(ctx, msg);
done:
    talloc_free(local);
    return rc;
}

int maildex__message_parse_buffer(void *ctx, const char *data, size_t len,
                                  const struct maildex__parse_options *opts,
                                  struct maildex__parsed_message **out, char **error)
{
    GMimeStream *raw;
    int rc;

    *out = NULL;
    if (error)
        *error = NULL;
    maildex__message_parse_init();
    raw = g_mime_stream_mem_new_with_buffer(data ? data : "", data ? len : 0);
    rc = parse_stream(ctx, raw, opts, out, error);
    g_object_unref(raw);
    return rc;
}

static int close_fd(int *fd)
{
    close(*fd);
    return 0;
}

int *maildex__open_regular(void *ctx, const char *path, char **error)
{
    int *fd = talloc(ctx, int);
    struct stat st;

    if (fd == NULL) {
        set_error(ctx, error, "out of memory");
        return NULL;
    }
    *fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (*fd < 0) {
        if (error)
            *error = talloc_asprintf(ctx, "cannot open: %s", g_strerror(errno));
        return NULL;
    }
    talloc_set_destructor(fd, close_fd);
    if (fstat(*fd, &st) != 0) {
        if (error)
            *error = talloc_asprintf(ctx, "cannot stat: %s", g_strerror(errno));
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        set_error(ctx, error, "not a regular file");
        return NULL;
    }
    return fd;
}

/* The file is never read whole: gmime parses it from a stream over its own descriptor (see
 * construct_message). */
int maildex__message_parse_file(void *ctx, const char *path, const struct maildex__parse_options *opts,
                                struct maildex__parsed_message **out, char **error)
{
    void *local = talloc_new(ctx);
    char *local_error = NULL;
    int *fd = local ? maildex__open_regular(local, path, &local_error) : NULL;
    int own = fd ? fcntl(*fd, F_DUPFD_CLOEXEC, 0) : -1;
    GMimeStream *raw;
    int rc = MAILDEX__PARSE_ERROR;

    *out = NULL;
    if (error)
        *error = NULL;
    if (fd == NULL || own < 0) {
        if (error)
            *error = local_error ? talloc_steal(ctx, local_error)
                                 : talloc_asprintf(ctx, "cannot open: %s", g_strerror(errno));
        goto done;
    }
    maildex__message_parse_init();
    raw = g_mime_stream_fs_new(own); /* owns own */
    rc = parse_stream(ctx, raw, opts, out, error);
    g_object_unref(raw);
done:
    talloc_free(local);
    return rc;
}
