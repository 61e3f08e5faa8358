/* SPDX-License-Identifier: GPL-3.0-or-later */
/* maildex_reindex(): re-parse the files of the messages a query matches and re-index them, keeping
 * their tags. The matches are collected first (Message-IDs), then each is re-parsed and rewritten in
 * batched transactions; re-indexing never reads the whole store. As notmuch's reindex, it drops the
 * files that are gone, and a message whose every file is gone; as `new`, only a file that is really
 * gone (no such file or directory), never one that exists but cannot be read. */
#include "store/maildex-private.h"

#include "message/properties.h"
#include "mime/parse.h"
#include "mime/mime.h"
#include "read/files.h"
#include "message/renames.h"
#include "message/write.h"

#include <glib.h>
#include <string.h>
#include <sys/stat.h>

#define BATCH 500

/* The Message-IDs q matches: keys may change as messages are re-indexed (a new date moves a
 * message to a new key), ids do not. */
static maildex_status_t collect_ids(maildex_query_t *q, GPtrArray *ids)
{
    maildex_messages_t *it = NULL;
    maildex_message_t *m = NULL;
    maildex_status_t st = maildex_query_search_messages(q, &it);

    while (st == MAILDEX_STATUS_OK && (st = maildex_messages_next(it, &m)) == 0 && m)
        g_ptr_array_add(ids, g_strdup(maildex_message_id(m)));
    maildex_messages_destroy(it);
    return st;
}

/* Drops the files that are gone; *removed is set when they were all the message had. */
static maildex_status_t drop_gone(maildex_db_t *db, GArray *gone, bool *removed)
{
    maildex_status_t st = MAILDEX_STATUS_OK;

    *removed = false;
    /* reindex knows nothing of maildir.synchronize_flags: the tags stay as they are, as notmuch's */
    for (guint i = 0; i < gone->len && st == MAILDEX_STATUS_OK && !*removed; i++)
        st = maildex__store_remove_file(db, g_array_index(gone, int64_t, i), false, removed);
    return st;
}

/* A mail root that is not there (a disk not mounted) makes every file look gone: refuse instead. */
static maildex_status_t check_mail_root(maildex_db_t *db)
{
    struct stat sb;

    if (stat(db->mail_root, &sb) == 0 && S_ISDIR(sb.st_mode))
        return MAILDEX_STATUS_OK;
    return maildex__error(db, MAILDEX_STATUS_FILE_NOT_FOUND, "mail root '%s' is not a directory",
                          db->mail_root);
}

/* Re-indexes the message with Message-ID id, when it is still there and a file of it can be read:
 * decrypting as decrypt says, with the session keys it keeps unless they are to go. */
static maildex_status_t reindex_one(maildex_db_t *db, const struct maildex__mime_ops *mime, const char *id,
                                    maildex_decrypt_t decrypt, GArray *gone, uint64_t *done)
{
    void *local = talloc_new(NULL);
    struct maildex__parse_options opts = {.decrypt = decrypt, .user_fields = db->user_fields};
    struct maildex__parsed_message *m = NULL;
    const char **keys = NULL;
    int64_t key, new_key;
    bool removed = false;
    maildex_status_t st = maildex__lookup_id(db, MAILDEX__STMT_MESSAGE_FIND, id, &key);

    g_array_set_size(gone, 0);
    if (st == MAILDEX_STATUS_OK && key && decrypt != MAILDEX_DECRYPT_FALSE)
        st = maildex__session_keys(db, local, key, &keys);
    opts.session_keys = keys;
    if (st == MAILDEX_STATUS_OK && key)
        st = maildex__parse_first_file(db, mime, local, key, &opts, &m, gone);
    if (st == MAILDEX_STATUS_OK)
        st = drop_gone(db, gone, &removed);
    if (st == MAILDEX_STATUS_OK && m && !removed) {
        st = maildex__store_reindex(db, key, m, decrypt == MAILDEX_DECRYPT_FALSE, &new_key);
        ++*done;
    }
    talloc_free(local);
    return st;
}

maildex_status_t maildex_reindex(maildex_query_t *q, maildex_decrypt_t decrypt, uint64_t *reindexed)
{
    maildex_db_t *db = maildex__query_db(q);
    GPtrArray *ids = g_ptr_array_new_with_free_func(g_free);
    const struct maildex__mime_ops *mime = NULL;
    struct maildex__writer_lock *lock = NULL;
    /* An indexer: no `new` may apply a scan made before this re-keys messages, nor the other way. */
    maildex_status_t st = maildex__writer_lock(db, "indexing", &lock);
    GArray *gone = g_array_new(FALSE, FALSE, sizeof(int64_t));
    uint64_t done = 0;

    if (st == MAILDEX_STATUS_OK) /* files where their rows say, before any is parsed */
        st = maildex__renames_finish(db);
    if (st == MAILDEX_STATUS_OK)
        st = check_mail_root(db);
    if (st == MAILDEX_STATUS_OK)
        st = collect_ids(q, ids);
    if (st == MAILDEX_STATUS_OK && ids->len)
        st = maildex__mime(db, &mime);
    if (st == MAILDEX_STATUS_OK)
        st = maildex__begin(db);
    for (guint i = 0; i < ids->len && st == MAILDEX_STATUS_OK; i++) {
        st = reindex_one(db, mime, ids->pdata[i], decrypt, gone, &done);
        if (st == MAILDEX_STATUS_OK && (i + 1) % BATCH == 0)
            st = maildex__commit_and_begin(db);
    }
    if (st == MAILDEX_STATUS_OK)
        st = maildex__commit(db);
    else if (db->in_transaction)
        maildex__rollback(db);
    g_ptr_array_free(ids, TRUE);
    g_array_free(gone, TRUE);
    maildex__writer_unlock(lock);
    if (reindexed)
        *reindexed = done;
    return st;
}
