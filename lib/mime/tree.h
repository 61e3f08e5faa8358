/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tree.h: a message's MIME parts and a reply to it as plain talloc structs: what crosses from the
 * parser module (show.c, reply.c, which build them with gmime) to the library (show.c, which
 * hands them out through maildex.h's accessors) and on to the command line, and the module's entry
 * points that make them. No gmime type may appear here: the module's objects are gone by the time a
 * tree is returned. Changing these structs changes the module ABI (mime.h). */
#ifndef MAILDEX_MIME_TREE_H
#define MAILDEX_MIME_TREE_H

#include "maildex.h"

#include <stddef.h>
#include <stdint.h>

/* maildex_part_t. Strings are talloc children of the part, NULL when absent. */
struct maildex_part {
    maildex_part_kind_t kind;
    int id;                      /* depth-first number: 0 the file's message, 1 its root part */
    /* What the part says of itself (the message/rfc822 part for an attached message); all NULL for
     * the file's message. */
    char *content_type, *disposition, *content_id, *filename;
    /* LEAF: the decoded text (has_content), else charset, encoding and encoded length (-1: none) */
    bool has_content;
    char *content;
    size_t content_len;
    char *charset, *transfer_encoding;
    int64_t length;
    /* MESSAGE: show's headers, in order (values NULL where maildex_header_t allows) */
    maildex_header_t *headers;
    size_t nheaders;
    /* the file's message only: notmuch_message_get_header's from and date, the mbox sender */
    char *from, *date, *sender_address;
    struct maildex_part **children;
    size_t nchildren;
    /* crypto (maildex.h): signatures of a verified part, the result of a decryption, gmime's reason
     * either failed; the envelope of the file's message */
    bool verified;
    int decrypt;                 /* 0 not attempted, -1 failed, 1 decrypted */
    maildex_signature_t *signatures;
    size_t nsignatures;
    char *crypto_error;
    maildex_crypto_t *crypto;
    char *session_key;           /* decrypted with MAILDEX_DECRYPT_STASH: its session key, to keep */
};

/* maildex_reply_t: the reply's headers, and the message replied to. */
struct maildex_reply {
    char *header_text;           /* gmime's RFC 2822 text of the reply's headers */
    maildex_header_t *headers;   /* Subject, From, To, Cc, Bcc when set, In-reply-to, References */
    size_t nheaders;
    struct maildex_part *original;
};

/* The read path's entry points of the module table (mime.h), in show.c and reply.c. Each
 * returns MAILDEX__PARSE_OK (parse.h); MAILDEX__PARSE_ERROR with *error ("cannot open: ...")
 * when the file cannot be read; or MAILDEX__PARSE_NOT_MAIL when gmime finds no message in it. Results
 * go under ctx. */
int maildex__show_file(void *ctx, const char *path, const maildex_parts_options_t *opts,
                       const char *const *session_keys, struct maildex_part **out, char **error);
/* Writes part id's bytes (maildex_message_part_write's) to write(data, ...) in pieces as gmime
 * decodes them; *found is false (and PARSE_OK returned) when there is no part id. Parts are numbered
 * as show_file numbers them when it decrypts as decrypt says. */
int maildex__show_part_write(void *ctx, const char *path, int id, maildex_decrypt_t decrypt,
                             const char *const *session_keys, maildex_write_fn *write, void *data, bool *found,
                             char **error);
/* message_id is the message's id as the database has it (In-Reply-To and References name it). */
int maildex__show_reply_file(void *ctx, const char *path, const char *message_id,
                             const maildex_reply_options_t *opts, const char *const *session_keys,
                             struct maildex_reply **out, char **error);
/* *out: the distinct ids of References and In-Reply-To (self excluded), sorted bytewise as notmuch's
 * reference terms are, NULL-terminated. */
int maildex__show_references_file(void *ctx, const char *path, const char *message_id, char ***out,
                                  char **error);
/* *out: every header of the file as notmuch_message_get_header reads one (decoded; the first of a name,
 * but every Received and Delivered-To joined by spaces), as pairs name, value, ..., NULL (each name
 * once, in the file's order and spelling), under ctx. */
int maildex__show_headers_file(void *ctx, const char *path, char ***out, char **error);

#endif
