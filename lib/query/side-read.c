/* SPDX-License-Identifier: GPL-3.0-or-later */
/* side-read.c: see side-read.h. The thread owns everything it allocates (its own talloc tree and
 * connection) until finish has joined it: talloc trees and SQLite connections are not shared. */
#include "side-read.h"

#include <string.h>
#include <talloc.h>

struct maildex__side_read {
    GThread *thread;
    char *db_path;
    char *mail_root;
    const char *const *sqls;
    size_t n;
    struct maildex__plan plan;   /* the values, copied */
    void *results;               /* the thread's own talloc tree: the sets */
    struct maildex__set **sets;  /* on results; NULL where the caller reads the part */
    int64_t steps, pages;        /* the side's work, added to the query's handle when joined */
};

static void read_parts(struct maildex__side_read *r, maildex_db_t *side)
{
    for (size_t i = 0; i < r->n; i++) {
        sqlite3_stmt *stmt = NULL;
        int rc = sqlite3_prepare_v2(side->sql, r->sqls[i], -1, &stmt, NULL);

        if (rc == SQLITE_OK && maildex__plan_bind_values(&r->plan, stmt, false) == SQLITE_OK)
            r->sets[i] = maildex__set_of_column(r->results, stmt, &rc);
        if (stmt)
            r->steps += sqlite3_stmt_status(stmt, SQLITE_STMTSTATUS_VM_STEP, 0);
        sqlite3_finalize(stmt);
    }
}

static int64_t pages_read(sqlite3 *sql)
{
    int hit = 0, miss = 0, hi;

    sqlite3_db_status(sql, SQLITE_DBSTATUS_CACHE_HIT, &hit, &hi, 0);
    sqlite3_db_status(sql, SQLITE_DBSTATUS_CACHE_MISS, &miss, &hi, 0);
    return (int64_t) hit + miss;
}

static gpointer side_thread(gpointer data)
{
    struct maildex__side_read *r = data;
    maildex_db_t *side = NULL;

    if (maildex_db_open(r->db_path, r->mail_root, MAILDEX_DB_READ_ONLY, &side, NULL) == MAILDEX_STATUS_OK) {
        const int64_t opening = pages_read(side->sql);
        read_parts(r, side);
        r->pages = pages_read(side->sql) - opening;
        maildex_db_close(side);
    }
    return NULL;
}

struct maildex__side_read *maildex__side_read_start(void *ctx, maildex_db_t *db, const char *const *sqls,
                                                    size_t n, const struct maildex__plan *plan)
{
    struct maildex__side_read *r = talloc_zero(ctx, struct maildex__side_read);

    if (r == NULL)
        return NULL;
    r->db_path = talloc_strdup(r, db->path);
    r->mail_root = talloc_strdup(r, db->mail_root);
    r->sqls = sqls;
    r->n = n;
    r->plan.nbinds = plan->nbinds;
    r->plan.binds = talloc_memdup(r, plan->binds, (plan->nbinds ? plan->nbinds : 1) * sizeof *plan->binds);
    r->results = talloc_new(NULL);
    r->sets = r->results ? talloc_zero_array(r->results, struct maildex__set *, n ? n : 1) : NULL;
    if (!r->db_path || !r->mail_root || !r->plan.binds || !r->sets ||
        (r->thread = g_thread_try_new("maildex-side-read", side_thread, r, NULL)) == NULL) {
        talloc_free(r->results);
        talloc_free(r);
        return NULL;
    }
    return r;
}

void maildex__side_read_finish(struct maildex__side_read *r, maildex_db_t *db, void *ctx,
                               struct maildex__set **out)
{
    g_thread_join(r->thread);
    db->side_steps += r->steps;
    db->side_pages += r->pages;
    for (size_t i = 0; i < r->n; i++)
        out[i] = r->sets[i] ? talloc_steal(ctx, r->sets[i]) : NULL;
    talloc_free(r->results);
    talloc_free(r);
}
