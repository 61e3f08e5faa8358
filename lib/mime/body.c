/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The MIME walk of the message parser (after notmuch 0.37's lib/index.cc _index_mime_part): from a
 * message gmime has parsed to the body text of its non-attachment text parts (charsets converted, HTML
 * reduced to text, uuencoded blocks dropped), its attachment names and MIME types, and notmuch's
 * signed/encrypted flags; and the helpers both halves of the parser share (gmime objects held by talloc,
 * growing buffers, valid UTF-8). Reading the file and its headers is parse.c's. Like it, this
 * file keeps no mutable static state (it runs on several parse threads at once) and stays linear in the
 * input: no step rescans what it has already produced. */
#include "body.h"
#include "sqlext/tokenizer.h"
#include "html-text.h"
#include "sink.h"
#include "maildex.h"

#include <string.h>
#include <talloc.h>

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

void *maildex__hold(void *ctx, void *object, void (*release)(void *))
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

void *maildex__hold_gobject(void *ctx, void *object)
{
    return maildex__hold(ctx, object, release_gobject);
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

char *maildex__valid_utf8_copy(void *ctx, const char *s)
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

/* ---- the MIME walk (lib/index.cc _index_mime_part) ------------------------------------------ */

struct walk {
    void *local;
    struct maildex__parsed_message *msg;
    struct buf body, attachments, types;
    const struct maildex__parse_options *opts;
    GPtrArray *session_keys; /* held by local: talloc strings of msg */
    /* notmuch's _notmuch_message_crypto_t at index time: no signatures are collected there, so only
     * a decryption before any payload (2: full; 1: partial) makes an envelope. */
    bool payload_seen;
    int decrypted;
    int text_parts_left_out; /* text parts cut or skipped at MAILDEX__BODY_TEXT_MAX */
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
    valid = maildex__valid_utf8_copy(w->local, mime);
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

/* ---- decoding no more text than the index takes ------------------------------------------------ */

/* Bytes of an inline part that is not declared text (an image without a Content-Disposition) decoded
 * first, to see whether it is text at all before decoding more of it. */
#define SNIFF_PROBE 4096

/* A byte array that keeps the first cap bytes written to it (sink.h). */
struct bounded {
    GByteArray *bytes;
    size_t cap;
    bool cut; /* more was written than it kept */
};

static int keep_up_to_cap(void *data, const char *p, size_t n)
{
    struct bounded *b = data;
    size_t room = b->cap - b->bytes->len;

    if (n > room) {
        b->cut = true;
        n = room;
    }
    if (n > 0)
        g_byte_array_append(b->bytes, (const guint8 *) p, (guint) n);
    return b->cut; /* a refusal stops gmime decoding the rest */
}

/* n less the bytes of a UTF-8 sequence the cap cut short at the end of p[0..n). */
static size_t without_cut_char(const guint8 *p, size_t n)
{
    for (size_t back = 1; back <= 4 && back <= n; back++) {
        guint8 c = p[n - back];
        size_t need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
        if ((c & 0xc0) != 0x80)
            return need > back ? n - back : n;
    }
    return n;
}

/* Writes the first cap bytes of the part's decoded content, converted to UTF-8 when it declares a
 * charset gmime knows, into a byte array held by tmp; gmime stops decoding there, so a part costs no
 * more than cap however large it is. *converted says whether a charset filter ran, *cut whether the
 * content went on (a UTF-8 sequence the cap split is dropped). With trust_utf8, a UTF-8 or ASCII part
 * skips the conversion (iconv from UTF-8 to UTF-8 was a tenth of the parse); the caller validates and
 * comes back without it when the bytes are not valid. */
static GByteArray *decoded_content(void *tmp, GMimePart *part, bool trust_utf8, size_t cap, bool *converted,
                                   bool *cut)
{
    GMimeDataWrapper *wrapper = g_mime_part_get_content(part);
    struct bounded b = {.cap = cap};
    GMimeStream *sink, *filtered;
    const char *charset;
    ssize_t written;

    *converted = *cut = false;
    if (wrapper == NULL)
        return NULL;
    b.bytes = maildex__hold(tmp, g_byte_array_new(), (void (*)(void *)) g_byte_array_unref);
    sink = b.bytes ? maildex__hold_gobject(tmp, maildex__sink_new(keep_up_to_cap, &b)) : NULL;
    filtered = sink ? maildex__hold_gobject(tmp, g_mime_stream_filter_new(sink)) : NULL;
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
    written = g_mime_data_wrapper_write_to_stream(wrapper, filtered);
    if (written >= 0)
        g_mime_stream_flush(filtered);
    if ((*cut = b.cut))
        g_byte_array_set_size(b.bytes, (guint) without_cut_char(b.bytes->data, b.bytes->len));
    else if (written < 0)
        return NULL;
    return b.bytes;
}

/* Whether the bytes are valid UTF-8 (a NUL is not). */
static bool valid_utf8(const GByteArray *bytes)
{
    return g_utf8_validate((const char *) bytes->data, (gssize) bytes->len, NULL);
}

/* A part not declared text is indexed only when its decoded bytes are UTF-8 text without NULs. */
static bool sniffed_out(const GByteArray *bytes)
{
    return bytes->len == 0 || memchr(bytes->data, 0, bytes->len) != NULL || !valid_utf8(bytes);
}

/* The part's decoded text for the index, at most room bytes: the UTF-8 bytes, or, for a UTF-8 or
 * ASCII part whose bytes are not valid, its bytes through iconv (which drops the invalid ones). NULL
 * when there is none, or with sniff when they are not text. */
static GByteArray *part_text_bytes(void *tmp, GMimePart *part, bool sniff, size_t room, bool *converted,
                                   bool *cut)
{
    const char *charset = g_mime_object_get_content_type_parameter(GMIME_OBJECT(part), "charset");
    GByteArray *bytes = NULL;

    /* An inline image: a look at its first bytes says it is no text, without decoding it all. */
    if (sniff && charset == NULL && room > SNIFF_PROBE) {
        bytes = decoded_content(tmp, part, true, SNIFF_PROBE, converted, cut);
        if (bytes == NULL || sniffed_out(bytes))
            return NULL;
        if (*cut)
            bytes = NULL;
    }
    if (bytes == NULL)
        bytes = decoded_content(tmp, part, true, room, converted, cut);
    if (bytes && !*converted && utf8_charset(charset) && !valid_utf8(bytes))
        bytes = decoded_content(tmp, part, false, room, converted, cut); /* drop the invalid bytes as iconv does */
    if (bytes == NULL || (sniff && sniffed_out(bytes)))
        return NULL;
    return bytes;
}

/* A text part the limit left out, or cut: counted for the warning, and its file name recorded as an
 * attachment's is, so attachment: still finds it. */
static void text_left_out(struct walk *w, GMimePart *part)
{
    const char *filename = g_mime_part_get_filename(part);
    char *name = filename ? maildex__valid_utf8_copy(w->local, filename) : NULL;

    w->text_parts_left_out++;
    if (name)
        buf_add_item(&w->attachments, name, strlen(name), ' ');
}

/* Indexes a leaf part's text, as much of it as the body has room for (MAILDEX__BODY_TEXT_MAX).
 * notmuch indexes every leaf that is not an attachment, whatever its type; with sniff (a part not
 * declared text/...) we index it only when its decoded bytes are UTF-8 text without NULs, which keeps
 * what notmuch finds there (text mislabelled as "application/octet-stream" or "BINARY") and leaves
 * out the noise of decoded images. */
static void add_part_text(struct walk *w, GMimePart *part, bool is_html, bool sniff)
{
    void *tmp = talloc_new(w->local);
    struct buf text = {.ctx = tmp};
    size_t used = w->body.len + (w->body.len > 0); /* the part break before this part */
    size_t room = MAILDEX__BODY_TEXT_MAX > used ? MAILDEX__BODY_TEXT_MAX - used : 0;
    GByteArray *bytes;
    char *data, *recoded = NULL;
    size_t len;
    bool converted, cut;

    if (tmp == NULL) {
        w->body.failed = true;
        return;
    }
    if (room == 0) {
        if (!sniff)
            text_left_out(w, part);
        goto done;
    }
    if ((bytes = part_text_bytes(tmp, part, sniff, room, &converted, &cut)) == NULL)
        goto done;
    if (cut)
        text_left_out(w, part);
    data = (char *) bytes->data;
    len = squeeze_nul_crlf(data, bytes->len);
    if (!converted && !g_utf8_validate(data, (gssize) len, NULL)) {
        /* No usable charset: decode 8-bit text with gmime's fallback charsets, as for headers. */
        recoded = maildex__hold(tmp, g_mime_utils_decode_8bit(NULL, data, len), g_free);
        if (recoded) {
            data = recoded;
            len = strlen(recoded);
        }
        if (len > room) { /* 8-bit text grows in UTF-8 */
            len = without_cut_char((const guint8 *) data, room);
            if (!cut)
                text_left_out(w, part);
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
    buf_add_item(&w->body, text.data, text.len, MAILDEX_FTS_PART_BREAK);
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
            char *name = maildex__valid_utf8_copy(w->local, filename);
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

/* _notmuch_message_crypto_potential_payload, then the legacy display part skipped: the part to index
 * in place of child childnum of parent. The first payload of a fully decrypted message carries its
 * protected Subject. */
static GMimeObject *payload(struct walk *w, GMimeObject *part, GMimeObject *parent, int childnum)
{
    const char *subject;
    GMimeObject *shown;

    if (w->payload_seen || maildex__crypto_is_control(part, parent, childnum))
        return part;
    w->payload_seen = true;
    if (w->decrypted != 2)
        return part;
    subject = maildex__payload_subject(part);
    if (subject) {
        char *decoded = g_mime_utils_header_decode_text(NULL, subject);
        w->msg->subject_protected = maildex__valid_utf8_copy(w->msg, decoded ? decoded : subject);
        g_free(decoded);
        w->body.failed |= w->msg->subject_protected == NULL;
    }
    shown = maildex__skip_legacy_display(part);
    w->msg->repaired_legacy_display |= shown != part;
    return shown;
}

/* lib/index.cc _index_encrypted_mime_part: an encrypted part's cleartext indexed when the options
 * allow and the keys open it; what happened is recorded for the index.decryption property. */
static void walk_encrypted(struct walk *w, GMimeObject *part, int depth)
{
    int decrypt = w->opts ? w->opts->decrypt : MAILDEX_DECRYPT_FALSE;
    bool stash = decrypt == MAILDEX_DECRYPT_STASH, attempted;
    GMimeDecryptResult *result = NULL;
    GError *err = NULL;
    GMimeObject *clear = maildex__crypto_unwrap(part, decrypt, w->opts ? w->opts->session_keys : NULL,
                                                &attempted, stash ? &result : NULL, &err);
    const char *key;

    if (err)
        g_error_free(err);
    if (!attempted)
        return;
    if (clear == NULL) {
        w->msg->decryption |= MAILDEX__DECRYPTION_FAILURE;
        return;
    }
    maildex__hold_gobject(w->local, clear);
    /* notmuch counts a decryption for the envelope only when it asked for the session key. */
    if (result) {
        w->decrypted = w->payload_seen ? (w->decrypted ? w->decrypted : 1) : 2;
        key = g_mime_decrypt_result_get_session_key(result);
        if (key)
            g_ptr_array_add(w->session_keys, talloc_strdup(w->msg, key));
        g_object_unref(result);
    }
    if (depth < MAILDEX__MESSAGE_MAX_DEPTH)
        walk_part(w, payload(w, clear, part, GMIME_MULTIPART_ENCRYPTED_CONTENT), depth + 1);
    w->msg->decryption |= MAILDEX__DECRYPTION_SUCCESS;
}

static void walk_multipart(struct walk *w, GMimeObject *part, int depth)
{
    GMimeMultipart *multipart = GMIME_MULTIPART(part);
    int count = g_mime_multipart_get_count(multipart);

    /* notmuch's automatic tags (lib/index.cc): wherever such a part appears. */
    if (GMIME_IS_MULTIPART_SIGNED(multipart))
        w->msg->is_signed = true;
    if (GMIME_IS_MULTIPART_ENCRYPTED(multipart))
        w->msg->is_encrypted = true;

    for (int i = 0; i < count; i++) {
        GMimeObject *child = g_mime_multipart_get_part(multipart, i);
        /* Signatures and encrypted payloads are not text: only their types are indexed, and the
         * cleartext of the encrypted one when it can be had. */
        if (GMIME_IS_MULTIPART_SIGNED(multipart) && i == GMIME_MULTIPART_SIGNED_SIGNATURE) {
            add_type(w, child);
        } else if (GMIME_IS_MULTIPART_ENCRYPTED(multipart)) {
            add_type(w, child);
            if (i == GMIME_MULTIPART_ENCRYPTED_CONTENT)
                walk_encrypted(w, part, depth);
        } else {
            walk_part(w, payload(w, child, part, i), depth + 1);
        }
    }
}

/* S/MIME (lib/index.cc _index_pkcs7_part): signed data is "signed" when gpgsm verifies it, and its
 * content is indexed; enveloped data is "encrypted", and decrypted as multipart/encrypted is. False
 * for another smime-type. */
static bool walk_pkcs7(struct walk *w, GMimeObject *part, int depth)
{
    GMimeApplicationPkcs7Mime *p7 = GMIME_APPLICATION_PKCS7_MIME(part);
    GMimeSecureMimeType type = g_mime_application_pkcs7_mime_get_smime_type(p7);
    GMimeObject *content = NULL;
    GMimeSignatureList *signatures;
    GError *err = NULL;

    if (type == GMIME_SECURE_MIME_TYPE_ENVELOPED_DATA) {
        w->msg->is_encrypted = true;
        walk_encrypted(w, part, depth);
        return true;
    }
    if (type != GMIME_SECURE_MIME_TYPE_SIGNED_DATA)
        return false; /* another smime-type: indexed as the leaf it is */
    signatures = g_mime_application_pkcs7_mime_verify(p7, GMIME_VERIFY_NONE, &content, &err);
    if (err)
        g_error_free(err);
    maildex__hold_gobject(w->local, content);
    if (signatures == NULL)
        return true;
    g_object_unref(signatures);
    w->msg->is_signed = true;
    if (content && depth < MAILDEX__MESSAGE_MAX_DEPTH)
        walk_part(w, payload(w, content, part, 0), depth + 1);
    return true;
}

static void walk_part(struct walk *w, GMimeObject *part, int depth)
{
    GMimeObject *repaired;

    if (part == NULL)
        return;
    repaired = maildex__hold_gobject(w->local, maildex__repair_mixed_up(part));
    if (repaired) {
        w->msg->repaired_mixedup = true;
        part = repaired;
    }
    add_type(w, part);
    if (GMIME_IS_MULTIPART(part)) {
        if (depth < MAILDEX__MESSAGE_MAX_DEPTH)
            walk_multipart(w, part, depth);
    } else if (GMIME_IS_MESSAGE_PART(part)) {
        GMimeMessage *inner = g_mime_message_part_get_message(GMIME_MESSAGE_PART(part));
        if (inner && depth < MAILDEX__MESSAGE_MAX_DEPTH)
            walk_part(w, g_mime_message_get_mime_part(inner), depth + 1);
    } else if (GMIME_IS_APPLICATION_PKCS7_MIME(part) && walk_pkcs7(w, part, depth)) {
        return;
    } else if (GMIME_IS_PART(part)) {
        walk_leaf(w, part);
    }
}

bool maildex__message_walk(struct maildex__parsed_message *msg, void *local, GMimeMessage *message,
                           const struct maildex__parse_options *opts)
{
    struct walk w = {.local = local, .msg = msg, .opts = opts};

    w.body.ctx = w.attachments.ctx = w.types.ctx = msg;
    w.session_keys = maildex__hold(local, g_ptr_array_new(), (void (*)(void *)) g_ptr_array_unref);
    if (w.session_keys == NULL)
        return false;
    walk_part(&w, g_mime_message_get_mime_part(message), 0);
    msg->body = buf_string(&w.body);
    msg->attachment_names = buf_string(&w.attachments);
    msg->mime_types = buf_string(&w.types);
    if (w.text_parts_left_out > 0)
        msg->warning = talloc_asprintf(msg, "text beyond its first %zu MiB not indexed (%d text part%s cut or "
                                       "left out)", MAILDEX__BODY_TEXT_MAX >> 20, w.text_parts_left_out,
                                       w.text_parts_left_out == 1 ? "" : "s");
    if (w.session_keys->len) {
        msg->session_keys = talloc_zero_array(msg, char *, w.session_keys->len + 1);
        for (guint i = 0; msg->session_keys && i < w.session_keys->len; i++)
            msg->session_keys[i] = w.session_keys->pdata[i];
    }
    return msg->body && msg->attachment_names && msg->mime_types &&
           (w.session_keys->len == 0 || msg->session_keys) && (w.text_parts_left_out == 0 || msg->warning);
}
