/* SPDX-License-Identifier: GPL-3.0-or-later */
/* notmuch's order from a key stream (see key-order.h): oldest first, each run of keys of one second
 * is read whole and handed out from its end; newest first, keys pass through one at a time. It must
 * not sort, and must not read the stream further than the key that ends the run in hand. */
#include "key-order.h"

struct maildex__key_order {
    sqlite3_stmt *stmt;
    bool reverse; /* the stream is ascending: each second's run is handed out backwards */
    GArray *run;  /* int64 keys of the run in hand, in stream order, handed out from the end */
    int64_t next; /* the key that ended the run in hand: the first of the next one */
    bool has_next, done;
    uint64_t skip; /* results still to skip */
    int64_t left;  /* results still to hand out; negative for no limit */
};

static int key_order_destructor(struct maildex__key_order *ko)
{
    g_array_free(ko->run, TRUE);
    return 0;
}

struct maildex__key_order *maildex__key_order_new(void *ctx, sqlite3_stmt *stmt, bool oldest_first)
{
    struct maildex__key_order *ko = talloc_zero(ctx, struct maildex__key_order);

    if (ko == NULL)
        return NULL;
    ko->stmt = stmt;
    ko->reverse = oldest_first;
    ko->run = g_array_new(FALSE, FALSE, sizeof(int64_t));
    ko->left = -1;
    talloc_set_destructor(ko, key_order_destructor);
    return ko;
}

void maildex__key_order_limit(struct maildex__key_order *ko, int limit_param, int offset_param,
                              uint64_t offset, int64_t limit)
{
    /* A cut inside a run of one second is only known once the run is turned around, so an ascending
     * stream is read unlimited: at most the rest of that run is read beyond the cut. */
    sqlite3_bind_int64(ko->stmt, limit_param, ko->reverse || limit < 0 ? -1 : limit);
    sqlite3_bind_int64(ko->stmt, offset_param, ko->reverse ? 0 : (int64_t) offset);
    ko->skip = ko->reverse ? offset : 0;
    ko->left = ko->reverse ? limit : -1;
}

/* Reads the next run into ko->run: the keys of one second when the stream is ascending, else one
 * key. Leaves ko->run empty at the end of the stream. */
static maildex_status_t read_run(maildex_db_t *db, struct maildex__key_order *ko)
{
    if (ko->has_next) {
        g_array_append_val(ko->run, ko->next);
        ko->has_next = false;
    }
    while (!ko->done && (ko->run->len == 0 || ko->reverse)) {
        int rc = sqlite3_step(ko->stmt);
        int64_t key;
        if (rc == SQLITE_DONE) {
            ko->done = true;
            break;
        }
        if (rc != SQLITE_ROW)
            return maildex__sql_error(db, sqlite3_reset(ko->stmt), "cannot read the query's results");
        key = sqlite3_column_int64(ko->stmt, 0);
        if (ko->run->len > 0 && maildex__key_second(key) !=
                                    maildex__key_second(g_array_index(ko->run, int64_t, ko->run->len - 1))) {
            ko->next = key;
            ko->has_next = true;
            break;
        }
        g_array_append_val(ko->run, key);
    }
    return MAILDEX_STATUS_OK;
}

maildex_status_t maildex__key_order_next(maildex_db_t *db, struct maildex__key_order *ko, int64_t *key,
                                         bool *got)
{
    maildex_status_t st = MAILDEX_STATUS_OK;

    *got = false;
    while (ko->left != 0) {
        if (ko->run->len == 0 && (st = read_run(db, ko)) != MAILDEX_STATUS_OK)
            break;
        if (ko->run->len == 0)
            break;
        *key = g_array_index(ko->run, int64_t, ko->run->len - 1);
        g_array_set_size(ko->run, ko->run->len - 1);
        if (ko->skip > 0) {
            ko->skip--;
            continue;
        }
        if (ko->left > 0)
            ko->left--;
        *got = true;
        break;
    }
    return st;
}
