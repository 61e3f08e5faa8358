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
    GArray *held;        /* struct held, in arrival order */
    GHashTable *by_key;  /* int64 key -> index in held + 1 */
    void *texts;         /* talloc parent of the held texts */
};

/* The same text goes to texts (kept for exact deletes, the body packed) and to the index; tokens,
 * when recorded, spare this thread the tokenizing. */
maildex_status_t maildex__text_write(maildex_db_t *db, int64_t key,
                                     const struct maildex__store_text *text)
{
    static const maildex__stmt_id_t ids[2] = {MAILDEX__STMT_TEXT_INSERT, MAILDEX__STMT_FTS_INSERT};
    enum { BODY = 3 }; /* the columns' order is store.c's message_columns() */
    maildex_status_t st = MAILDEX_STATUS_OK;

    for (int i = 0; i < 2 && st == MAILDEX_STATUS_OK; i++) {
        sqlite3_stmt *stmt;
        st = maildex__stmt(db, ids[i], &stmt);
        if (st)
            break;
        sqlite3_bind_int64(stmt, 1, key);
        for (int c = 0; c < MAILDEX__TEXT_COLUMNS; c++)
            maildex__text_bind(stmt, c + 2, text->cols[c], NULL, 0);
        if (ids[i] == MAILDEX__STMT_TEXT_INSERT)
            maildex__text_bind(stmt, BODY + 2, text->cols[BODY], text->packed_body, text->packed_len);
        else
            maildex__fts_replay_set(db->fts, text->tokens, MAILDEX__TEXT_COLUMNS);
        st = maildex__step_done(db, stmt, "cannot index a message's text");
        maildex__fts_replay_set(db->fts, NULL, 0);
    }
    return st;
}

static int queue_destructor(struct maildex__text_queue *q)
{
    g_array_free(q->held, TRUE);
    g_hash_table_destroy(q->by_key);
    return 0;
}

static struct maildex__text_queue *queue_of(maildex_db_t *db)
{
    struct maildex__text_queue *q = db->text_queue;

    if (q == NULL) {
        q = talloc_zero(db, struct maildex__text_queue);
        if (q == NULL)
            return NULL;
        q->held = g_array_new(FALSE, FALSE, sizeof(struct held));
        q->by_key = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
        talloc_set_destructor(q, queue_destructor);
        db->text_queue = q;
    }
    return q;
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
    return q->held->len >= HELD_MAX ? maildex__text_write_held(db) : MAILDEX_STATUS_OK;
}

struct maildex__store_text *maildex__text_held(maildex_db_t *db, int64_t key)
{
    struct maildex__text_queue *q = db->text_queue;
    guint i = q ? GPOINTER_TO_UINT(g_hash_table_lookup(q->by_key, &key)) : 0;

    return i ? g_array_index(q->held, struct held, i - 1).text : NULL;
}

static gint by_key(gconstpointer a, gconstpointer b)
{
    int64_t x = ((const struct held *) a)->key, y = ((const struct held *) b)->key;

    return (x > y) - (x < y);
}

void maildex__text_drop_held(maildex_db_t *db)
{
    struct maildex__text_queue *q = db->text_queue;

    if (q == NULL)
        return;
    g_array_set_size(q->held, 0);
    g_hash_table_remove_all(q->by_key);
    TALLOC_FREE(q->texts);
}

maildex_status_t maildex__text_write_held(maildex_db_t *db)
{
    struct maildex__text_queue *q = db->text_queue;
    maildex_status_t st = MAILDEX_STATUS_OK;

    if (q == NULL || q->held->len == 0)
        return MAILDEX_STATUS_OK;
    g_array_sort(q->held, by_key);
    for (guint i = 0; i < q->held->len && st == MAILDEX_STATUS_OK; i++) {
        struct held *h = &g_array_index(q->held, struct held, i);
        st = maildex__text_write(db, h->key, h->text);
    }
    maildex__text_drop_held(db);
    return st;
}
