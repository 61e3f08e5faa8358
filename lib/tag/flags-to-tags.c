/* SPDX-License-Identifier: GPL-3.0-or-later */
/* flags-to-tags.c: maildex_db_message_flags_to_tags(), notmuch's maildir_flags_to_tags for one
 * message named by its Message-ID: its files' Maildir flags decide draft, flagged, passed, replied
 * and unread (message/tags.c has the rule `new` applies). One transaction, or part of the caller's
 * atomic section. The other way, tags to file names, is maildex_db_tag_message with
 * MAILDEX_TAG_SYNC_FLAGS. */
#include "store/maildex-private.h"

#include "message/tags.h"

maildex_status_t maildex_db_message_flags_to_tags(maildex_db_t *db, const char *message_id)
{
    int64_t key = 0;
    maildex_status_t st;

    if (message_id == NULL)
        return maildex__error(db, MAILDEX_STATUS_INVALID_ARGUMENT, "no Message-ID given");
    if (db->mode == MAILDEX_DB_READ_ONLY)
        return maildex__error(db, MAILDEX_STATUS_READ_ONLY, "database '%s' was opened read-only", db->path);
    st = maildex__begin(db);
    if (st != MAILDEX_STATUS_OK)
        return st;
    st = maildex__lookup_id(db, MAILDEX__STMT_MESSAGE_FIND, message_id, &key);
    if (st == MAILDEX_STATUS_OK && key == 0) {
        maildex__commit(db); /* nothing was written: ends only this call's part of the transaction */
        return maildex__error(db, MAILDEX_STATUS_NOT_FOUND, "no message with Message-ID '%s'", message_id);
    }
    if (st == MAILDEX_STATUS_OK)
        st = maildex__message_flags_to_tags(db, key);
    if (st == MAILDEX_STATUS_OK)
        return maildex__commit(db);
    maildex__rollback(db);
    return st;
}
