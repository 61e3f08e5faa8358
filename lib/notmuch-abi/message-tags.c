/* SPDX-License-Identifier: GPL-3.0-or-later */
/* message-tags.c: changing one message's tags, and its Maildir flags <-> tags, as notmuch's library
 * does: each change is written at once (maildex_db_tag_message: one transaction, or part of the
 * caller's atomic section) unless the message is frozen, when the tag set it ends with is written
 * at the last thaw, in one call. The message object's tags follow what it changed. No rule beyond
 * notmuch's library rules (no NULL tag, none longer than NOTMUCH_TAG_MAX). */
#include "abi.h"

#include <stdlib.h>
#include <string.h>

/* The local tag set after adding (add true) or removing tag. */
static void change_local(notmuch_message_t *msg, const char *tag, bool add)
{
    size_t n = 0, at = 0;
    char **grown;

    while (msg->tags[n])
        n++;
    while (at < n && strcmp(msg->tags[at], tag) < 0)
        at++;
    if (at < n && strcmp(msg->tags[at], tag) == 0) {
        if (!add) {
            talloc_free(msg->tags[at]);
            memmove(&msg->tags[at], &msg->tags[at + 1], (n - at) * sizeof *msg->tags);
        }
        return;
    }
    if (!add || (grown = talloc_realloc(msg, msg->tags, char *, n + 2)) == NULL)
        return;
    msg->tags = grown;
    memmove(&msg->tags[at + 1], &msg->tags[at], (n - at + 1) * sizeof *msg->tags);
    msg->tags[at] = talloc_strdup(msg->tags, tag);
}

/* Writes the message's whole tag set (frozen changes at the last thaw), with flags (SYNC_FLAGS when
 * the files are to follow them). */
static notmuch_status_t write_all(notmuch_message_t *msg, unsigned flags)
{
    size_t n = 0;
    maildex_tag_op_t *ops;
    maildex_status_t st;
    notmuch_status_t nst = nm_message_load_tags(msg); /* forgotten by a reindex: the store's, not a crash */

    if (nst != NOTMUCH_STATUS_SUCCESS)
        return nst;
    while (msg->tags[n])
        n++;
    ops = talloc_array(msg, maildex_tag_op_t, n + 1);
    if (ops == NULL)
        return NOTMUCH_STATUS_OUT_OF_MEMORY;
    for (size_t i = 0; i < n; i++)
        ops[i] = (maildex_tag_op_t){msg->tags[i], true};
    st = maildex_db_tag_message(msg->db->mdb, msg->id, ops, n, MAILDEX_TAG_REMOVE_ALL | flags, NULL);
    talloc_free(ops);
    return nm_error(msg->db, st, "changing tags");
}

/* Tag changes made while frozen, written now with flags. notmuch keeps them in its in-memory document,
 * which tags_to_maildir_flags reads the flags from (and writes whole when it renames a file) and
 * maildir_flags_to_tags changes; ours live only in this object, and both calls work on the store's
 * tags and then read them back, so the changes go to the store first: otherwise the flags would miss
 * them and the reread would drop them (alot tags inside freeze/thaw and syncs the flags in between). */
static notmuch_status_t write_frozen(notmuch_message_t *msg, unsigned flags)
{
    if (!msg->frozen_changed)
        return NOTMUCH_STATUS_SUCCESS;
    msg->frozen_changed = false;
    return write_all(msg, flags);
}

static notmuch_status_t change(notmuch_message_t *msg, const char *tag, bool add)
{
    notmuch_status_t st = nm_writable(msg->db);
    maildex_tag_op_t op = {tag, add};

    if (st)
        return st;
    if (tag == NULL)
        return NOTMUCH_STATUS_NULL_POINTER;
    if (strlen(tag) > NOTMUCH_TAG_MAX)
        return NOTMUCH_STATUS_TAG_TOO_LONG;
    if ((st = nm_message_load_tags(msg)) != NOTMUCH_STATUS_SUCCESS)
        return st;
    if (msg->frozen)
        msg->frozen_changed = true;
    else if ((st = nm_message_flush(msg)) != NOTMUCH_STATUS_SUCCESS)
        return st;
    else if ((st = nm_error(msg->db, maildex_db_tag_message(msg->db->mdb, msg->id, &op, 1, 0, NULL),
                            "changing tags")) != NOTMUCH_STATUS_SUCCESS)
        return st;
    change_local(msg, tag, add);
    return NOTMUCH_STATUS_SUCCESS;
}

notmuch_status_t notmuch_message_add_tag(notmuch_message_t *msg, const char *tag)
{
    return change(msg, tag, true);
}

notmuch_status_t notmuch_message_remove_tag(notmuch_message_t *msg, const char *tag)
{
    return change(msg, tag, false);
}

notmuch_status_t notmuch_message_remove_all_tags(notmuch_message_t *msg)
{
    notmuch_status_t st = nm_writable(msg->db);

    if (st == NOTMUCH_STATUS_SUCCESS)
        st = nm_message_load_tags(msg);
    if (st == NOTMUCH_STATUS_SUCCESS && !msg->frozen)
        st = nm_message_flush(msg);
    if (st)
        return st;
    if (msg->frozen)
        msg->frozen_changed = true;
    else if ((st = nm_error(msg->db, maildex_db_tag_message(msg->db->mdb, msg->id, NULL, 0, MAILDEX_TAG_REMOVE_ALL, NULL),
                            "changing tags")) != NOTMUCH_STATUS_SUCCESS)
        return st;
    for (char **t = msg->tags; *t; t++)
        talloc_free(*t);
    msg->tags[0] = NULL;
    return NOTMUCH_STATUS_SUCCESS;
}

notmuch_status_t notmuch_message_freeze(notmuch_message_t *msg)
{
    notmuch_status_t st = nm_writable(msg->db);

    if (st == NOTMUCH_STATUS_SUCCESS && msg->frozen == 0)
        st = nm_message_load_tags(msg);
    if (st == NOTMUCH_STATUS_SUCCESS)
        msg->frozen++;
    return st;
}

notmuch_status_t notmuch_message_thaw(notmuch_message_t *msg)
{
    notmuch_status_t st = nm_writable(msg->db);

    if (st)
        return st;
    if (msg->frozen == 0)
        return NOTMUCH_STATUS_UNBALANCED_FREEZE_THAW;
    if (--msg->frozen == 0 && (st = nm_message_flush(msg)) != NOTMUCH_STATUS_SUCCESS)
        return st;
    return msg->frozen == 0 ? write_frozen(msg, 0) : NOTMUCH_STATUS_SUCCESS;
}

/* ---- Maildir flags ---------------------------------------------------------------------------------- */

notmuch_status_t notmuch_message_maildir_flags_to_tags(notmuch_message_t *msg)
{
    notmuch_status_t st = nm_readable(msg->db, "reading maildir flags");

    /* notmuch reads the file names first (an exception on a closed handle), then changes tags */
    if (st == NOTMUCH_STATUS_SUCCESS)
        st = nm_writable(msg->db);
    if (st == NOTMUCH_STATUS_SUCCESS)
        st = write_frozen(msg, 0);
    if (st == NOTMUCH_STATUS_SUCCESS)
        st = nm_error(msg->db, maildex_db_message_flags_to_tags(msg->db->mdb, msg->id), "changing tags");
    if (st == NOTMUCH_STATUS_SUCCESS) {
        nm_message_forget(msg, true);
        st = nm_message_load_tags(msg);
    }
    return st;
}

notmuch_status_t notmuch_message_tags_to_maildir_flags(notmuch_message_t *msg)
{
    const unsigned sync = MAILDEX_TAG_SYNC_FLAGS | MAILDEX_TAG_RENAME_ALWAYS;
    notmuch_status_t st = nm_writable(msg->db);

    if (st == NOTMUCH_STATUS_SUCCESS && msg->frozen_changed)
        st = write_frozen(msg, sync);
    else if (st == NOTMUCH_STATUS_SUCCESS)
        st = nm_error(msg->db, maildex_db_tag_message(msg->db->mdb, msg->id, NULL, 0, sync, NULL),
                      "renaming files");
    if (st == NOTMUCH_STATUS_SUCCESS) /* the names changed: read them again when asked */
        nm_message_forget(msg, true);
    return st;
}
