/* SPDX-License-Identifier: GPL-3.0-or-later */
/* reindex-message.c: maildex_db_reindex_message(), maildex_reindex for the one message a Message-ID
 * names (show's --decrypt=stash, libnotmuch's notmuch_message_reindex): the id: query, quoted as notmuch
 * quotes a boolean term, is made here so that no caller builds query text from an id. */
#include "store/maildex-private.h"

#include <string.h>

maildex_status_t maildex_db_reindex_message(maildex_db_t *db, const char *message_id, maildex_decrypt_t decrypt,
                                            bool *reindexed)
{
    maildex_query_options_t opts = MAILDEX_QUERY_OPTIONS_INIT;
    maildex_query_t *q = NULL;
    char *text = message_id ? talloc_strdup(NULL, "id:\"") : NULL;
    uint64_t n = 0;
    maildex_status_t st;

    for (const char *c = message_id; text && c && *c; c++)
        text = *c == '"' ? talloc_strdup_append(text, "\"\"") : talloc_strndup_append(text, c, 1);
    if (text)
        text = talloc_strdup_append(text, "\"");
    opts.exclude = MAILDEX_EXCLUDE_FALSE; /* excluded messages are re-indexed too */
    if (message_id == NULL)
        st = maildex__error(db, MAILDEX_STATUS_INVALID_ARGUMENT, "no Message-ID given");
    else if (text == NULL)
        st = maildex__error(db, MAILDEX_STATUS_NO_MEMORY, "out of memory");
    else
        st = maildex_query_create(db, text, &opts, &q);
    if (st == MAILDEX_STATUS_OK)
        st = maildex_reindex(q, decrypt, &n);
    maildex_query_destroy(q);
    talloc_free(text);
    if (reindexed)
        *reindexed = st == MAILDEX_STATUS_OK && n > 0;
    return st;
}
