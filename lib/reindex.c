/* maildex_reindex(): re-parse the files of the messages a query matches and re-index them, keeping
 * their tags. The matches are collected first (Message-IDs), then each is re-parsed and rewritten in
 * batched transactions; re-indexing never reads the whole store. */
#include "maildex-private.h"

#include "maildir.h"
#include "message-parse.h"
#include "mime.h"
#include "renames.h"
#include "store.h"

#include <glib.h>

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

/* Parses the first of the message's files that still reads as mail. */
static maildex_status_t parse_any_file(maildex_db_t *db, const struct maildex__mime_ops *mime,
                                       void *ctx, int64_t key,
                                       struct maildex__parsed_message **out)
{
    sqlite3_stmt *stmt;
    bool row;
    maildex_status_t st = maildex__stmt(db, MAILDEX__STMT_FILE_FIRST_OF_MESSAGE, &stmt);

    *out = NULL;
    if (st)
        return st;
    sqlite3_bind_int64(stmt, 1, key);
    while (*out == NULL && (st = maildex__step_row(db, stmt, &row, "cannot read files")) == 0 && row) {
        char *path = maildex__path_join(ctx, db->mail_root, (const char *) sqlite3_column_text(stmt, 0),
                                        (const char *) sqlite3_column_text(stmt, 1));
        struct maildex__parsed_message *m = NULL;
        if (mime->parse_file(ctx, path, &m, NULL) == MAILDEX__PARSE_OK)
            *out = m;
    }
    sqlite3_reset(stmt);
    return st;
}

maildex_status_t maildex_reindex(maildex_query_t *q, uint64_t *reindexed)
{
    maildex_db_t *db = maildex__query_db(q);
    GPtrArray *ids = g_ptr_array_new_with_free_func(g_free);
    const struct maildex__mime_ops *mime = NULL;
    struct maildex__writer_lock *lock = NULL;
    /* An indexer: no `new` may apply a scan made before this re-keys messages, nor the other way. */
    maildex_status_t st = maildex__writer_lock(db, "indexing", NULL, &lock);
    uint64_t done = 0;

    if (st == MAILDEX_STATUS_OK) /* files where their rows say, before any is parsed */
        st = maildex__renames_finish(db);
    if (st == MAILDEX_STATUS_OK)
        st = collect_ids(q, ids);
    if (st == MAILDEX_STATUS_OK && ids->len)
        st = maildex__mime(db, &mime);
    if (st == MAILDEX_STATUS_OK)
        st = maildex__begin(db);
    for (guint i = 0; i < ids->len && st == MAILDEX_STATUS_OK; i++) {
        void *local = talloc_new(NULL);
        struct maildex__parsed_message *m = NULL;
        int64_t key, new_key;
        st = maildex__lookup_id(db, MAILDEX__STMT_MESSAGE_FIND, ids->pdata[i], &key);
        if (st == MAILDEX_STATUS_OK && key)
            st = parse_any_file(db, mime, local, key, &m);
        if (st == MAILDEX_STATUS_OK && m) {
            st = maildex__store_reindex(db, key, m, &new_key);
            done++;
        }
        talloc_free(local);
        if (st == MAILDEX_STATUS_OK && (i + 1) % BATCH == 0)
            st = maildex__commit_and_begin(db);
    }
    if (st == MAILDEX_STATUS_OK)
        st = maildex__commit(db);
    else if (db->in_transaction)
        maildex__rollback(db);
    g_ptr_array_free(ids, TRUE);
    maildex__writer_unlock(lock);
    if (reindexed)
        *reindexed = done;
    return st;
}
