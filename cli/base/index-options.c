/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What the commands that index (new, insert, reindex; watch) share. The decryption policy: notmuch's
 * shared indexing option --decrypt and its config key index.decrypt (notmuch-config(1)), as the
 * library's maildex_decrypt_t. notmuch names the policies differently here than show does: indexing's
 * "true" keeps the session keys (STASH), "nostash" does not (TRUE). And new.tags checked before
 * anything is indexed. */
#include "base.h"

#include <stdlib.h>

#include <strings.h>

/* A bare --decrypt means the first keyword. */
const struct keyword cli_index_decrypt_keywords[] = {
    {"true", MAILDEX_DECRYPT_STASH}, {"false", MAILDEX_DECRYPT_FALSE},     {"auto", MAILDEX_DECRYPT_AUTO},
    {"nostash", MAILDEX_DECRYPT_TRUE}, {NULL, 0},
};

maildex_decrypt_t cli_index_decrypt(struct cli *cli, int option, bool given)
{
    const char *stored = NULL;
    char *value;
    maildex_decrypt_t decrypt = MAILDEX_DECRYPT_AUTO;

    if (given)
        return (maildex_decrypt_t) option;
    value = config_get(cli->ctx, cli->config, "index.decrypt");
    /* not in the file: `config set --database index.decrypt` may have stored it */
    if (value == NULL && cli->db && maildex_db_config_get(cli->db, "index.decrypt", &stored) == MAILDEX_STATUS_OK &&
        stored)
        value = talloc_strdup(cli->ctx, stored);
    /* notmuch's lib/indexopts.c: its spellings of a boolean, nostash, and auto for anything else */
    if (value && (!strcasecmp(value, "true") || !strcasecmp(value, "yes") || !strcasecmp(value, "1")))
        decrypt = MAILDEX_DECRYPT_STASH;
    else if (value && (!strcasecmp(value, "false") || !strcasecmp(value, "no") || !strcasecmp(value, "0")))
        decrypt = MAILDEX_DECRYPT_FALSE;
    else if (value && !strcasecmp(value, "nostash"))
        decrypt = MAILDEX_DECRYPT_TRUE;
    talloc_free(value);
    return decrypt;
}

int cli_check_new_tags(struct cli *cli, const char *const *tags)
{
    const char *why;

    for (size_t i = 0; tags[i]; i++)
        if (maildex_tag_check(tags[i], true, &why) != MAILDEX_STATUS_OK) {
            fprintf(cli->err, "Error: tag '%s' in new.tags: %s\n", tags[i], why);
            return EXIT_FAILURE;
        }
    return EXIT_SUCCESS;
}
