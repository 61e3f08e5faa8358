/* The crypto of the read path (see mime-show.h), after notmuch 0.37's mime-node.c and util/crypto.c:
 * verifying a multipart/signed part and decrypting a multipart/encrypted one through gmime's GPG
 * context (gpgme, the user's GNUPGHOME and gpg-agent), copying the signatures into plain structs, and
 * the message's cryptographic envelope (which signatures cover the payload, whether it was decrypted).
 * Nothing here prints or writes: a failure is recorded on the part for the caller to report, and no
 * session key is stored (show never writes to the database). */
#include "mime-show.h"

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

/* _notmuch_message_crypto_potential_sig_list: signatures met before the payload cover the message. */
static void envelope_signatures(struct maildex_crypto_state *c, const struct maildex_part *p)
{
    if (c->payload_seen)
        return;
    c->envelope->signatures = p->signatures;
    c->envelope->nsignatures = p->nsignatures;
    c->envelope->is_signed = true;
    if (c->envelope->decrypted == 2)
        c->envelope->signature_encrypted = true;
}

bool maildex__crypto_verify(struct maildex_crypto_state *c, struct maildex_part *p, GMimeObject *part)
{
    GError *err = NULL;
    GMimeSignatureList *list = g_mime_multipart_signed_verify(GMIME_MULTIPART_SIGNED(part), GMIME_VERIFY_NONE, &err);
    bool ok = set_signatures(p, list) && (list || set_error(p, err));

    if (list) {
        g_object_unref(list);
        if (err)
            g_error_free(err);
    }
    envelope_signatures(c, p);
    return ok;
}

bool maildex__crypto_decrypt(struct maildex_crypto_state *c, void *holder, struct maildex_part *p,
                             GMimeObject *part, maildex_decrypt_t decrypt, GMimeObject **clear)
{
    GError *err = NULL;
    GMimeDecryptResult *result = NULL;
    GMimeSignatureList *list;
    bool ok = true;

    *clear = NULL;
    /* AUTO decrypts with a stored session key only, and maildex stores none (index.decrypt). */
    if (decrypt == MAILDEX_DECRYPT_TRUE) {
        p->decrypt = -1;
        *clear = g_mime_multipart_encrypted_decrypt(GMIME_MULTIPART_ENCRYPTED(part), GMIME_DECRYPT_NONE, NULL,
                                                    &result, &err);
    }
    if (*clear == NULL) {
        if (result)
            g_object_unref(result);
        return set_error(p, err);
    }
    if (err)
        g_error_free(err);
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
        envelope_signatures(c, p);
    }
    if (result)
        g_object_unref(result);
    return ok && *clear != NULL;
}

void maildex__crypto_payload(struct maildex_crypto_state *c, GMimeObject *part, GMimeObject *parent, int childnum)
{
    const char *protocol;
    GMimeContentType *type;
    char *mime;
    bool control = false;

    if (c->payload_seen)
        return;
    /* The first child of multipart/encrypted of the protocol's type is control information. */
    if (parent && GMIME_IS_MULTIPART_ENCRYPTED(parent) && childnum == 0) {
        protocol = g_mime_object_get_content_type_parameter(parent, "protocol");
        type = g_mime_object_get_content_type(part);
        mime = type ? g_mime_content_type_get_mime_type(type) : NULL;
        control = protocol && mime && strcmp(mime, protocol) == 0;
        g_free(mime);
    }
    c->payload_seen = !control;
}
