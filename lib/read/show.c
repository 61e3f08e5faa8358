/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Reading a message's file for show and reply (maildex.h, "reading a message"): which of its files to
 * read, as notmuch's mime_node_open picks it, the parser module's tree and reply handed out, and the
 * accessors of a part. The parsing itself is the module's (mime/show.c, mime/reply.c); this file must
 * not touch gmime, print, or read config. */
#include "message/properties.h"
#include "mime/mime.h"
#include "prefetch.h"
#include "files.h"
#include "search.h"

#include <string.h>

/* maildex__read_files over m's files, the reason of a failure on the database handle. */
static maildex_status_t with_file(maildex_message_t *m, int duplicate, maildex__open_fn *fn, void *data)
{
    maildex_db_t *db = m->q->db;
    const char *const *files;
    char *error = NULL;
    size_t n = 0, tried = 0;
    int rc;
    maildex_status_t st = maildex_message_files(m, &files);

    if (st != MAILDEX_STATUS_OK)
        return st;
    while (files[n])
        n++;
    if (duplicate > 0 && (size_t) duplicate > n)
        return maildex__error(db, MAILDEX_STATUS_FILE_NOT_FOUND, "message id:%s has no file number %d (it has %zu)",
                              m->message_id, duplicate, n);
    if (n == 0)
        return maildex__error(db, MAILDEX_STATUS_FILE_NOT_FOUND, "message id:%s has no file", m->message_id);
    rc = maildex__read_files(m, files, n, duplicate, fn, data, &tried, &error);
    st = maildex__read_files_status(db, rc, files[tried], error);
    talloc_free(error);
    return st;
}

/* ---- the sender notmuch stored -------------------------------------------------------------------- */

/* The first mailbox's address in the stored form of mime/addresses.h (name, address, name-addr, each
 * NUL-terminated), or notmuch's "MAILER-DAEMON" when there is none. */
static char *first_address(void *ctx, const char *blob, size_t len)
{
    const char *name_end = blob ? memchr(blob, '\0', len) : NULL;
    const char *address = name_end ? name_end + 1 : NULL;

    if (address == NULL || address >= blob + len || memchr(address, '\0', (size_t) (blob + len - address)) == NULL)
        return talloc_strdup(ctx, "MAILER-DAEMON");
    return talloc_strdup(ctx, address);
}

/* Where show names the sender (text's summary line, mbox's "From " line, reply's "... wrote:"), notmuch
 * prints the From it stored when the message was indexed (its first file indexed, or the first of its
 * files when it was re-indexed), whichever of the message's files it shows, while root's are the
 * shown file's. They differ only for a message whose copies have different From headers: then the
 * stored From (sql/0008-indexed-from.sql) and the stored sender's first address replace them. */
static maildex_status_t indexed_from(maildex_message_t *m, struct maildex_part *root)
{
    maildex_db_t *db = m->q->db;
    const char *const *files = NULL;
    sqlite3_stmt *stmt = NULL;
    bool row = false;
    maildex_status_t st = maildex_message_files(m, &files);

    if (st != MAILDEX_STATUS_OK || root == NULL || files[0] == NULL || files[1] == NULL)
        return st;
    st = maildex__stmt(db, MAILDEX__STMT_MESSAGE_INDEXED_FROM, &stmt);
    if (st != MAILDEX_STATUS_OK)
        return st;
    sqlite3_bind_int64(stmt, 1, m->key);
    st = maildex__step_row(db, stmt, &row, "cannot read a message's sender");
    if (st == MAILDEX_STATUS_OK && row && sqlite3_column_type(stmt, 0) == SQLITE_TEXT &&
        strcmp((const char *) sqlite3_column_text(stmt, 0), root->from) != 0) {
        char *from = talloc_strdup(root, (const char *) sqlite3_column_text(stmt, 0));
        char *sender = sqlite3_column_type(stmt, 1) != SQLITE_BLOB
                           ? NULL
                           : first_address(root, sqlite3_column_blob(stmt, 1), (size_t) sqlite3_column_bytes(stmt, 1));
        if (from == NULL)
            st = maildex__error(db, MAILDEX_STATUS_NO_MEMORY, "out of memory");
        else
            root->from = from;
        if (sender)
            root->sender_address = sender;
    }
    sqlite3_reset(stmt);
    return st;
}

/* ---- the parts ----------------------------------------------------------------------------------- */

/* The message's stored session keys (NULL-terminated, under m), when decrypt may use them. */
static maildex_status_t session_keys(maildex_message_t *m, maildex_decrypt_t decrypt, const char ***keys)
{
    *keys = NULL;
    return decrypt == MAILDEX_DECRYPT_FALSE ? MAILDEX_STATUS_OK : maildex__session_keys(m->q->db, m, m->key, keys);
}

struct parts_call {
    const struct maildex__mime_ops *ops;
    const maildex_parts_options_t *opts;
    const char **session_keys;
    struct maildex_part *root;
};

static int open_parts(void *ctx, const char *path, void *data, char **error)
{
    struct parts_call *c = data;

    return c->ops->show_file(ctx, path, c->opts, c->session_keys, &c->root, error);
}

maildex_status_t maildex_message_parts(maildex_message_t *m, int duplicate, const maildex_parts_options_t *opts,
                                       maildex_part_t **out)
{
    static const maildex_parts_options_t defaults = MAILDEX_PARTS_OPTIONS_INIT;
    struct parts_call c = {.opts = opts ? opts : &defaults};
    maildex_status_t st = maildex__mime(m->q->db, &c.ops);

    *out = NULL;
    /* What a read-ahead parsed already (prefetch.h), else the file is parsed here. */
    if (st == MAILDEX_STATUS_OK && !maildex__parts_prefetched(m, duplicate, opts, &c.root, &st)) {
        st = session_keys(m, c.opts->decrypt, &c.session_keys);
        if (st == MAILDEX_STATUS_OK)
            st = with_file(m, duplicate, open_parts, &c);
    }
    if (st == MAILDEX_STATUS_OK)
        st = indexed_from(m, c.root);
    talloc_free(c.session_keys);
    if (st == MAILDEX_STATUS_OK)
        *out = c.root;
    else
        talloc_free(c.root);
    return st;
}

struct write_call {
    const struct maildex__mime_ops *ops;
    int id;
    maildex_decrypt_t decrypt;
    const char **session_keys;
    maildex_write_fn *write;
    void *data;
    bool found, stopped;
};

/* The caller's write, remembering that it asked to stop. */
static int write_piece(void *data, const char *bytes, size_t len)
{
    struct write_call *c = data;

    if (c->write(c->data, bytes, len) != 0)
        c->stopped = true;
    return c->stopped;
}

static int open_write(void *ctx, const char *path, void *data, char **error)
{
    struct write_call *c = data;

    return c->ops->show_part_write(ctx, path, c->id, c->decrypt, c->session_keys, write_piece, c, &c->found, error);
}

maildex_status_t maildex_message_part_write(maildex_message_t *m, int duplicate, int id, maildex_decrypt_t decrypt,
                                            maildex_write_fn *write, void *data)
{
    struct write_call c = {.id = id, .decrypt = decrypt, .write = write, .data = data};
    maildex_status_t st = maildex__mime(m->q->db, &c.ops);

    if (st == MAILDEX_STATUS_OK)
        st = session_keys(m, decrypt, &c.session_keys);
    if (st == MAILDEX_STATUS_OK)
        st = with_file(m, duplicate, open_write, &c);
    talloc_free(c.session_keys);
    if (st == MAILDEX_STATUS_OK && !c.found)
        st = maildex__error(m->q->db, MAILDEX_STATUS_NOT_FOUND, "message id:%s has no part %d", m->message_id, id);
    if (st == MAILDEX_STATUS_OK && c.stopped)
        st = maildex__error(m->q->db, MAILDEX_STATUS_IO_ERROR, "part %d of message id:%s: the writer stopped",
                            id, m->message_id);
    return st;
}

/* A part's bytes gathered for maildex_message_part_bytes, under m. */
struct held_bytes {
    void *ctx;
    char *data;
    size_t len, size;
};

static int hold_piece(void *data, const char *bytes, size_t len)
{
    struct held_bytes *h = data;

    if (h->len + len + 1 > h->size) {
        size_t size = MAX(h->size * 2, h->len + len + 1);
        char *grown = talloc_realloc_size(h->ctx, h->data, size);
        if (grown == NULL)
            return -1;
        h->data = grown;
        h->size = size;
    }
    memcpy(h->data + h->len, bytes, len);
    h->len += len;
    return 0;
}

maildex_status_t maildex_message_part_bytes(maildex_message_t *m, int duplicate, int id, maildex_decrypt_t decrypt,
                                            const char **data, size_t *len)
{
    struct held_bytes h = {.ctx = m, .data = talloc_strdup(m, ""), .size = 1};
    maildex_status_t st = h.data ? maildex_message_part_write(m, duplicate, id, decrypt, hold_piece, &h)
                                 : MAILDEX_STATUS_NO_MEMORY;

    *data = NULL;
    *len = 0;
    if (st == MAILDEX_STATUS_IO_ERROR) /* only hold_piece stops it */
        st = maildex__error(m->q->db, MAILDEX_STATUS_NO_MEMORY, "part %d of message id:%s is too large to hold",
                            id, m->message_id);
    if (st != MAILDEX_STATUS_OK) {
        talloc_free(h.data);
        return st;
    }
    h.data[h.len] = '\0';
    *data = h.data;
    *len = h.len;
    return st;
}

void maildex_part_free(maildex_part_t *root)
{
    talloc_free(root);
}

maildex_part_t *maildex_part_find(maildex_part_t *p, int id)
{
    if (p == NULL || p->id > id)
        return NULL;
    if (p->id == id)
        return p;
    /* Children are numbered in order: the one to look in is the last that starts at or before id. */
    for (size_t i = p->nchildren; i > 0; i--)
        if (p->children[i - 1]->id <= id)
            return maildex_part_find(p->children[i - 1], id);
    return NULL;
}

maildex_part_kind_t maildex_part_kind(const maildex_part_t *p) { return p->kind; }
int maildex_part_id(const maildex_part_t *p) { return p->id; }
size_t maildex_part_count(const maildex_part_t *p) { return p->nchildren; }
const char *maildex_part_content_type(const maildex_part_t *p) { return p->content_type; }
const char *maildex_part_disposition(const maildex_part_t *p) { return p->disposition; }
const char *maildex_part_content_id(const maildex_part_t *p) { return p->content_id; }
const char *maildex_part_filename(const maildex_part_t *p) { return p->filename; }
const char *maildex_part_charset(const maildex_part_t *p) { return p->charset; }
const char *maildex_part_transfer_encoding(const maildex_part_t *p) { return p->transfer_encoding; }
int64_t maildex_part_length(const maildex_part_t *p) { return p->length; }
const char *maildex_part_from(const maildex_part_t *p) { return p->from; }
const char *maildex_part_date(const maildex_part_t *p) { return p->date; }
const char *maildex_part_sender_address(const maildex_part_t *p) { return p->sender_address; }
bool maildex_part_verified(const maildex_part_t *p) { return p->verified; }
int maildex_part_decrypt(const maildex_part_t *p) { return p->decrypt; }
const char *maildex_part_crypto_error(const maildex_part_t *p) { return p->crypto_error; }
const maildex_crypto_t *maildex_part_crypto(const maildex_part_t *p) { return p->crypto; }
const char *maildex_part_session_key(const maildex_part_t *p) { return p->session_key; }

const maildex_signature_t *maildex_part_signatures(const maildex_part_t *p, size_t *n)
{
    *n = p->nsignatures;
    return p->signatures;
}

maildex_part_t *maildex_part_child(const maildex_part_t *p, size_t i)
{
    return i < p->nchildren ? p->children[i] : NULL;
}

const char *maildex_part_content(const maildex_part_t *p, size_t *len)
{
    *len = p->has_content ? p->content_len : 0;
    return p->has_content ? p->content : NULL;
}

const maildex_header_t *maildex_part_headers(const maildex_part_t *p, size_t *n)
{
    *n = p->kind == MAILDEX_PART_MESSAGE ? p->nheaders : 0;
    return *n ? p->headers : NULL;
}

/* ---- replies ------------------------------------------------------------------------------------- */

struct reply_call {
    const struct maildex__mime_ops *ops;
    const maildex_reply_options_t *opts;
    const char *message_id;
    const char **session_keys;
    struct maildex_reply *reply;
};

static int open_reply(void *ctx, const char *path, void *data, char **error)
{
    struct reply_call *c = data;

    return c->ops->show_reply_file(ctx, path, c->message_id, c->opts, c->session_keys, &c->reply, error);
}

maildex_status_t maildex_message_reply(maildex_message_t *m, int duplicate, const maildex_reply_options_t *opts,
                                       maildex_reply_t **out)
{
    struct reply_call c = {.opts = opts, .message_id = m->message_id};
    maildex_status_t st = maildex__mime(m->q->db, &c.ops);

    *out = NULL;
    if (st == MAILDEX_STATUS_OK)
        st = session_keys(m, opts->decrypt, &c.session_keys);
    if (st == MAILDEX_STATUS_OK)
        st = with_file(m, duplicate, open_reply, &c);
    if (st == MAILDEX_STATUS_OK)
        st = indexed_from(m, c.reply->original);
    talloc_free(c.session_keys);
    if (st == MAILDEX_STATUS_OK)
        *out = c.reply;
    else
        talloc_free(c.reply);
    return st;
}

const char *maildex_reply_header_text(const maildex_reply_t *r) { return r->header_text; }
maildex_part_t *maildex_reply_original(const maildex_reply_t *r) { return r->original; }

const maildex_header_t *maildex_reply_headers(const maildex_reply_t *r, size_t *n)
{
    *n = r->nheaders;
    return r->headers;
}
