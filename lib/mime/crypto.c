/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The crypto both halves of the parser module share (body.h): opening an encrypted part
 * (notmuch 0.37's util/crypto.c _notmuch_crypto_decrypt: the message's stored session keys first,
 * then the user's key through gmime's GPG or S/MIME context), and the repairs notmuch makes to
 * encrypted mail before it indexes or shows it (util/repair.c). Indexing (body.c) and show
 * (show-crypto.c) call the same functions, so a message decrypts, or fails to, the same way in both.
 * Nothing here keeps state, prints, or touches the database: what a decryption found (its session
 * key, its signatures) goes back to the caller. */
#include "body.h"

#include "maildex.h"

#include <stdio.h>
#include <string.h>

/* gpgme forks gpg. A child that flushes stdio on its way out (ThreadSanitizer's _exit does) writes
 * whatever the parent had buffered a second time, so nothing is left buffered when it forks. */
void maildex__crypto_before_spawn(void)
{
    fflush(NULL);
}

/* A part that gmime can decrypt: multipart/encrypted, or S/MIME enveloped data. */
static GMimeObject *decrypt_once(GMimeObject *part, GMimeDecryptFlags flags, const char *session_key,
                                 GMimeDecryptResult **result, GError **err)
{
    maildex__crypto_before_spawn();
    if (GMIME_IS_MULTIPART_ENCRYPTED(part))
        return g_mime_multipart_encrypted_decrypt(GMIME_MULTIPART_ENCRYPTED(part), flags, session_key,
                                                  result, err);
    if (GMIME_IS_APPLICATION_PKCS7_MIME(part) &&
        g_mime_application_pkcs7_mime_get_smime_type(GMIME_APPLICATION_PKCS7_MIME(part)) ==
            GMIME_SECURE_MIME_TYPE_ENVELOPED_DATA)
        return g_mime_application_pkcs7_mime_decrypt(GMIME_APPLICATION_PKCS7_MIME(part), flags, session_key,
                                                     result, err);
    return NULL;
}

static void clear_error(GError **err)
{
    if (*err)
        g_error_free(*err);
    *err = NULL;
}

/* Drops a result that came with no cleartext, so the caller sees either both or neither. */
static GMimeObject *settle(GMimeObject *clear, GMimeDecryptResult **result)
{
    if (clear == NULL && *result) {
        g_object_unref(*result);
        *result = NULL;
    }
    return clear;
}

GMimeObject *maildex__crypto_unwrap(GMimeObject *part, int decrypt, const char *const *session_keys,
                                    bool *attempted, GMimeDecryptResult **result, GError **err)
{
    GMimeDecryptResult *local = NULL;
    GMimeObject *clear = NULL;

    *attempted = false;
    *err = NULL;
    if (result == NULL)
        result = &local;
    *result = NULL;
    if (decrypt == MAILDEX_DECRYPT_FALSE)
        return NULL;
    for (size_t i = 0; clear == NULL && session_keys && session_keys[i]; i++) {
        clear_error(err);
        *attempted = true;
        clear = settle(decrypt_once(part, GMIME_DECRYPT_NONE, session_keys[i], result, err), result);
    }
    if (clear == NULL && decrypt != MAILDEX_DECRYPT_AUTO) {
        clear_error(err);
        *attempted = true;
        /* Only a stash wants the key; asking for it costs gpg nothing but exposes it. */
        clear = settle(decrypt_once(part,
                                    decrypt == MAILDEX_DECRYPT_STASH ? GMIME_DECRYPT_EXPORT_SESSION_KEY
                                                                     : GMIME_DECRYPT_NONE,
                                    NULL, result, err),
                       result);
    }
    if (clear)
        clear_error(err);
    if (local)
        g_object_unref(local);
    return clear;
}

/* ---- repairs (util/repair.c) ---------------------------------------------------------------- */

static bool is_type(GMimeObject *part, const char *type, const char *subtype)
{
    GMimeContentType *ct = part ? g_mime_object_get_content_type(part) : NULL;

    return ct && g_mime_content_type_is_type(ct, type, subtype);
}

static bool protected_v1(GMimeObject *part)
{
    const char *value = g_mime_object_get_content_type_parameter(part, "protected-headers");

    return value && strcmp(value, "v1") == 0;
}

GMimeObject *maildex__repair_mixed_up(GMimeObject *part)
{
    GMimeMultipart *mp;
    GMimeObject *parts[3], *repaired;
    char *prelude;
    bool empty;

    if (!GMIME_IS_MULTIPART(part) || !is_type(part, "multipart", "mixed") ||
        g_mime_multipart_get_count(GMIME_MULTIPART(part)) != 3)
        return NULL;
    mp = GMIME_MULTIPART(part);
    for (int i = 0; i < 3; i++)
        parts[i] = g_mime_multipart_get_part(mp, i);
    if (!is_type(parts[0], "text", "plain") || !GMIME_IS_TEXT_PART(parts[0]) ||
        !is_type(parts[1], "application", "pgp-encrypted") ||
        !is_type(parts[2], "application", "octet-stream"))
        return NULL;
    prelude = g_mime_text_part_get_text(GMIME_TEXT_PART(parts[0]));
    empty = prelude == NULL || prelude[0] == '\0';
    g_free(prelude);
    if (!empty)
        return NULL;
    repaired = GMIME_OBJECT(g_mime_multipart_encrypted_new());
    g_mime_object_set_content_type_parameter(repaired, "protocol", "application/pgp-encrypted");
    g_mime_multipart_insert(GMIME_MULTIPART(repaired), 0, parts[1]);
    g_mime_multipart_insert(GMIME_MULTIPART(repaired), 1, parts[2]);
    return repaired;
}

GMimeObject *maildex__skip_legacy_display(GMimeObject *payload)
{
    GMimeObject *first;

    if (!is_type(payload, "multipart", "mixed") || !protected_v1(payload) || !GMIME_IS_MULTIPART(payload) ||
        g_mime_multipart_get_count(GMIME_MULTIPART(payload)) != 2)
        return payload;
    first = g_mime_multipart_get_part(GMIME_MULTIPART(payload), 0);
    /* text/rfc822-headers was the early choice, text/plain the standard one: both are accepted. */
    if (!(is_type(first, "text", "plain") || is_type(first, "text", "rfc822-headers")) || !protected_v1(first) ||
        !GMIME_IS_TEXT_PART(first))
        return payload;
    return g_mime_multipart_get_part(GMIME_MULTIPART(payload), 1);
}

bool maildex__crypto_is_control(GMimeObject *part, GMimeObject *parent, int childnum)
{
    const char *protocol;
    GMimeContentType *type;
    char *mime;
    bool control;

    if (parent == NULL || !GMIME_IS_MULTIPART_ENCRYPTED(parent) || childnum != 0)
        return false;
    protocol = g_mime_object_get_content_type_parameter(parent, "protocol");
    type = g_mime_object_get_content_type(part);
    mime = type ? g_mime_content_type_get_mime_type(type) : NULL;
    control = protocol && mime && strcmp(mime, protocol) == 0;
    g_free(mime);
    return control;
}

const char *maildex__payload_subject(GMimeObject *part)
{
    const char *forwarded = g_mime_object_get_content_type_parameter(part, "forwarded");
    GMimeMessage *message;

    /* draft-melnikov-smime-header-signing: a message/rfc822 payload with forwarded="no" */
    if (GMIME_IS_MESSAGE_PART(part) && forwarded && strcmp(forwarded, "no") == 0) {
        message = g_mime_message_part_get_message(GMIME_MESSAGE_PART(part));
        return message ? g_mime_message_get_subject(message) : NULL;
    }
    /* "memoryhole" protected headers, as Enigmail and K-9 write them */
    return protected_v1(part) ? g_mime_object_get_header(part, "Subject") : NULL;
}
