/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The texts and full-text rows of a batch (see text-queue.h). */
#include "text-queue.h"

#include "sqlext/text-pack.h"

#include <glib.h>

/* Messages held at most. Each write of the held rows makes about one segment, as FTS5's own 1 MB
 * of pending terms would (500 messages' worth); a held message costs ~20 KB (text, packed body,
 * recorded tokens), so 500 keep the indexer's memory flat at ~10 MB more. */
#define HELD_MAX 500

struct held {
    int64_t key;
    struct maildex__store_text *text;
};

struct maildex__text_queue {
    GArray *held;        /* struct held, in arrival order (text NULL: dropped by an unindex) */
    GHashTable *by_key;  /* int64 key -> index in held + 1 */
    void *texts;         /* talloc parent of the held texts */
    GHashTable *gone;    /* int64 keys whose rows maildex__text_unindex deletes at the end */
};

static maildex_status_t write_gone(maildex_db_t *db, struct maildex__text_queue *q);
static struct maildex__text_queue *queue_state(maildex_db_t *db);

/* FTS5's delete of an external-content row is told the row's columns, read from texts (fts_text
 * unpacks the body); a single-row VALUES insert, so that it needs no statement journal. */
static maildex_status_t fts_delete(maildex_db_t *db, int64_t key, bool *had)
{
    sqlite3_stmt *read, *del;
    bool row = false;
    maildex_status_t st = maildex__stmt(db, MAILDEX__STMT_TEXT_READ, &read);

    if (st == MAILDEX_STATUS_OK && (st = maildex__stmt(db, MAILDEX__STMT_FTS_DELETE, &del)) == MAILDEX_STATUS_OK) {
        sqlite3_bind_int64(read, 1, key);
        st = maildex__step_row(db, read, &row, "cannot read a message's text");
        if (st == MAILDEX_STATUS_OK && row) {
            sqlite3_bind_int64(del, 1, key);
            for (int c = 0; c < MAILDEX__TEXT_COLUMNS; c++)
                sqlite3_bind_value(del, c + 2, sqlite3_column_value(read, c));
            st = maildex__step_done(db, del, "cannot unindex a message");
        }
        sqlite3_reset(read);
    }
    *had = row;
    return st;
}

maildex_status_t maildex__text_delete(maildex_db_t *db, int64_t key)
{
    bool had = false;
    maildex_status_t st = fts_delete(db, key, &had);

    if (st == MAILDEX_STATUS_OK && had)
        st = maildex__run_ids(db, MAILDEX__STMT_TEXT_DELETE, key, 0, "cannot unindex a message");
    return st;
}

/* The same text goes to texts (kept for exact deletes, the body packed) and to the index; tokens,
 * when recorded, spare this thread the tokenizing. */
maildex_status_t maildex__text_write(maildex_db_t *db, int64_t key,
                                     const struct maildex__store_text *text)
{
    static const maildex__stmt_id_t ids[2] = {MAILDEX__STMT_TEXT_INSERT, MAILDEX__STMT_FTS_INSERT};
    struct maildex__text_queue *q = queue_state(db);
    maildex_status_t st = MAILDEX_STATUS_OK;

    if (q && q->gone && g_hash_table_contains(q->gone, &key) && (st = write_gone(db, q)))
        return st;

    for (int i = 0; i < 2 && st == MAILDEX_STATUS_OK; i++) {
        sqlite3_stmt *stmt;
        st = maildex__stmt(db, ids[i], &stmt);
        if (st)
            break;
        sqlite3_bind_int64(stmt, 1, key);
        for (int c = 0; c < MAILDEX__TEXT_COLUMNS; c++)
            maildex__text_bind(stmt, c + 2, text->cols[c], NULL, 0);
        if (ids[i] == MAILDEX__STMT_TEXT_INSERT)
            maildex__text_bind(stmt, MAILDEX__COL_BODY + 2, text->cols[MAILDEX__COL_BODY],
                               text->packed_body, text->packed_len);
        else
            maildex__fts_replay_set(db->fts, text->tokens, MAILDEX__TEXT_COLUMNS);
        st = maildex__step_done(db, stmt, "cannot index a message's text");
        maildex__fts_replay_set(db->fts, NULL, 0);
    }
    return st;
}

static gint by_key(gconstpointer a, gconstpointer b)
{
    int64_t x = ((const struct held *) a)->key, y = ((const struct held *) b)->key;

    return (x > y) - (x < y);
}

/* Forgets the held rows and deletes (after a rollback, or once written). */
static void drop_held(struct maildex__text_queue *q)
{
    g_array_set_size(q->held, 0);
    g_hash_table_remove_all(q->by_key);
    g_hash_table_remove_all(q->gone);
    TALLOC_FREE(q->texts);
}

static gint compare_keys(gconstpointer a, gconstpointer b)
{
    int64_t x = *(const int64_t *) a, y = *(const int64_t *) b;

    return (x > y) - (x < y);
}

/* Every held delete, in key order (FTS5 starts a segment when a rowid comes below the last): the
 * full-text rows one after another, then the texts rows they were read from. */
static maildex_status_t write_gone(maildex_db_t *db, struct maildex__text_queue *q)
{
    guint n = g_hash_table_size(q->gone);
    GArray *keys = g_array_sized_new(FALSE, FALSE, sizeof(int64_t), n);
    GArray *had = g_array_sized_new(FALSE, FALSE, sizeof(int64_t), n);
    maildex_status_t st = MAILDEX_STATUS_OK;
    GHashTableIter it;
    gpointer k;

    g_hash_table_iter_init(&it, q->gone);
    while (g_hash_table_iter_next(&it, &k, NULL))
        g_array_append_val(keys, *(int64_t *) k);
    g_array_sort(keys, compare_keys);
    for (guint i = 0; i < keys->len && st == MAILDEX_STATUS_OK; i++) {
        int64_t key = g_array_index(keys, int64_t, i);
        bool row = false;
        st = fts_delete(db, key, &row);
        if (row)
            g_array_append_val(had, key);
    }
    for (guint i = 0; i < had->len && st == MAILDEX_STATUS_OK; i++)
        st = maildex__run_ids(db, MAILDEX__STMT_TEXT_DELETE, g_array_index(had, int64_t, i), 0,
                              "cannot unindex a message");
    g_array_free(keys, TRUE);
    g_array_free(had, TRUE);
    g_hash_table_remove_all(q->gone);
    return st;
}

static maildex_status_t write_held(maildex_db_t *db, struct maildex__text_queue *q)
{
    maildex_status_t st = write_gone(db, q);

    g_array_sort(q->held, by_key);
    for (guint i = 0; i < q->held->len && st == MAILDEX_STATUS_OK; i++) {
        struct held *h = &g_array_index(q->held, struct held, i);
        if (h->text)
            st = maildex__text_write(db, h->key, h->text);
    }
    drop_held(q);
    return st;
}

static maildex_status_t queue_before_commit(maildex_db_t *db, void *q)
{
    return write_held(db, q);
}

static void queue_after_rollback(maildex_db_t *db, void *q)
{
    (void) db;
    drop_held(q);
}

static void queue_close(void *state)
{
    struct maildex__text_queue *q = state;

    if (q->held) {
        g_array_free(q->held, TRUE);
        g_hash_table_destroy(q->by_key);
        g_hash_table_destroy(q->gone);
    }
}

/* Rank 10: the rows go in before any count that describes them (lib/message/README.md). */
static const struct maildex__participant queue_participant = {
    .name = "text queue",
    .rank = 10,
    .before_commit = queue_before_commit,
    .after_rollback = queue_after_rollback,
    .close = queue_close,
};

/* db's queue, made on first use with the handle's transactions joined; NULL when memory ran out. */
static struct maildex__text_queue *queue_of(maildex_db_t *db)
{
    struct maildex__text_queue *q = maildex__participant_join(db, &queue_participant, sizeof *q);

    if (q && q->held == NULL) {
        q->held = g_array_new(FALSE, FALSE, sizeof(struct held));
        q->by_key = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
        q->gone = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
    }
    return q;
}

/* db's queue when it has one (NULL before first use). */
static struct maildex__text_queue *queue_state(maildex_db_t *db)
{
    return maildex__participant_state(db, &queue_participant);
}

maildex_status_t maildex__text_unindex(maildex_db_t *db, int64_t key)
{
    struct maildex__text_queue *q = queue_of(db);
    guint i;

    if (q == NULL)
        return MAILDEX_STATUS_NO_MEMORY;
    if ((i = GPOINTER_TO_UINT(g_hash_table_lookup(q->by_key, &key))) != 0) {
        g_array_index(q->held, struct held, i - 1).text = NULL; /* freed with q->texts */
        g_hash_table_remove(q->by_key, &key);
    }
    g_hash_table_add(q->gone, g_memdup2(&key, sizeof key));
    return MAILDEX_STATUS_OK;
}

maildex_status_t maildex__text_hold(maildex_db_t *db, int64_t key, struct maildex__store_text *text)
{
    struct maildex__text_queue *q = queue_of(db);
    struct held h = {key, text};

    if (q == NULL || (q->texts == NULL && (q->texts = talloc_new(q)) == NULL))
        return MAILDEX_STATUS_NO_MEMORY;
    talloc_steal(q->texts, text);
    g_array_append_val(q->held, h);
    g_hash_table_insert(q->by_key, g_memdup2(&key, sizeof key), GUINT_TO_POINTER(q->held->len));
    return q->held->len >= HELD_MAX ? write_held(db, q) : MAILDEX_STATUS_OK;
}

struct maildex__store_text *maildex__text_held(maildex_db_t *db, int64_t key)
{
    struct maildex__text_queue *q = queue_state(db);
    guint i = q ? GPOINTER_TO_UINT(g_hash_table_lookup(q->by_key, &key)) : 0;

    return i ? g_array_index(q->held, struct held, i - 1).text : NULL;
}

maildex_status_t maildex__text_write_held(maildex_db_t *db)
{
    struct maildex__text_queue *q = queue_state(db);

    return q ? write_held(db, q) : MAILDEX_STATUS_OK;
}
