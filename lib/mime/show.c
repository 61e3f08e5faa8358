/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The part walker of the read path (see show.h): a message gmime has parsed becomes a tree of plain
 * parts numbered as notmuch 0.37 numbers them (mime-node.c: depth first, the message 0, an attached
 * message and the root part of its message one number each), with what notmuch-show.c prints of each
 * part. The module's show_file, part_write and references_file entry points are here too. A part is
 * shown as far as gmime parsed it; nothing here may crash on a part notmuch crashes on (an empty
 * message/rfc822 part), hold a gmime object past its return, or recurse without a bound. */
#include "show.h"
#include "message-id.h"
#include "sink.h"

#include <string.h>

struct walk {
    void *local;          /* holds the gmime objects made on the way (repaired parts) */
    const maildex_parts_options_t *opts;
    const char *const *session_keys; /* the message's stored ones */
    bool descend;         /* build the parts under the message */
    bool decode;          /* decode text parts */
    int next_id;
    GPtrArray *objects;   /* when set: the gmime object of each part, by number (part_bytes) */
    struct maildex_crypto_state crypto;
};

static struct maildex_part *walk_object(struct walk *w, void *ctx, GMimeObject *part, GMimeObject *parent,
                                        int childnum, int depth);

static bool add_header(struct maildex_part *p, const char *name, const char *value)
{
    maildex_header_t *grown = talloc_realloc(p, p->headers, maildex_header_t, p->nheaders + 1);

    if (grown == NULL)
        return false;
    p->headers = grown;
    grown[p->nheaders].name = talloc_strdup(p, name);
    grown[p->nheaders].value = maildex__show_strdup(p, value);
    p->nheaders++;
    return grown[p->nheaders - 1].name != NULL && (value == NULL || grown[p->nheaders - 1].value);
}

/* show.extra_headers: each the message has, named as the file spells it. */
static bool add_extra_headers(struct maildex_part *p, GMimeMessage *message, const char *const *names)
{
    GMimeHeaderList *list = g_mime_object_get_header_list(GMIME_OBJECT(message));
    bool ok = true;

    for (const char *const *name = names; ok && list && name && *name; name++) {
        GMimeHeader *header = g_mime_header_list_get_header(list, *name);
        if (header)
            ok = add_header(p, g_mime_header_get_name(header), g_mime_header_get_value(header));
    }
    return ok;
}

/* notmuch-show.c format_headers_sprinter (not for a reply): the keys in its order. */
static bool set_headers(struct maildex_part *p, GMimeMessage *message, const char *const *extra)
{
    static const struct {
        const char *name;
        GMimeAddressType type;
    } lists[] = {{"To", GMIME_ADDRESS_TYPE_TO}, {"Cc", GMIME_ADDRESS_TYPE_CC}, {"Bcc", GMIME_ADDRESS_TYPE_BCC}};
    void *tmp = talloc_new(p);
    char *value;
    bool ok = tmp && add_header(p, "Subject", g_mime_message_get_subject(message)) &&
              add_header(p, "From", g_mime_object_get_header(GMIME_OBJECT(message), "From"));

    for (size_t i = 0; ok && i < G_N_ELEMENTS(lists); i++) {
        value = maildex__show_address_string(tmp, g_mime_message_get_addresses(message, lists[i].type));
        if (value)
            ok = add_header(p, lists[i].name, value);
    }
    if (ok && (value = maildex__show_address_string(tmp, g_mime_message_get_reply_to(message))))
        ok = add_header(p, "Reply-To", value);
    ok = ok && (value = maildex__show_date_string(tmp, message)) && add_header(p, "Date", value);
    ok = ok && add_extra_headers(p, message, extra);
    talloc_free(tmp);
    return ok;
}

/* Content-Type, Content-Disposition, Content-ID of meta (the message/rfc822 part for an attached
 * message, else the part itself), and the file name of a leaf. */
static void set_meta(struct maildex_part *p, GMimeObject *meta, GMimeObject *part)
{
    GMimeContentType *type = g_mime_object_get_content_type(meta);
    GMimeContentDisposition *disposition = g_mime_object_get_content_disposition(meta);
    char *mime = type ? g_mime_content_type_get_mime_type(type) : NULL;

    p->content_type = maildex__show_strdup(p, mime);
    g_free(mime);
    if (disposition)
        p->disposition = maildex__show_strdup(p, g_mime_content_disposition_get_disposition(disposition));
    p->content_id = maildex__show_strdup(p, g_mime_object_get_content_id(meta));
    if (GMIME_IS_PART(part))
        p->filename = maildex__show_strdup(p, g_mime_part_get_filename(GMIME_PART(part)));
}

/* Does show print this leaf's text (text/..., and text/html only when asked)? */
static bool shows_text(struct walk *w, GMimeObject *part)
{
    GMimeContentType *type = g_mime_object_get_content_type(part);

    return type && g_mime_content_type_is_type(type, "text", "*") &&
           (w->opts->include_html || !g_mime_content_type_is_type(type, "text", "html"));
}

static bool walk_leaf(struct walk *w, struct maildex_part *p, GMimeObject *part)
{
    GMimeDataWrapper *wrapper;

    p->kind = MAILDEX_PART_LEAF;
    set_meta(p, part, part);
    if (w->decode && shows_text(w, part)) {
        p->has_content = true;
        p->content = maildex__show_text(p, part, &p->content_len);
        return p->content != NULL;
    }
    /* The length of the content as it is encoded in the file (the base64 text, say). */
    p->charset = maildex__show_strdup(p, g_mime_object_get_content_type_parameter(part, "charset"));
    p->transfer_encoding = maildex__show_strdup(p, g_mime_object_get_header(part, "Content-Transfer-Encoding"));
    wrapper = g_mime_part_get_content(GMIME_PART(part));
    if (wrapper && g_mime_data_wrapper_get_stream(wrapper))
        p->length = g_mime_stream_length(g_mime_data_wrapper_get_stream(wrapper));
    return true;
}

/* The children of a multipart or an attached message (child childnum of parent), numbered as they are
 * walked. */
static bool add_child(struct walk *w, struct maildex_part *p, GMimeObject *child, GMimeObject *parent,
                      int childnum, int depth)
{
    struct maildex_part **grown = talloc_realloc(p, p->children, struct maildex_part *, p->nchildren + 1);

    if (grown == NULL)
        return false;
    p->children = grown;
    grown[p->nchildren] = walk_object(w, p, child, parent, childnum, depth + 1);
    return grown[p->nchildren++] != NULL;
}

/* notmuch repairs PGP/MIME that a mail server mangled into multipart/mixed (util/repair.c): the new
 * multipart/encrypted is held by w->local. */
static GMimeObject *repair_mixed_up(struct walk *w, GMimeObject *part)
{
    GMimeObject *repaired = maildex__hold_gobject(w->local, maildex__repair_mixed_up(part));

    return repaired ? repaired : part;
}

static GMimeSecureMimeType smime_type(GMimeObject *part)
{
    return GMIME_IS_APPLICATION_PKCS7_MIME(part)
               ? g_mime_application_pkcs7_mime_get_smime_type(GMIME_APPLICATION_PKCS7_MIME(part))
               : GMIME_SECURE_MIME_TYPE_UNKNOWN;
}

/* Does notmuch verify or decrypt this part (mime-node.c _mime_node_set_up_part)? S/MIME signed data
 * always: gmime unwraps its content only by verifying it. */
static bool is_crypto(struct walk *w, GMimeObject *part)
{
    bool decrypt = w->opts->decrypt != MAILDEX_DECRYPT_FALSE;

    return (GMIME_IS_MULTIPART_ENCRYPTED(part) && decrypt) || (GMIME_IS_MULTIPART_SIGNED(part) && w->opts->verify) ||
           smime_type(part) == GMIME_SECURE_MIME_TYPE_SIGNED_DATA ||
           (smime_type(part) == GMIME_SECURE_MIME_TYPE_ENVELOPED_DATA && decrypt);
}

/* S/MIME (application/pkcs7-mime), after notmuch's _mime_node_set_up_part: signed data verified, enveloped
 * data decrypted when asked; the content they wrap is the leaf's one child. */
static bool walk_pkcs7(struct walk *w, struct maildex_part *p, GMimeObject *part, int depth)
{
    GMimeObject *content = NULL;
    bool ok = true;

    if (smime_type(part) == GMIME_SECURE_MIME_TYPE_SIGNED_DATA)
        ok = maildex__crypto_verify(&w->crypto, w->local, p, part, &content);
    else if (is_crypto(w, part))
        ok = maildex__crypto_decrypt(&w->crypto, w->local, p, part, w->opts->decrypt, w->session_keys, &content);
    if (ok && content && depth < MAILDEX__SHOW_MAX_DEPTH)
        ok = add_child(w, p, content, part, 0, depth);
    return ok;
}

/* A multipart, after notmuch's _mime_node_set_up_part: a multipart/signed part verified when asked,
 * a multipart/encrypted one decrypted when asked, its decrypted content then standing for its second
 * child (GMIME_MULTIPART_ENCRYPTED_CONTENT) as notmuch's mime_node_child has it. */
static bool walk_multipart(struct walk *w, struct maildex_part *p, GMimeObject *part, int depth)
{
    GMimeObject *clear = NULL, *child;
    bool ok = true;

    p->kind = MAILDEX_PART_MULTIPART;
    set_meta(p, part, part);
    if (GMIME_IS_MULTIPART_ENCRYPTED(part) && w->opts->decrypt != MAILDEX_DECRYPT_FALSE)
        ok = maildex__crypto_decrypt(&w->crypto, w->local, p, part, w->opts->decrypt, w->session_keys, &clear);
    else if (GMIME_IS_MULTIPART_SIGNED(part) && w->opts->verify)
        ok = maildex__crypto_verify(&w->crypto, w->local, p, part, &clear);
    for (int i = 0; ok && depth < MAILDEX__SHOW_MAX_DEPTH && i < g_mime_multipart_get_count(GMIME_MULTIPART(part)); i++) {
        child = i == 1 && clear ? clear : g_mime_multipart_get_part(GMIME_MULTIPART(part), i);
        ok = add_child(w, p, child, part, i, depth);
    }
    return ok;
}

/* An attached message: the message/rfc822 part describes itself, its message has the headers and one
 * child. gmime has no message for an empty message/rfc822 part (notmuch 0.37 crashes on it): the part
 * is then shown with no headers and no child. */
static bool walk_message_part(struct walk *w, struct maildex_part *p, GMimeObject *part, int depth)
{
    GMimeMessage *message = g_mime_message_part_get_message(GMIME_MESSAGE_PART(part));
    GMimeObject *body = message ? g_mime_message_get_mime_part(message) : NULL;

    p->kind = MAILDEX_PART_MESSAGE;
    set_meta(p, part, message ? GMIME_OBJECT(message) : part);
    if (w->objects)
        w->objects->pdata[p->id] = message;
    if (message && !set_headers(p, message, w->opts->extra_headers))
        return false;
    return body == NULL || depth >= MAILDEX__SHOW_MAX_DEPTH || add_child(w, p, body, part, 0, depth);
}

static struct maildex_part *walk_object(struct walk *w, void *ctx, GMimeObject *part, GMimeObject *parent,
                                        int childnum, int depth)
{
    struct maildex_part *p = talloc_zero(ctx, struct maildex_part);
    bool ok;

    if (p == NULL)
        return NULL;
    p->id = w->next_id++;
    p->length = -1;
    if (GMIME_IS_MULTIPART(part))
        part = repair_mixed_up(w, part);
    if (!is_crypto(w, part))
        part = maildex__crypto_payload(&w->crypto, part, parent, childnum);
    if (w->objects)
        g_ptr_array_add(w->objects, part);
    if (GMIME_IS_MULTIPART(part)) {
        ok = walk_multipart(w, p, part, depth);
    } else if (GMIME_IS_MESSAGE_PART(part)) {
        ok = walk_message_part(w, p, part, depth);
    } else if (GMIME_IS_PART(part)) {
        ok = walk_leaf(w, p, part) && (!GMIME_IS_APPLICATION_PKCS7_MIME(part) || walk_pkcs7(w, p, part, depth));
    } else {
        /* Nothing gmime makes is none of the three; show such a part as an empty leaf. */
        p->kind = MAILDEX_PART_LEAF;
        ok = true;
    }
    if (!ok) {
        talloc_free(p);
        return NULL;
    }
    return p;
}

/* notmuch's format_headers_sprinter: the payload's protected Subject stands for the message's, which the
 * envelope keeps (its header-mask). Subject is the first header set_headers adds. */
static bool show_protected_subject(struct maildex_part *p, GMimeMessage *message)
{
    const char *outer = g_mime_message_get_subject(message);

    if (p->crypto->payload_subject == NULL || p->nheaders == 0)
        return true;
    p->crypto->outer_subject = maildex__show_strdup(p->crypto, outer);
    p->headers[0].value = p->crypto->payload_subject;
    return outer == NULL || p->crypto->outer_subject != NULL;
}

/* The root: the file's message with its headers, notmuch_message_get_header's from and date, and the
 * mbox sender; its one child is the message's root part. */
static struct maildex_part *walk_root(struct walk *w, void *ctx, GMimeMessage *message, GMimeMessage *indexed)
{
    struct maildex_part *p = talloc_zero(ctx, struct maildex_part);
    GMimeObject *body = g_mime_message_get_mime_part(message);
    InternetAddressList *from;
    InternetAddress *first;

    if (p == NULL)
        return NULL;
    p->kind = MAILDEX_PART_MESSAGE;
    p->id = w->next_id++;
    p->length = -1;
    if (w->objects)
        g_ptr_array_add(w->objects, message);
    w->crypto.envelope = p->crypto = talloc_zero(p, maildex_crypto_t);
    p->from = maildex__show_file_header(p, indexed, "From");
    p->date = maildex__show_file_header(p, indexed, "Date");
    from = p->from ? maildex__hold_gobject(w->local, internet_address_list_parse(NULL, p->from)) : NULL;
    first = from && internet_address_list_length(from) > 0 ? internet_address_list_get_address(from, 0) : NULL;
    p->sender_address = talloc_strdup(p, first && INTERNET_ADDRESS_IS_MAILBOX(first)
                                             ? internet_address_mailbox_get_addr(INTERNET_ADDRESS_MAILBOX(first))
                                             : "MAILER-DAEMON");
    if (!p->crypto || !p->from || !p->date || !p->sender_address || !set_headers(p, message, w->opts->extra_headers) ||
        (w->descend && body && !add_child(w, p, body, NULL, 0, 0)) || !show_protected_subject(p, message)) {
        talloc_free(p);
        return NULL;
    }
    return p;
}

struct maildex_part *maildex__show_tree(void *ctx, GMimeMessage *message, GMimeMessage *indexed,
                                        const maildex_parts_options_t *opts, const char *const *session_keys)
{
    struct walk w = {.local = talloc_new(NULL), .opts = opts, .session_keys = session_keys, .descend = opts->body,
                     .decode = true};
    struct maildex_part *root = w.local ? walk_root(&w, ctx, message, indexed) : NULL;

    talloc_free(w.local);
    return root;
}

int maildex__show_file(void *ctx, const char *path, const maildex_parts_options_t *opts,
                       const char *const *session_keys, struct maildex_part **out, char **error)
{
    void *local = talloc_new(NULL);
    int rc = MAILDEX__PARSE_ERROR;
    GMimeMessage *indexed;
    GMimeMessage *message = local ? maildex__show_open(local, path, &indexed, &rc, error) : NULL;

    *out = message ? maildex__show_tree(ctx, message, indexed, opts, session_keys) : NULL;
    if (message && *out == NULL) {
        rc = MAILDEX__PARSE_ERROR;
        if (error)
            *error = talloc_strdup(ctx, "out of memory");
    }
    if (error && *error)
        *error = talloc_steal(ctx, *error);
    talloc_free(local);
    return rc;
}

/* notmuch-show.c format_part_raw below the message: a leaf's content decoded from its transfer
 * encoding, any other part written by gmime (an attached message without the enclosing part's
 * headers), each through a filter stream with no filter, as notmuch's. Into sink as gmime makes it,
 * never held whole. */
static void write_part(GMimeObject *part, GMimeStream *sink)
{
    GMimeStream *filtered = g_mime_stream_filter_new(sink);

    if (GMIME_IS_PART(part)) {
        GMimeDataWrapper *wrapper = g_mime_part_get_content(GMIME_PART(part));
        if (wrapper)
            g_mime_data_wrapper_write_to_stream(wrapper, filtered);
    } else if (part) {
        g_mime_object_write_to_stream(part, NULL, filtered);
    }
    g_mime_stream_flush(filtered);
    g_object_unref(filtered);
}

int maildex__show_part_write(void *ctx, const char *path, int id, maildex_decrypt_t decrypt,
                             const char *const *session_keys, maildex_write_fn *write, void *data, bool *found,
                             char **error)
{
    maildex_parts_options_t opts = MAILDEX_PARTS_OPTIONS_INIT;
    void *local = talloc_new(NULL);
    int rc = MAILDEX__PARSE_ERROR;
    GMimeMessage *indexed;
    GMimeMessage *message = local ? maildex__show_open(local, path, &indexed, &rc, error) : NULL;
    struct walk w = {.local = local, .opts = &opts, .session_keys = session_keys, .descend = true, .decode = false};
    GMimeStream *sink;

    *found = false;
    opts.decrypt = decrypt;
    if (message) {
        w.objects = g_ptr_array_new();
        if (walk_root(&w, local, message, indexed) == NULL) {
            rc = MAILDEX__PARSE_ERROR;
            if (error)
                *error = talloc_strdup(local, "out of memory");
        } else if (id >= 0 && (guint) id < w.objects->len) {
            *found = true;
            sink = maildex__sink_new(write, data);
            write_part(w.objects->pdata[id], sink);
            g_object_unref(sink);
        }
        g_ptr_array_free(w.objects, TRUE);
    }
    if (error && *error)
        *error = talloc_steal(ctx, *error);
    talloc_free(local);
    return rc;
}

static int strptr_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *) a, *(char *const *) b);
}

int maildex__show_references_file(void *ctx, const char *path, const char *message_id, char ***out,
                                  char **error)
{
    void *local = talloc_new(NULL);
    int rc = MAILDEX__PARSE_ERROR;
    GMimeMessage *indexed;
    GMimeMessage *message = local ? maildex__show_open(local, path, &indexed, &rc, error) : NULL;
    char *references, *in_reply_to, *parent;
    size_t n = 0;

    *out = NULL;
    if (message) {
        references = maildex__show_file_header(local, indexed, "References");
        in_reply_to = maildex__show_file_header(local, indexed, "In-Reply-To");
        if (!references || !in_reply_to ||
            !maildex__references_parse(ctx, message_id, references, in_reply_to, out, &parent)) {
            rc = MAILDEX__PARSE_ERROR;
            if (error)
                *error = talloc_strdup(local, "out of memory");
        }
    }
    while (*out && (*out)[n])
        n++;
    if (*out)
        qsort(*out, n, sizeof **out, strptr_cmp);
    if (error && *error)
        *error = talloc_steal(ctx, *error);
    talloc_free(local);
    return rc;
}
