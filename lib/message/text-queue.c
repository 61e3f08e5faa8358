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

/* Forgets the held rows (after a rollback, or once written). */
static void drop_held(struct maildex__text_queue *q)
{
    g_array_set_size(q->held, 0);
    g_hash_table_remove_all(q->by_key);
    TALLOC_FREE(q->texts);
}

static maildex_status_t write_held(maildex_db_t *db, struct maildex__text_queue *q)
{
    maildex_status_t st = MAILDEX_STATUS_OK;

    g_array_sort(q->held, by_key);
    for (guint i = 0; i < q->held->len && st == MAILDEX_STATUS_OK; i++) {
        struct held *h = &g_array_index(q->held, struct held, i);
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
    return q->held->len >= HELD_MAX ? write_held(db, q) : MAILDEX_STATUS_OK;
}

struct maildex__store_text *maildex__text_held(maildex_db_t *db, int64_t key)
{
    struct maildex__text_queue *q = maildex__participant_state(db, &queue_participant);
    guint i = q ? GPOINTER_TO_UINT(g_hash_table_lookup(q->by_key, &key)) : 0;

    return i ? g_array_index(q->held, struct held, i - 1).text : NULL;
}

maildex_status_t maildex__text_write_held(maildex_db_t *db)
{
    struct maildex__text_queue *q = maildex__participant_state(db, &queue_participant);

    return q ? write_held(db, q) : MAILDEX_STATUS_OK;
}
