/* SPDX-License-Identifier: GPL-3.0-or-later */
/* body.h: what the two halves of the message parser share, and nothing else includes:
 * parse.c reads a file and its headers, body.c walks its MIME parts. gmime's types
 * appear here, so this header stays out of everything that does not link gmime. */
#ifndef MAILDEX_MESSAGE_BODY_H
#define MAILDEX_MESSAGE_BODY_H

#include "parse.h"

#include <gmime/gmime.h>

/* Fills msg->body, attachment_names and mime_types (talloc children of msg) and sets has_attachment,
 * is_signed and is_encrypted from message's MIME parts, as parse.h describes them. Scratch
 * memory and held gmime objects go under local. Returns false only when out of memory. */
bool maildex__message_walk(struct maildex__parsed_message *msg, void *local, GMimeMessage *message,
                           const struct maildex__parse_options *opts);

/* ---- crypto both halves share (crypto.c, after notmuch's util/crypto.c and repair.c) ---- */

/* _notmuch_crypto_decrypt: the cleartext of an encrypted part (multipart/encrypted, S/MIME enveloped
 * data) as decrypt (maildex_decrypt_t) allows: each of session_keys (NULL-terminated, or NULL) first,
 * then, unless decrypt is AUTO, the user's key (exporting the session key for STASH). A new reference,
 * or NULL with *err (gmime's reason; may be NULL). *attempted says whether anything was tried.
 * *result (result may be NULL) is gmime's result with the cleartext (signatures, session key), or
 * NULL. */
GMimeObject *maildex__crypto_unwrap(GMimeObject *part, int decrypt, const char *const *session_keys,
                                    bool *attempted, GMimeDecryptResult **result, GError **err);

/* "Mixed-up" PGP/MIME, as some mail servers mangle it (draft-dkg-openpgp-pgpmime-message-mangling):
 * a new multipart/encrypted (a reference the caller owns) made of its last two parts, or NULL when
 * part is not that. */
GMimeObject *maildex__repair_mixed_up(GMimeObject *part);

/* A protected-headers payload's "legacy display" part skipped: the payload's second part, or the
 * payload itself when it has none. */
GMimeObject *maildex__skip_legacy_display(GMimeObject *payload);

/* Is part (child childnum of parent) the control part of a multipart/encrypted (RFC 1847), which is
 * never payload? */
bool maildex__crypto_is_control(GMimeObject *part, GMimeObject *parent, int childnum);
/* Called before every gmime call that may run gpg: flushes stdio (crypto.c says why). */
void maildex__crypto_before_spawn(void);

/* The protected Subject a cryptographic payload carries (owned by part), or NULL. */
const char *maildex__payload_subject(GMimeObject *part);

/* Hands object (a reference the caller owns) to a talloc child of ctx, which calls release(object)
 * when ctx is freed, and returns object. Returns NULL for a NULL object, and releases object at once
 * and returns NULL when that allocation fails. */
void *maildex__hold(void *ctx, void *object, void (*release)(void *));

/* maildex__hold with g_object_unref. */
void *maildex__hold_gobject(void *ctx, void *object);

/* Opens path without blocking (a FIFO with no writer must not hang us) and checks it is a regular
 * file (of any size: nothing reads a file whole); returns the descriptor, closed by a talloc
 * destructor on ctx, or NULL with *error (may be NULL) set on ctx: "cannot open: ...", "not a
 * regular file", ... */
int *maildex__open_regular(void *ctx, const char *path, char **error);

/* A copy of s under ctx without the bytes that are not part of valid UTF-8 (and without NULs); NULL
 * when s is NULL or out of memory. */
char *maildex__valid_utf8_copy(void *ctx, const char *s);

#endif
