/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The crypto of the read path (see show.h), after notmuch 0.37's mime-node.c and util/crypto.c:
 * verifying a multipart/signed part and decrypting a multipart/encrypted one through gmime's GPG
 * context (gpgme, the user's GNUPGHOME and gpg-agent), copying the signatures into plain structs, and
 * the message's cryptographic envelope (which signatures cover the payload, whether it was decrypted).
 * Nothing here prints or writes: a failure is recorded on the part for the caller to report, and a
 * session key to stash is handed back on the part (the library stores it). */
#include "show.h"

#include <string.h>

/* notmuch's format_signature_errors: the error bits by the names it prints, in its order. */
static const struct {
    GMimeSignatureStatus bit;
    const char *name;
} error_bits[] = {
    {GMIME_SIGNATURE_STATUS_KEY_REVOKED, "key-revoked"}, {GMIME_SIGNATURE_STATUS_KEY_EXPIRED, "key-expired"},
    {GMIME_SIGNATURE_STATUS_SIG_EXPIRED, "sig-expired"}, {GMIME_SIGNATURE_STATUS_KEY_MISSING, "key-missing"},
    {GMIME_SIGNATURE_STATUS_CRL_MISSING, "crl-missing"}, {GMIME_SIGNATURE_STATUS_CRL_TOO_OLD, "crl-too-old"},
    {GMIME_SIGNATURE_STATUS_BAD_POLICY, "bad-policy"},   {GMIME_SIGNATURE_STATUS_SYS_ERROR, "sys-error"},
    {GMIME_SIGNATURE_STATUS_TOFU_CONFLICT, "tofu-conflict"},
};

/* notmuch's signature_status_to_string with its gmime-extra.c tests. */
static const char *status_string(GMimeSignatureStatus status)
{
    if (status & GMIME_SIGNATURE_STATUS_RED)
        return "bad";
    if (status & GMIME_SIGNATURE_STATUS_ERROR_MASK)
        return "error";
    return "good";
}

/* A user id or address is shown only for a key trusted fully or ultimately (gmime-extra.c). */
static const char *if_valid(GMimeCertificate *cert, const char *value)
{
    GMimeValidity validity = g_mime_certificate_get_id_validity(cert);

    return validity == GMIME_VALIDITY_FULL || validity == GMIME_VALIDITY_ULTIMATE ? value : NULL;
}

static bool copy_signature(void *ctx, maildex_signature_t *out, GMimeSignature *signature)
{
    GMimeSignatureStatus status = g_mime_signature_get_status(signature);
    GMimeCertificate *cert = g_mime_signature_get_certificate(signature);
    const char *fpr = cert ? g_mime_certificate_get_fingerprint(cert) : NULL;
    const char **names = talloc_zero_array(ctx, const char *, G_N_ELEMENTS(error_bits) + 1);
    size_t n = 0;

    if (names == NULL)
        return false;
    out->status = status_string(status);
    out->created = -1;
    if (strcmp(out->status, "good") == 0) {
        out->fingerprint = maildex__show_strdup(ctx, fpr);
        out->created = g_mime_signature_get_created(signature);
        out->expires = g_mime_signature_get_expires(signature);
        if (cert) {
            out->userid = maildex__show_strdup(ctx, if_valid(cert, g_mime_certificate_get_user_id(cert)));
            out->email = maildex__show_strdup(ctx, if_valid(cert, g_mime_certificate_get_email(cert)));
        }
    } else if (fpr) {
        out->keyid = talloc_strdup(ctx, strlen(fpr) < 16 ? fpr : fpr + strlen(fpr) - 16);
    }
    if (status & GMIME_SIGNATURE_STATUS_ERROR_MASK)
        out->errors = status;
    for (size_t i = 0; i < G_N_ELEMENTS(error_bits); i++)
        if (status & error_bits[i].bit)
            names[n++] = error_bits[i].name;
    out->error_names = names;
    return true;
}

/* The signatures of list (NULL: none could be checked) copied to p, which counts as verified. */
static bool set_signatures(struct maildex_part *p, GMimeSignatureList *list)
{
    int n = list ? g_mime_signature_list_length(list) : 0;

    p->verified = true;
    if (n <= 0)
        return true;
    p->signatures = talloc_zero_array(p, maildex_signature_t, (size_t) n);
    if (p->signatures == NULL)
        return false;
    for (int i = 0; i < n; i++)
        if (!copy_signature(p, &p->signatures[i], g_mime_signature_list_get_signature(list, i)))
            return false;
    p->nsignatures = (size_t) n;
    return true;
}

static bool set_error(struct maildex_part *p, GError *err)
{
    p->crypto_error = talloc_strdup(p, err && err->message ? err->message : "no error explanation given");
    if (err)
        g_error_free(err);
    return p->crypto_error != NULL;
}

/* _notmuch_message_crypto_potential_sig_list: signatures met before the payload cover the message;
 * a verification that gave no list at all (a corrupted signature) leaves it unsigned, even when an
 * earlier one signed it. */
static void envelope_signatures(struct maildex_crypto_state *c, const struct maildex_part *p, bool listed)
{
    if (c->payload_seen)
        return;
    c->envelope->signatures = p->signatures;
    c->envelope->nsignatures = p->nsignatures;
    c->envelope->is_signed = listed;
    if (c->envelope->decrypted == 2)
        c->envelope->signature_encrypted = true;
}

bool maildex__crypto_verify(struct maildex_crypto_state *c, void *holder, struct maildex_part *p,
                            GMimeObject *part, GMimeObject **content)
{
    GError *err = NULL;
    GMimeSignatureList *list;
    bool ok;

    *content = NULL;
    maildex__crypto_before_spawn();
    if (GMIME_IS_APPLICATION_PKCS7_MIME(part))
        list = g_mime_application_pkcs7_mime_verify(GMIME_APPLICATION_PKCS7_MIME(part), GMIME_VERIFY_NONE, content,
                                                    &err);
    else
        list = g_mime_multipart_signed_verify(GMIME_MULTIPART_SIGNED(part), GMIME_VERIFY_NONE, &err);
    if (*content)
        *content = maildex__hold_gobject(holder, *content);
    ok = set_signatures(p, list) && (list || set_error(p, err));
    envelope_signatures(c, p, list != NULL);
    if (list) {
        g_object_unref(list);
        if (err)
            g_error_free(err);
    }
    return ok;
}

bool maildex__crypto_decrypt(struct maildex_crypto_state *c, void *holder, struct maildex_part *p,
                             GMimeObject *part, maildex_decrypt_t decrypt, const char *const *session_keys,
                             GMimeObject **clear)
{
    GError *err = NULL;
    GMimeDecryptResult *result = NULL;
    GMimeSignatureList *list;
    const char *key;
    bool ok = true, attempted;

    *clear = maildex__crypto_unwrap(part, decrypt, session_keys, &attempted, &result, &err);
    if (attempted)
        p->decrypt = -1;
    if (*clear == NULL)
        return set_error(p, err);
    *clear = maildex__hold_gobject(holder, *clear);
    p->decrypt = 1;
    /* _notmuch_message_crypto_successful_decryption */
    if (!c->payload_seen)
        c->envelope->decrypted = 2;
    else if (c->envelope->decrypted == 0)
        c->envelope->decrypted = 1;
    list = result ? g_mime_decrypt_result_get_signatures(result) : NULL;
    if (list) {
        ok = set_signatures(p, list);
        envelope_signatures(c, p, true);
    }
    key = result && decrypt == MAILDEX_DECRYPT_STASH ? g_mime_decrypt_result_get_session_key(result) : NULL;
    if (key)
        ok = ok && (p->session_key = talloc_strdup(p, key)) != NULL;
    if (result)
        g_object_unref(result);
    return ok && *clear != NULL;
}

GMimeObject *maildex__crypto_payload(struct maildex_crypto_state *c, GMimeObject *part, GMimeObject *parent,
                                     int childnum)
{
    const char *subject;

    if (c->payload_seen || maildex__crypto_is_control(part, parent, childnum))
        return part;
    c->payload_seen = true;
    /* no cryptographic envelope, no protected headers */
    if (c->envelope->decrypted != 2 && !c->envelope->is_signed)
        return part;
    subject = maildex__payload_subject(part);
    if (subject)
        c->envelope->payload_subject = talloc_strdup(c->envelope, subject);
    return c->envelope->decrypted == 2 ? maildex__skip_legacy_display(part) : part;
}
