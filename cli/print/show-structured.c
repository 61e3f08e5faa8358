/* SPDX-License-Identifier: GPL-3.0-or-later */
/* show's JSON and S-expression output (notmuch 0.37's format_part_sprinter, format_message_sprinter and
 * format_headers_sprinter; notmuch-compat.md 2.5): a message map (id, match, excluded, filename,
 * timestamp, date_relative, tags, duplicate, body, crypto, headers) and part maps (id, content-type,
 * content-disposition, content-id, filename, then content or charset, encoding and length), keys in
 * notmuch's order, through the sprinter (which does all escaping). This file only prints: the parts
 * come from the library. */
#include "relative-date.h"
#include "show.h"

#include <time.h>

/* notmuch reports a verification or decryption that failed on stderr as it walks the parts. */
void show_report_crypto_errors(FILE *err, const maildex_part_t *p)
{
    const char *error = maildex_part_crypto_error(p);

    if (error)
        fprintf(err, "Failed to %s: %s\n",
                maildex_part_verified(p) ? "verify signed part" : "decrypt part", error);
    for (size_t i = 0; i < maildex_part_count(p); i++)
        show_report_crypto_errors(err, maildex_part_child(p, i));
}

/* --decrypt=stash: the session keys the parts under p were decrypted with, for cmd-show.c to keep. */
static void collect_session_keys(struct show *s, maildex_message_t *m, const maildex_part_t *p)
{
    const char *key = maildex_part_session_key(p);

    if (key) {
        g_ptr_array_add(s->stashed, talloc_strdup(s->cli->ctx, maildex_message_id(m)));
        g_ptr_array_add(s->stashed, talloc_strdup(s->cli->ctx, key));
    }
    for (size_t i = 0; i < maildex_part_count(p); i++)
        collect_session_keys(s, m, maildex_part_child(p, i));
}

maildex_part_t *show_open_parts(struct show *s, maildex_message_t *m, const maildex_parts_options_t *opts)
{
    maildex_part_t *root = NULL;

    if (maildex_message_parts(m, s->duplicate, opts, &root) != MAILDEX_STATUS_OK) {
        cli_error(s->cli, "%s", maildex_db_errmsg(s->cli->db));
        return NULL;
    }
    show_report_crypto_errors(s->cli->err, root);
    if (s->stashed)
        collect_session_keys(s, m, root);
    return root;
}

const char *show_header(const maildex_part_t *p, const char *name, bool *found)
{
    size_t n;
    const maildex_header_t *headers = maildex_part_headers(p, &n);

    for (size_t i = 0; i < n; i++) {
        if (strcmp(headers[i].name, name) == 0) {
            *found = true;
            return headers[i].value;
        }
    }
    *found = false;
    return NULL;
}

void show_structured_headers(struct sprinter *sp, const maildex_header_t *headers, size_t n)
{
    sp->begin_map(sp);
    for (size_t i = 0; i < n; i++) {
        sp->map_key(sp, headers[i].name);
        sp->string(sp, headers[i].value);
    }
    sp->end(sp);
}

static void print_string_key(struct sprinter *sp, const char *key, const char *value)
{
    if (value) {
        sp->map_key(sp, key);
        sp->string(sp, value);
    }
}

/* notmuch's format_part_sigstatus_sprinter: the signatures, each with what its status allows. */
static void print_signatures(struct show *s, const maildex_signature_t *sigs, size_t n)
{
    struct sprinter *sp = s->sp;

    sp->begin_list(sp);
    for (size_t i = 0; i < n; i++) {
        sp->begin_map(sp);
        print_string_key(sp, "status", sigs[i].status);
        print_string_key(sp, "fingerprint", sigs[i].fingerprint);
        if (sigs[i].created != -1 && strcmp(sigs[i].status, "good") == 0) {
            sp->map_key(sp, "created");
            sp->integer(sp, sigs[i].created);
        }
        if (sigs[i].expires > 0) {
            sp->map_key(sp, "expires");
            sp->integer(sp, sigs[i].expires);
        }
        print_string_key(sp, "userid", sigs[i].userid);
        print_string_key(sp, "email", sigs[i].email);
        print_string_key(sp, "keyid", sigs[i].keyid);
        if (sigs[i].errors && s->cli->format_version <= 3) {
            sp->map_key(sp, "errors");
            sp->integer(sp, sigs[i].errors);
        } else if (sigs[i].errors) {
            sp->map_key(sp, "errors");
            sp->begin_map(sp);
            for (const char *const *name = sigs[i].error_names; *name; name++) {
                sp->map_key(sp, *name);
                sp->boolean(sp, true);
            }
            sp->end(sp);
        }
        sp->end(sp);
    }
    sp->end(sp);
}

/* The message's cryptographic envelope (format_message_sprinter's "crypto"), with the protected
 * headers the signatures cover and those the encryption masked. */
static void print_crypto(struct show *s, const maildex_crypto_t *c)
{
    struct sprinter *sp = s->sp;

    sp->map_key(sp, "crypto");
    sp->begin_map(sp);
    if (c && c->is_signed) {
        sp->map_key(sp, "signed");
        sp->begin_map(sp);
        sp->map_key(sp, "status");
        print_signatures(s, c->signatures, c->nsignatures);
        if (c->signature_encrypted) {
            sp->map_key(sp, "encrypted");
            sp->boolean(sp, true);
        }
        if (c->payload_subject) {
            sp->map_key(sp, "headers");
            sp->begin_list(sp);
            sp->string(sp, "Subject");
            sp->end(sp);
        }
        sp->end(sp);
    }
    if (c && c->decrypted) {
        sp->map_key(sp, "decrypted");
        sp->begin_map(sp);
        print_string_key(sp, "status", c->decrypted == 2 ? "full" : "partial");
        if (c->payload_subject && (c->outer_subject == NULL || strcmp(c->outer_subject, c->payload_subject))) {
            sp->map_key(sp, "header-mask");
            sp->begin_map(sp);
            sp->map_key(sp, "Subject");
            if (c->outer_subject)
                sp->string(sp, c->outer_subject);
            else
                sp->null(sp);
            sp->end(sp);
        }
        sp->end(sp);
    }
    sp->end(sp);
}

/* The database's fields of the message (format_message_sprinter). */
static void print_message_fields(struct show *s, maildex_message_t *m)
{
    struct sprinter *sp = s->sp;
    const char *const *files = NULL, *const *tags = NULL;
    char date[64];

    if (maildex_message_files(m, &files) != MAILDEX_STATUS_OK ||
        maildex_message_tags(m, &tags) != MAILDEX_STATUS_OK)
        cli_error(s->cli, "%s", maildex_db_errmsg(s->cli->db));
    sp->map_key(sp, "id");
    sp->string(sp, maildex_message_id(m));
    sp->map_key(sp, "match");
    sp->boolean(sp, maildex_message_matched(m) && !s->unmatched);
    sp->map_key(sp, "excluded");
    sp->boolean(sp, maildex_message_excluded(m));
    sp->map_key(sp, "filename");
    if (s->cli->format_version >= 3) {
        sp->begin_list(sp);
        for (size_t i = 0; files && files[i]; i++)
            sp->string(sp, files[i]);
        sp->end(sp);
    } else {
        sp->string(sp, files ? files[0] : NULL);
    }
    sp->map_key(sp, "timestamp");
    sp->integer(sp, maildex_message_date(m));
    cli_relative_date(date, sizeof date, (time_t) maildex_message_date(m));
    sp->map_key(sp, "date_relative");
    sp->string(sp, date);
    sp->map_key(sp, "tags");
    sp->begin_list(sp);
    for (size_t i = 0; tags && tags[i]; i++)
        sp->string(sp, tags[i]);
    sp->end(sp);
}

static void print_root(struct show *s, maildex_message_t *m, const maildex_part_t *root)
{
    struct sprinter *sp = s->sp;
    size_t n;
    const maildex_header_t *headers = maildex_part_headers(root, &n);

    sp->begin_map(sp);
    print_message_fields(s, m);
    sp->map_key(sp, "duplicate");
    sp->integer(sp, s->duplicate > 0 ? s->duplicate : 1);
    if (s->body) {
        sp->map_key(sp, "body");
        sp->begin_list(sp);
        for (size_t i = 0; i < maildex_part_count(root); i++)
            show_structured_part(s, m, maildex_part_child(root, i));
        sp->end(sp);
    }
    if (s->cli->format_version >= 4)
        print_crypto(s, maildex_part_crypto(root));
    sp->map_key(sp, "headers");
    show_structured_headers(sp, headers, n);
    sp->end(sp);
}

/* A leaf's content, or what stands for content that is not printed. */
static void print_leaf(struct sprinter *sp, const maildex_part_t *p)
{
    size_t len;
    const char *content = maildex_part_content(p, &len);

    if (content) {
        sp->map_key(sp, "content");
        sp->string_len(sp, content, len);
        return;
    }
    print_string_key(sp, "content-charset", maildex_part_charset(p));
    print_string_key(sp, "content-transfer-encoding", maildex_part_transfer_encoding(p));
    if (maildex_part_length(p) >= 0) {
        sp->map_key(sp, "content-length");
        sp->integer(sp, maildex_part_length(p));
    }
}

void show_structured_part(struct show *s, maildex_message_t *m, const maildex_part_t *p)
{
    struct sprinter *sp = s->sp;
    size_t n, nsigs;
    const maildex_header_t *headers;
    const maildex_signature_t *sigs;

    if (maildex_part_id(p) == 0) {
        print_root(s, m, p);
        return;
    }
    sp->begin_map(sp);
    sp->map_key(sp, "id");
    sp->integer(sp, maildex_part_id(p));
    if (maildex_part_decrypt(p) != 0) {
        sp->map_key(sp, "encstatus");
        sp->begin_list(sp);
        sp->begin_map(sp);
        print_string_key(sp, "status", maildex_part_decrypt(p) > 0 ? "good" : "bad");
        sp->end(sp);
        sp->end(sp);
    }
    if (maildex_part_verified(p)) {
        sp->map_key(sp, "sigstatus");
        sigs = maildex_part_signatures(p, &nsigs);
        print_signatures(s, sigs, nsigs);
    }
    sp->map_key(sp, "content-type");
    sp->string(sp, maildex_part_content_type(p));
    print_string_key(sp, "content-disposition", maildex_part_disposition(p));
    print_string_key(sp, "content-id", maildex_part_content_id(p));
    print_string_key(sp, "filename", maildex_part_filename(p));
    /* A leaf with a child is S/MIME whose content was unwrapped: shown as its content. */
    if (maildex_part_kind(p) == MAILDEX_PART_LEAF && maildex_part_count(p) == 0) {
        print_leaf(sp, p);
    } else {
        sp->map_key(sp, "content");
        sp->begin_list(sp);
        if (maildex_part_kind(p) == MAILDEX_PART_MESSAGE) {
            headers = maildex_part_headers(p, &n);
            sp->begin_map(sp);
            sp->map_key(sp, "headers");
            show_structured_headers(sp, headers, n);
            sp->map_key(sp, "body");
            sp->begin_list(sp);
        }
        for (size_t i = 0; i < maildex_part_count(p); i++)
            show_structured_part(s, m, maildex_part_child(p, i));
        if (maildex_part_kind(p) == MAILDEX_PART_MESSAGE) {
            sp->end(sp);
            sp->end(sp);
        }
        sp->end(sp);
    }
    sp->end(sp);
}

int show_structured_message(struct show *s, maildex_message_t *m, int indent)
{
    maildex_part_t *root = show_open_parts(s, m, &s->popts), *p;

    (void) indent;
    if (root == NULL)
        return 1;
    p = maildex_part_find(root, s->part < 0 ? 0 : s->part);
    if (p)
        show_structured_part(s, m, p);
    maildex_part_free(root);
    return 0;
}
