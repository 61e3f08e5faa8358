/* Parse one mail file into a struct maildex__parsed_message (see message-parse.h).
 *
 * The behaviour copies notmuch 0.37 where the index depends on it: headers are fetched the way
 * lib/message-file.c does (gmime's value, decoded once more with g_mime_utils_header_decode_text),
 * Message-IDs, references and the parent are read from them by message-id.c, and the MIME walk
 * follows lib/index.cc's _index_mime_part. Every gmime object is held by a talloc destructor so any
 * exit path releases it. This file must keep no mutable static state (it runs on several threads at
 * once) and must stay linear in the input: no step may rescan what it has already produced. */
#include "message-parse.h"
#include "html-text.h"
#include "message-id.h"

#include <errno.h>
#include <fcntl.h>
#include <gmime/gmime.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <talloc.h>
#include <unistd.h>

/* ---- ownership of foreign objects ------------------------------------------------------------ */

struct held {
    void *object;
    void (*release)(void *object);
};

static int held_destroy(struct held *h)
{
    if (h->object)
        h->release(h->object);
    return 0;
}

/* Hands `object` (a reference we own) to a talloc child of `ctx`; releases it at once and returns
 * NULL if even that allocation fails. */
static void *hold(void *ctx, void *object, void (*release)(void *))
{
    struct held *h;

    if (object == NULL)
        return NULL;
    h = talloc(ctx, struct held);
    if (h == NULL) {
        release(object);
        return NULL;
    }
    h->object = object;
    h->release = release;
    talloc_set_destructor(h, held_destroy);
    return object;
}

static void release_gobject(void *object)
{
    g_object_unref(object);
}

static void *hold_gobject(void *ctx, void *object)
{
    return hold(ctx, object, release_gobject);
}

/* ---- growing byte buffers -------------------------------------------------------------------- */

struct buf {
    void *ctx;
    char *data;
    size_t len, cap;
    bool failed; /* sticky: out of memory */
};

static void buf_add(struct buf *b, const char *p, size_t n)
{
    if (b->failed || n == 0)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        char *grown;
        while (cap < b->len + n + 1)
            cap *= 2;
        grown = talloc_realloc(b->ctx, b->data, char, cap);
        if (grown == NULL) {
            b->failed = true;
            return;
        }
        b->data = grown;
        b->cap = cap;
    }
    memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = '\0';
}

/* Appends `s`, preceded by `sep` when the buffer already holds something. */
static void buf_add_item(struct buf *b, const char *s, size_t n, char sep)
{
    if (n == 0)
        return;
    if (b->len > 0)
        buf_add(b, &sep, 1);
    buf_add(b, s, n);
}

/* The buffer's string, or "" when empty; NULL only when out of memory. */
static char *buf_string(struct buf *b)
{
    if (b->failed)
        return NULL;
    return b->data ? b->data : talloc_strdup(b->ctx, "");
}

/* ---- text clean-up --------------------------------------------------------------------------- */

/* Appends the valid UTF-8 of p[0..n) to b, dropping every byte that is not part of a valid
 * sequence (and NULs, which g_utf8_validate stops at). */
static void add_valid_utf8(struct buf *b, const char *p, size_t n)
{
    while (n > 0) {
        const gchar *end;
        g_utf8_validate(p, (gssize) n, &end);
        buf_add(b, p, (size_t) (end - p));
        n -= (size_t) (end - p);
        p = end;
        if (n > 0) {
            p++;
            n--;
        }
    }
}

static char *valid_utf8_copy(void *ctx, const char *s)
{
    struct buf b = {.ctx = ctx};

    if (s == NULL)
        return NULL;
    add_valid_utf8(&b, s, strlen(s));
    return buf_string(&b);
}

/* Drops NULs and turns CRLF into LF, in place; returns the new length. */
static size_t squeeze_nul_crlf(char *p, size_t n)
{
    size_t out = 0;

    for (size_t i = 0; i < n; i++) {
        if (p[i] == '\0')
            continue;
        if (p[i] == '\r' && i + 1 < n && p[i + 1] == '\n')
            continue;
        p[out++] = p[i];
    }
    return out;
}

static bool is_octal(char c)
{
    return c >= '0' && c <= '7';
}

/* Does the line hold "begin NNN " (notmuch's uuencode start marker, found anywhere on the line)? */
static bool uuencode_begins(const char *line, size_t n)
{
    for (size_t i = 0; i + 10 <= n; i++) {
        if (memcmp(line + i, "begin ", 6) == 0 && is_octal(line[i + 6]) && is_octal(line[i + 7]) &&
            is_octal(line[i + 8]) && line[i + 9] == ' ')
            return true;
        if (line[i] == '\n')
            break;
    }
    return false;
}

/* An "M" line of uuencoded data: 'M' then only bytes in ' '..'`'. */
static bool uuencode_data_line(const char *line, size_t n)
{
    if (n == 0 || line[0] != 'M')
        return false;
    for (size_t i = 1; i < n; i++)
        if (line[i] < ' ' || line[i] > '`')
            return false;
    return true;
}

/* Appends text to b line by line, leaving out uuencoded blocks as notmuch's index filter does. */
static void add_without_uuencode(struct buf *b, const char *p, size_t n)
{
    bool in_block = false;
    size_t start = 0;

    while (start < n) {
        const char *nl = memchr(p + start, '\n', n - start);
        size_t end = nl ? (size_t) (nl - p) : n;
        size_t line_len = end - start;
        bool skip = in_block && uuencode_data_line(p + start, line_len);

        if (!skip) {
            in_block = uuencode_begins(p + start, line_len);
            add_valid_utf8(b, p + start, line_len + (nl ? 1 : 0));
        }
        start = end + (nl ? 1 : 0);
    }
}

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
    result = valid_utf8_copy(ctx, decoded ? decoded : value);
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
    list = hold_gobject(tmp, internet_address_list_parse(NULL, from));
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
    return valid_utf8_copy(ctx, result);
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

/* ---- the MIME walk (lib/index.cc _index_mime_part) ------------------------------------------ */

struct walk {
    void *local;
    struct maildex__parsed_message *msg;
    struct buf body, attachments, types;
};

static void add_type(struct walk *w, GMimeObject *part)
{
    GMimeContentType *type = part ? g_mime_object_get_content_type(part) : NULL;
    char *mime, *valid;

    if (type == NULL)
        return;
    mime = g_mime_content_type_get_mime_type(type);
    if (mime == NULL)
        return;
    for (char *p = mime; *p; p++)
        if (*p >= 'A' && *p <= 'Z')
            *p = (char) (*p - 'A' + 'a');
    /* gmime keeps raw 8-bit bytes of a Content-Type ("text/\xf6"); the field must be UTF-8. */
    valid = valid_utf8_copy(w->local, mime);
    g_free(mime);
    if (valid == NULL) {
        w->types.failed = true;
        return;
    }
    buf_add_item(&w->types, valid, strlen(valid), ' ');
    talloc_free(valid);
}

/* Charsets whose bytes are already UTF-8 when valid: most mail. */
static bool utf8_charset(const char *charset)
{
    return charset && (g_ascii_strcasecmp(charset, "utf-8") == 0 ||
                       g_ascii_strcasecmp(charset, "utf8") == 0 ||
                       g_ascii_strcasecmp(charset, "us-ascii") == 0);
}

/* Writes the part's decoded content, converted to UTF-8 when it declares a charset gmime knows,
 * into a byte array held by tmp. *converted says whether a charset filter ran. With trust_utf8, a
 * UTF-8 or ASCII part skips the conversion (iconv from UTF-8 to UTF-8 was a tenth of the parse);
 * the caller validates and comes back without it when the bytes are not valid. */
static GByteArray *decoded_content(void *tmp, GMimePart *part, bool trust_utf8, bool *converted)
{
    GMimeDataWrapper *wrapper = g_mime_part_get_content(part);
    GByteArray *bytes;
    GMimeStream *mem, *filtered;
    const char *charset;

    *converted = false;
    if (wrapper == NULL)
        return NULL;
    bytes = g_byte_array_new();
    mem = hold_gobject(tmp, g_mime_stream_mem_new_with_byte_array(bytes)); /* owns bytes */
    filtered = mem ? hold_gobject(tmp, g_mime_stream_filter_new(mem)) : NULL;
    if (filtered == NULL)
        return NULL;
    charset = g_mime_object_get_content_type_parameter(GMIME_OBJECT(part), "charset");
    if (charset && !(trust_utf8 && utf8_charset(charset))) {
        /* NULL for charsets iconv does not know ("unknown-8bit"): then the bytes go through raw. */
        GMimeFilter *filter = g_mime_filter_charset_new(charset, "UTF-8");
        if (filter) {
            g_mime_stream_filter_add(GMIME_STREAM_FILTER(filtered), filter);
            g_object_unref(filter);
            *converted = true;
        }
    }
    if (g_mime_data_wrapper_write_to_stream(wrapper, filtered) < 0)
        return NULL;
    g_mime_stream_flush(filtered);
    return bytes;
}

/* Indexes a leaf part's text. notmuch indexes every leaf that is not an attachment, whatever its
 * type; with sniff (a part not declared text/...) we index it only when its decoded bytes are
 * UTF-8 text without NULs, which keeps what notmuch finds there (text mislabelled as
 * "application/octet-stream" or "BINARY") and leaves out the noise of decoded images. */
static void add_part_text(struct walk *w, GMimePart *part, bool is_html, bool sniff)
{
    void *tmp = talloc_new(w->local);
    struct buf text = {.ctx = tmp};
    GByteArray *bytes;
    char *data, *recoded = NULL;
    size_t len;
    bool converted;

    if (tmp == NULL) {
        w->body.failed = true;
        return;
    }
    bytes = decoded_content(tmp, part, true, &converted);
    if (bytes && !converted &&
        utf8_charset(g_mime_object_get_content_type_parameter(GMIME_OBJECT(part), "charset")) &&
        !g_utf8_validate((const char *) bytes->data, (gssize) bytes->len, NULL))
        bytes = decoded_content(tmp, part, false, &converted); /* drop the invalid bytes as iconv does */
    if (bytes == NULL)
        goto done;
    if (sniff && (bytes->len == 0 || memchr(bytes->data, 0, bytes->len) != NULL ||
                  !g_utf8_validate((const char *) bytes->data, (gssize) bytes->len, NULL)))
        goto done;
    data = (char *) bytes->data;
    len = squeeze_nul_crlf(data, bytes->len);
    if (!converted && !g_utf8_validate(data, (gssize) len, NULL)) {
        /* No usable charset: decode 8-bit text with gmime's fallback charsets, as for headers. */
        recoded = hold(tmp, g_mime_utils_decode_8bit(NULL, data, len), g_free);
        if (recoded) {
            data = recoded;
            len = strlen(recoded);
        }
    }
    if (is_html) {
        data = maildex__html_to_text(tmp, data, len, &len);
        if (data == NULL) {
            w->body.failed = true;
            goto done;
        }
        add_valid_utf8(&text, data, len);
    } else {
        add_without_uuencode(&text, data, len);
    }
    buf_add_item(&w->body, text.data, text.len, '\n');
    w->body.failed |= text.failed;
done:
    talloc_free(tmp);
}

static void walk_leaf(struct walk *w, GMimeObject *part)
{
    GMimeContentDisposition *disposition = g_mime_object_get_content_disposition(part);
    GMimeContentType *type = g_mime_object_get_content_type(part);

    if (disposition && g_mime_content_disposition_is_attachment(disposition)) {
        const char *filename = g_mime_part_get_filename(GMIME_PART(part));
        w->msg->has_attachment = true;
        if (filename) {
            char *name = valid_utf8_copy(w->local, filename);
            if (name)
                buf_add_item(&w->attachments, name, strlen(name), ' ');
        }
        return;
    }
    if (type && g_mime_content_type_is_type(type, "text", "*"))
        add_part_text(w, GMIME_PART(part), g_mime_content_type_is_type(type, "text", "html"), false);
    else
        add_part_text(w, GMIME_PART(part), false, true);
}

static void walk_part(struct walk *w, GMimeObject *part, int depth);

static void walk_multipart(struct walk *w, GMimeMultipart *multipart, int depth)
{
    int count = g_mime_multipart_get_count(multipart);

    /* notmuch's automatic tags (lib/index.cc): wherever such a part appears. */
    if (GMIME_IS_MULTIPART_SIGNED(multipart))
        w->msg->is_signed = true;
    if (GMIME_IS_MULTIPART_ENCRYPTED(multipart))
        w->msg->is_encrypted = true;

    for (int i = 0; i < count; i++) {
        GMimeObject *child = g_mime_multipart_get_part(multipart, i);
        /* Signatures and encrypted payloads are not text: only their types are indexed. */
        if ((GMIME_IS_MULTIPART_SIGNED(multipart) && i == GMIME_MULTIPART_SIGNED_SIGNATURE) ||
            GMIME_IS_MULTIPART_ENCRYPTED(multipart))
            add_type(w, child);
        else
            walk_part(w, child, depth + 1);
    }
}

static bool has_type(GMimeObject *part, const char *type, const char *subtype)
{
    GMimeContentType *ct = part ? g_mime_object_get_content_type(part) : NULL;
    return ct && g_mime_content_type_is_type(ct, type, subtype);
}

/* "Mixed-up" PGP/MIME as some mail servers mangle it (draft-dkg-openpgp-pgpmime-message-mangling):
 * multipart/mixed of an empty text/plain, application/pgp-encrypted saying "Version: 1" and
 * application/octet-stream. notmuch repairs it into multipart/encrypted before indexing. */
/* A leaf part's decoded content as a NUL-terminated string (g_free it), or NULL. */
static char *part_content(GMimeObject *part)
{
    GMimeDataWrapper *wrapper = GMIME_IS_PART(part) ? g_mime_part_get_content(GMIME_PART(part)) : NULL;
    GByteArray *bytes;
    GMimeStream *mem;

    if (wrapper == NULL)
        return NULL;
    bytes = g_byte_array_new();
    mem = g_mime_stream_mem_new_with_byte_array(bytes);
    g_mime_stream_mem_set_owner(GMIME_STREAM_MEM(mem), FALSE);
    g_mime_data_wrapper_write_to_stream(wrapper, mem);
    g_object_unref(mem);
    g_byte_array_append(bytes, (const guint8 *) "", 1);
    return (char *) g_byte_array_free(bytes, FALSE);
}

static bool mixed_up_mangled(GMimeObject *part)
{
    GMimeMultipart *mp;
    char *prelude, *version;
    bool empty, versioned;

    if (!GMIME_IS_MULTIPART(part) || !has_type(part, "multipart", "mixed"))
        return false;
    mp = GMIME_MULTIPART(part);
    if (g_mime_multipart_get_count(mp) != 3 ||
        !has_type(g_mime_multipart_get_part(mp, 0), "text", "plain") ||
        !has_type(g_mime_multipart_get_part(mp, 1), "application", "pgp-encrypted") ||
        !has_type(g_mime_multipart_get_part(mp, 2), "application", "octet-stream"))
        return false;
    prelude = part_content(g_mime_multipart_get_part(mp, 0));
    version = part_content(g_mime_multipart_get_part(mp, 1));
    empty = prelude == NULL || prelude[0] == '\0';
    versioned = version && strstr(version, "Version: 1") != NULL;
    g_free(prelude);
    g_free(version);
    return empty && versioned;
}

static void walk_part(struct walk *w, GMimeObject *part, int depth)
{
    if (part == NULL)
        return;
    if (mixed_up_mangled(part)) {
        GMimeMultipart *mp = GMIME_MULTIPART(part);
        buf_add_item(&w->types, "multipart/encrypted", strlen("multipart/encrypted"), ' ');
        add_type(w, g_mime_multipart_get_part(mp, 1));
        add_type(w, g_mime_multipart_get_part(mp, 2));
        w->msg->is_encrypted = true;
        return;
    }
    add_type(w, part);
    if (GMIME_IS_MULTIPART(part)) {
        if (depth < MAILDEX__MESSAGE_MAX_DEPTH)
            walk_multipart(w, GMIME_MULTIPART(part), depth);
    } else if (GMIME_IS_MESSAGE_PART(part)) {
        GMimeMessage *inner = g_mime_message_part_get_message(GMIME_MESSAGE_PART(part));
        if (inner && depth < MAILDEX__MESSAGE_MAX_DEPTH)
            walk_part(w, g_mime_message_get_mime_part(inner), depth + 1);
    } else if (GMIME_IS_APPLICATION_PKCS7_MIME(part)) {
        /* S/MIME, as notmuch tags it: signed data is "signed" (verified or not), enveloped data
         * "encrypted". The signed content is not unwrapped: that needs gpgsm. */
        GMimeSecureMimeType p7 =
            g_mime_application_pkcs7_mime_get_smime_type(GMIME_APPLICATION_PKCS7_MIME(part));
        if (p7 == GMIME_SECURE_MIME_TYPE_SIGNED_DATA)
            w->msg->is_signed = true;
        else if (p7 == GMIME_SECURE_MIME_TYPE_ENVELOPED_DATA)
            w->msg->is_encrypted = true;
        else
            walk_leaf(w, part);
    } else if (GMIME_IS_PART(part)) {
        walk_leaf(w, part);
    }
}

static bool walk_message(struct maildex__parsed_message *msg, void *local, GMimeMessage *message)
{
    struct walk w = {.local = local, .msg = msg};

    w.body.ctx = w.attachments.ctx = w.types.ctx = msg;
    walk_part(&w, g_mime_message_get_mime_part(message), 0);
    msg->body = buf_string(&w.body);
    msg->attachment_names = buf_string(&w.attachments);
    msg->mime_types = buf_string(&w.types);
    return msg->body && msg->attachment_names && msg->mime_types;
}

/* ---- line endings ---------------------------------------------------------------------------- */

/* gmime 3 splits lines on LF (a CR before it is dropped), so in a file whose lines end in a bare CR
 * (old Mac tools, a CR-only or mixed export) the header lines run together, and in one whose lines
 * end in CR CR LF (a CRLF file converted once more) the line "\r" before the body is not empty and
 * the body is read as headers. Such files get their line ends rewritten before gmime sees them; the
 * file itself is never touched, and an ordinary file costs one pass over its header section. */

/* Does the bare CR at p[i] end a header line? It does when a line can start after it: a CR (CR CR
 * LF, or the empty line of a CR-only file), a blank (a folded line), a field name and its colon, or
 * the end of the data. Otherwise it is a stray byte inside a value ("Subject: a\rb"), which gmime
 * drops, as it always has. */
static bool cr_ends_line(const char *p, size_t n, size_t i)
{
    size_t j = i + 1;

    if (j == n || p[j] == '\r' || p[j] == ' ' || p[j] == '\t')
        return true;
    while (j < n && p[j] > ' ' && p[j] < 0x7f && p[j] != ':')
        j++;
    return j > i + 1 && j < n && p[j] == ':';
}

/* Does the header section (up to the first empty LF or CRLF line) end a line with a bare CR or with
 * CR CR LF? */
static bool needs_unix_line_ends(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (p[i] == '\r' && (i + 1 == n || p[i + 1] != '\n') && cr_ends_line(p, n, i))
            return true;
        if (p[i] == '\n') {
            size_t j = i + 1 < n && p[i + 1] == '\r' ? i + 2 : i + 1;
            if (j < n && p[j] == '\n')
                return false;
        }
    }
    return false;
}

/* A copy of p[0..n) under ctx with every line end written as LF: LF, CRLF and CR CR LF (any run of
 * CRs before an LF) are one line end, and each CR of a run not followed by LF is one. */
static char *unix_line_ends(void *ctx, const char *p, size_t n, size_t *len)
{
    char *out = talloc_size(ctx, n + 1);
    size_t o = 0;

    if (out == NULL)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        size_t j = i;
        if (p[i] != '\r') {
            out[o++] = p[i];
            continue;
        }
        while (j < n && p[j] == '\r')
            j++;
        if (j < n && p[j] == '\n') {
            out[o++] = '\n';
        } else {
            memset(out + o, '\n', j - i);
            o += j - i;
            j--;
        }
        i = j;
    }
    out[o] = '\0';
    *len = o;
    return out;
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

/* Parses data with gmime; NULL when gmime finds no message, or when the file is an mbox holding
 * more than one (notmuch accepts a single-message mbox only). The objects are held by local. */
static GMimeMessage *construct_message(void *local, const char *data, size_t len, const char **why)
{
    bool is_mbox = len >= 5 && memcmp(data, "From ", 5) == 0;
    GMimeStream *stream = hold_gobject(local, g_mime_stream_mem_new_with_buffer(data, len));
    GMimeParser *parser =
        stream ? hold_gobject(local, g_mime_parser_new_with_stream(stream)) : NULL;
    GMimeMessage *message;

    *why = "not a mail file: no message found";
    if (parser == NULL)
        return NULL;
    g_mime_parser_set_format(parser, is_mbox ? GMIME_FORMAT_MBOX : GMIME_FORMAT_MESSAGE);
    message = hold_gobject(local, g_mime_parser_construct_message(parser, NULL));
    if (message && is_mbox && !g_mime_parser_eos(parser)) {
        *why = "not a mail file: mbox with more than one message";
        return NULL;
    }
    *why = "not a mail file: no From, Subject or To header";
    return message;
}

static bool set_message_id(struct maildex__parsed_message *msg, const char *header,
                           const char *data, size_t len)
{
    if (!empty(header)) {
        const char *next;
        msg->message_id = maildex__message_id_parse(msg, header, &next);
        /* Not RFC-compliant, but better than no id at all (notmuch's words). */
        if (msg->message_id == NULL)
            msg->message_id = talloc_strdup(msg, header);
    }
    if (msg->message_id == NULL) {
        char *sha1 = g_compute_checksum_for_data(G_CHECKSUM_SHA1, (const guchar *) data, len);
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

static bool set_headers(struct maildex__parsed_message *msg, GMimeObject *obj)
{
    msg->from = header_or_empty(msg, obj, "From");
    msg->to = header_or_empty(msg, obj, "To");
    msg->cc = header_or_empty(msg, obj, "Cc");
    msg->bcc = header_or_empty(msg, obj, "Bcc");
    msg->reply_to = header_or_empty(msg, obj, "Reply-To");
    msg->subject = header_or_empty(msg, obj, "Subject");
    msg->date_header = obj ? get_header(msg, obj, "Date") : NULL;
    msg->list_id = obj ? get_header(msg, obj, "List-Id") : NULL;
    msg->date = parse_date(msg->date_header);
    msg->is_mail = !empty(msg->from) || !empty(msg->subject) || !empty(msg->to);
    msg->from_name = msg->from ? author_of(msg, msg->from) : NULL;
    return msg->from && msg->to && msg->cc && msg->bcc && msg->reply_to && msg->subject &&
           msg->from_name;
}

/* Fills every field of msg; false only when out of memory. */
static bool fill(struct maildex__parsed_message *msg, void *local, GMimeMessage *message,
                 const char *data, size_t len)
{
    GMimeObject *obj = message ? GMIME_OBJECT(message) : NULL;
    char *id_header = obj ? get_header(local, obj, "Message-ID") : NULL;
    char *references = obj ? get_header(local, obj, "References") : NULL;
    char *in_reply_to = obj ? get_header(local, obj, "In-Reply-To") : NULL;

    if (!set_headers(msg, obj) || !set_message_id(msg, id_header, data, len) ||
        !maildex__references_parse(msg, msg->message_id, references, in_reply_to,
                                   &msg->references, &msg->parent_id))
        return false;
    if (message)
        return walk_message(msg, local, message);
    msg->body = talloc_strdup(msg, "");
    msg->attachment_names = talloc_strdup(msg, "");
    msg->mime_types = talloc_strdup(msg, "");
    return msg->body && msg->attachment_names && msg->mime_types;
}

int maildex__message_parse_buffer(void *ctx, const char *data, size_t len,
                                  struct maildex__parsed_message **out, char **error)
{
    void *local = talloc_new(ctx);
    struct maildex__parsed_message *msg;
    GMimeMessage *message;
    const char *why = NULL, *text;
    size_t text_len;
    int rc = MAILDEX__PARSE_ERROR;

    *out = NULL;
    if (error)
        *error = NULL;
    maildex__message_parse_init();
    msg = local ? talloc_zero(local, struct maildex__parsed_message) : NULL;
    if (msg == NULL) {
        set_error(ctx, error, "out of memory");
        goto done;
    }
    if (data == NULL) {
        data = "";
        len = 0;
    }
    text = data;
    text_len = len;
    if (needs_unix_line_ends(data, len))
        text = unix_line_ends(local, data, len, &text_len);
    message = text ? construct_message(local, text, text_len, &why) : NULL;
    /* The fallback id is the sha1 of the file as it is on disk, as notmuch's. */
    if (text == NULL || !fill(msg, local, message, data, len)) {
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

static int close_fd(int *fd)
{
    close(*fd);
    return 0;
}

/* Opens path without blocking (a FIFO with no writer must not hang us) and checks it is a regular
 * file of acceptable size; returns the descriptor, closed by a talloc destructor, or NULL. */
static int *open_regular(void *ctx, const char *path, size_t *size, char **error)
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
    if ((uintmax_t) st.st_size > MAILDEX__MESSAGE_MAX_SIZE) {
        set_error(ctx, error, "file too large");
        return NULL;
    }
    *size = (size_t) st.st_size;
    return fd;
}

/* Reads the whole regular file at path into a talloc buffer under ctx, to EOF even if the file
 * grew after fstat (up to the size limit). */
static char *read_whole_file(void *ctx, const char *path, size_t *len_out, char **error)
{
    size_t size = 0, cap, len = 0;
    int *fd = open_regular(ctx, path, &size, error);
    char *data;

    if (fd == NULL)
        return NULL;
    cap = size + 1;
    data = talloc_size(ctx, cap);
    while (data != NULL) {
        ssize_t n;
        if (len + 1 == cap) {
            char *grown = cap > MAILDEX__MESSAGE_MAX_SIZE ? NULL
                                                          : talloc_realloc_size(ctx, data, cap * 2);
            if (grown == NULL) {
                set_error(ctx, error, "file too large");
                return NULL;
            }
            data = grown;
            cap *= 2;
        }
        n = read(*fd, data + len, cap - len - 1);
        if (n == 0)
            break;
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            if (error)
                *error = talloc_asprintf(ctx, "cannot read: %s", g_strerror(errno));
            return NULL;
        }
        len += (size_t) n;
    }
    if (data == NULL)
        set_error(ctx, error, "out of memory");
    *len_out = len;
    return data;
}

int maildex__message_parse_file(void *ctx, const char *path, struct maildex__parsed_message **out,
                                char **error)
{
    void *local = talloc_new(ctx);
    char *local_error = NULL, *data;
    size_t len = 0;
    int rc = MAILDEX__PARSE_ERROR;

    *out = NULL;
    if (error)
        *error = NULL;
    if (local == NULL) {
        set_error(ctx, error, "out of memory");
        goto done;
    }
    data = read_whole_file(local, path, &len, &local_error);
    if (data == NULL) {
        if (error)
            *error = talloc_steal(ctx, local_error);
        goto done;
    }
    rc = maildex__message_parse_buffer(ctx, data, len, out, error);
done:
    talloc_free(local);
    return rc;
}
