/* SPDX-License-Identifier: GPL-3.0-or-later */
/* indexopts.c: notmuch's indexing options (the decryption policy), defaulting to the handle's
 * index.decrypt, and their meaning for maildex's indexing calls. They hold no maildex object. */
#include "abi.h"

#include <stdlib.h>
#include <strings.h>

notmuch_indexopts_t *notmuch_database_get_default_indexopts(notmuch_database_t *db)
{
    notmuch_indexopts_t *opts = talloc_zero(db, notmuch_indexopts_t);
    const char *policy = nm_map_get(db->config, "index.decrypt");

    if (opts == NULL)
        return NULL;
    opts->decrypt = NOTMUCH_DECRYPT_AUTO;
    if (policy == NULL)
        return opts;
    if (strcasecmp(policy, "true") == 0 || strcasecmp(policy, "yes") == 0 || strcasecmp(policy, "1") == 0)
        opts->decrypt = NOTMUCH_DECRYPT_TRUE;
    else if (strcasecmp(policy, "false") == 0 || strcasecmp(policy, "no") == 0 || strcasecmp(policy, "0") == 0)
        opts->decrypt = NOTMUCH_DECRYPT_FALSE;
    else if (strcasecmp(policy, "nostash") == 0)
        opts->decrypt = NOTMUCH_DECRYPT_NOSTASH;
    return opts;
}

notmuch_status_t notmuch_indexopts_set_decrypt_policy(notmuch_indexopts_t *opts, notmuch_decryption_policy_t policy)
{
    if (opts == NULL)
        return NOTMUCH_STATUS_NULL_POINTER;
    opts->decrypt = policy;
    return NOTMUCH_STATUS_SUCCESS;
}

notmuch_decryption_policy_t notmuch_indexopts_get_decrypt_policy(const notmuch_indexopts_t *opts)
{
    return opts ? opts->decrypt : NOTMUCH_DECRYPT_FALSE;
}

void notmuch_indexopts_destroy(notmuch_indexopts_t *opts)
{
    talloc_free(opts);
}

/* notmuch's index-time policies in maildex's words: its "true" keeps session keys (maildex's STASH),
 * its "nostash" does not (maildex's TRUE). */
maildex_decrypt_t nm_decrypt_policy(const notmuch_indexopts_t *opts)
{
    switch (opts ? opts->decrypt : NOTMUCH_DECRYPT_AUTO) {
    case NOTMUCH_DECRYPT_FALSE:
        return MAILDEX_DECRYPT_FALSE;
    case NOTMUCH_DECRYPT_TRUE:
        return MAILDEX_DECRYPT_STASH;
    case NOTMUCH_DECRYPT_NOSTASH:
        return MAILDEX_DECRYPT_TRUE;
    default:
        return MAILDEX_DECRYPT_AUTO;
    }
}
