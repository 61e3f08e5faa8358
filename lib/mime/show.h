/* SPDX-License-Identifier: GPL-3.0-or-later */
/* show.h: the read path of the parser module (show, reply), after notmuch 0.37's mime-node.c and
 * notmuch-show.c: opening a mail file as notmuch's show does, the part walker that copies a parse into
 * a tree of plain parts (tree.h), and the helpers show and reply share (text of a text part,
 * notmuch's header strings). show.c walks, content.c decodes, reply.c answers. gmime's
 * types appear here, so only the module's files include this header; what they return never holds a
 * gmime object. */
#ifndef MAILDEX_MIME_SHOW_H
#define MAILDEX_MIME_SHOW_H

#include "body.h"
#include "tree.h"

#include <gmime/gmime.h>
#include <talloc.h>

/* Parts nested deeper than this (multiparts and attached messages) are shown without their content.
 * notmuch recurses without a bound of its own, but gmime parses no deeper than 1024 levels, so at this
 * bound both show the same parts; it bounds the recursion here and in the printers. The message is
 * level 0 here, its root part level 1: hence one more. */
#define MAILDEX__SHOW_MAX_DEPTH 1025

/* ---- what the module's read path shares ---- */

/* Opens path (a regular file, without blocking) and lets gmime parse it over the file itself, as
 * notmuch's show does (no line-end repair: show prints what notmuch prints). *indexed is the parse
 * notmuch_message_get_header reads (and indexing read): message itself, or for a file that starts with
 * "From " the one-message mbox in it (NULL when it holds more). The objects are held by ctx. Returns
 * the message, or NULL with *rc and *error set as tree.h says. */
GMimeMessage *maildex__show_open(void *ctx, const char *path, GMimeMessage **indexed, int *rc,
                                 char **error);

/* The tree of message (the file's, id 0) as maildex_message_parts describes it, its from and date
 * read from indexed, under ctx; session_keys (NULL-terminated, or NULL) open encrypted parts unless
 * opts->decrypt is FALSE. NULL only when out of memory. */
struct maildex_part *maildex__show_tree(void *ctx, GMimeMessage *message, GMimeMessage *indexed,
                                        const maildex_parts_options_t *opts, const char *const *session_keys);

/* notmuch's show_text_part_content: part's content converted to UTF-8 (a mislabelled ISO-8859
 * charset replaced by the Windows one gmime detects) with CRLF turned into LF, as a talloc buffer
 * under ctx (*len bytes, NUL-terminated after them); NULL only when out of memory. */
char *maildex__show_text(void *ctx, GMimeObject *part, size_t *len);

/* notmuch's header strings, talloc'd under ctx (NULL when the message has none): the Date as gmime
 * formats it (the epoch when there is none), an address header as gmime writes the list, and a header
 * as notmuch_message_get_header reads one from the parse maildex__show_open calls indexed (decoded;
 * "" when absent or message is NULL; Received and Delivered-To every instance joined by spaces). */
char *maildex__show_date_string(void *ctx, GMimeMessage *message);
char *maildex__show_address_string(void *ctx, InternetAddressList *list);
char *maildex__show_file_header(void *ctx, GMimeMessage *message, const char *name);

/* ---- crypto (show-crypto.c, after notmuch's mime-node.c) ---- */

/* What one walk of a file's parts knows of the message's cryptographic envelope. */
struct maildex_crypto_state {
    maildex_crypto_t *envelope; /* the file's message's (its part's crypto) */
    bool payload_seen;          /* a part that is not crypto has been walked (depth first) */
};

/* Verifies multipart/signed part, or S/MIME signed data (application/pkcs7-mime): p gets its signatures,
 * or gmime's reason in p->crypto_error; they cover the message when no payload came before. *content
 * is the signed data's content (held by holder), NULL for a multipart/signed part or when gmime could
 * not unwrap it. Returns false only when out of memory. */
bool maildex__crypto_verify(struct maildex_crypto_state *c, void *holder, struct maildex_part *p,
                            GMimeObject *part, GMimeObject **content);

/* Decrypts multipart/encrypted part (or S/MIME enveloped data) as decrypt says, with session_keys first (maildex__crypto_unwrap):
 * *clear is the decrypted content (held by holder) or NULL with p->crypto_error set when decryption
 * was tried; p gets the signatures that came with it, and with STASH its session key. Returns false
 * only when out of memory. */
bool maildex__crypto_decrypt(struct maildex_crypto_state *c, void *holder, struct maildex_part *p,
                             GMimeObject *part, maildex_decrypt_t decrypt, const char *const *session_keys,
                             GMimeObject **clear);

/* _notmuch_message_crypto_potential_payload: part (child childnum of parent, NULL for the message's
 * root part) is payload unless it is the control part of a multipart/encrypted; the first payload of a
 * signed or fully decrypted message carries its protected Subject (a talloc child of the envelope).
 * Returns the part to show in its place: a fully decrypted payload without its legacy display part. */
GMimeObject *maildex__crypto_payload(struct maildex_crypto_state *c, GMimeObject *part, GMimeObject *parent,
                                     int childnum);

/* talloc_strdup that keeps NULL. */
char *maildex__show_strdup(void *ctx, const char *s);

#endif
