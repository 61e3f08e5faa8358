/* SPDX-License-Identifier: GPL-3.0-or-later */
/* message-flags.c: maildex_message_maildir_flags(), the Maildir flags a message's files carry as
 * notmuch reads them for notmuch_message_has_maildir_flag (message/tags.c has the rule, which
 * maildex__message_flags_to_tags applies too). Reads only. */
#include "message/tags.h"
#include "search.h"

maildex_status_t maildex_message_maildir_flags(maildex_message_t *m, const char **flags)
{
    char combined[256];
    bool seen_info = false;
    maildex_status_t st = MAILDEX_STATUS_OK;

    *flags = NULL;
    if (!m->ghost)
        st = maildex__message_maildir_flags(m->q->db, m->key, combined, sizeof combined, &seen_info);
    if (st == MAILDEX_STATUS_OK && seen_info && (*flags = talloc_strdup(m, combined)) == NULL)
        st = maildex__error(m->q->db, MAILDEX_STATUS_NO_MEMORY, "out of memory");
    return st;
}
