/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Sets and full-text cursors for the plan's probes (see sets.h). */
#include "sets.h"

#include <stdlib.h>
#include <string.h>
#include <talloc.h>

/* A cheap expression may be started again this many times by one cursor before the whole of it is
 * read once instead: a start is a seek per index segment, so 256 of them cost about one full read
 * of a common word, and a cursor that keeps jumping (a statement run once per thread) stays bounded
 * either way. */
#define MAX_RESTARTS 256

struct maildex__set {
    bool texts;
    size_t n;
    int64_t *ints;      /* ascending, unique */
    const char **strs;  /* bytewise ascending, unique */
};

struct maildex__match {
    const char *expression;
    bool costly, descending;
    GArray *keys; /* every matching key, ascending, once read whole; NULL before */
};

/* One statement's view of a match: a position in its FTS5 stream. */
struct cursor {
    struct maildex__match *match;
    sqlite3 *sql;
    sqlite3_stmt *stmt[2]; /* [0] descending from ?2, [1] ascending from ?2 */
    int dir;               /* -1 descending, +1 ascending, 0 not started */
    bool started;
    int64_t last;          /* the last key asked for */
    bool has_row;          /* stmt[dir] is on a row, whose key is row */
    int64_t row;
    int restarts;
    int error;             /* a failed statement's result code, reported by the function */
};

static int cmp_int64(const void *a, const void *b)
{
    const int64_t x = *(const int64_t *) a, y = *(const int64_t *) b;
    return x < y ? -1 : x > y;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *) a, *(const char *const *) b);
}

struct maildex__set *maildex__set_of_ints(void *ctx, const int64_t *values, size_t n)
{
    struct maildex__set *s = talloc_zero(ctx, struct maildex__set);
    size_t k = 0;

    if (s == NULL || (s->ints = talloc_array(s, int64_t, n ? n : 1)) == NULL) {
        talloc_free(s);
        return NULL;
    }
    bool sorted = true;

    for (size_t i = 1; i < n && sorted; i++)
        sorted = values[i - 1] <= values[i];
    if (n)
        memcpy(s->ints, values, n * sizeof *values);
    if (!sorted) /* streams in key order mostly are: a full-text stream of 95,000 keys */
        qsort(s->ints, n, sizeof *s->ints, cmp_int64);
    for (size_t i = 0; i < n; i++)
        if (k == 0 || s->ints[k - 1] != s->ints[i])
            s->ints[k++] = s->ints[i];
    s->n = k;
    return s;
}

struct maildex__set *maildex__set_of_column(void *ctx, sqlite3_stmt *stmt, int *rc)
{
    GArray *values = g_array_new(FALSE, FALSE, sizeof(int64_t));
    struct maildex__set *set = NULL;

    while ((*rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        int64_t v = sqlite3_column_int64(stmt, 0);
        g_array_append_val(values, v);
    }
    if (*rc == SQLITE_DONE &&
        (set = maildex__set_of_ints(ctx, (int64_t *) values->data, values->len)) == NULL)
        *rc = SQLITE_NOMEM;
    g_array_free(values, TRUE);
    return set;
}

struct maildex__set *maildex__set_merge(void *ctx, const struct maildex__set *a,
                                       const struct maildex__set *b, bool in_one_only)
{
    struct maildex__set *s = talloc_zero(ctx, struct maildex__set);
    size_t i = 0, j = 0, k = 0;

    if (s == NULL || (s->ints = talloc_array(s, int64_t, a->n + b->n + 1)) == NULL) {
        talloc_free(s);
        return NULL;
    }
    while (i < a->n || j < b->n) {
        if (j == b->n || (i < a->n && a->ints[i] < b->ints[j]))
            s->ints[k++] = a->ints[i++];
        else if (i == a->n || b->ints[j] < a->ints[i])
            s->ints[k++] = b->ints[j++];
        else {
            if (!in_one_only)
                s->ints[k++] = a->ints[i];
            i++, j++;
        }
    }
    s->n = k;
    return s;
}

/* The first index at or after from where ints[] (ascending, n of them) holds value or more. A small
 * set walks a large one by binary search, a large one step by step. */
static size_t seek(const int64_t *ints, size_t n, size_t from, int64_t value, bool step)
{
    size_t lo = from, hi = n;

    if (step) {
        while (lo < n && ints[lo] < value)
            lo++;
        return lo;
    }
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ints[mid] < value)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

struct maildex__set *maildex__set_union(void *ctx, struct maildex__set *const *sets, size_t n)
{
    const struct maildex__set *big = NULL;
    GArray *extra = g_array_new(FALSE, FALSE, sizeof(int64_t));
    struct maildex__set *more, *s;

    for (size_t i = 0; i < n; i++)
        if (big == NULL || sets[i]->n > big->n)
            big = sets[i];
    if (big == NULL) {
        g_array_free(extra, TRUE);
        return maildex__set_of_ints(ctx, NULL, 0);
    }
    /* The keys of the other sets that the largest lacks: when the sets overlap (a prefix's words
     * share most of their messages) few, found by walking the largest once per set. */
    for (size_t i = 0; i < n; i++) {
        const bool step = sets[i]->n * 8 >= big->n;
        size_t j = 0;
        if (sets[i] == big)
            continue;
        for (size_t k = 0; k < sets[i]->n; k++) {
            const int64_t v = sets[i]->ints[k];
            j = seek(big->ints, big->n, j, v, step);
            if (j == big->n || big->ints[j] != v)
                g_array_append_val(extra, v);
        }
    }
    more = maildex__set_of_ints(ctx, (int64_t *) extra->data, extra->len);
    g_array_free(extra, TRUE);
    s = more ? maildex__set_merge(ctx, big, more, false) : NULL;
    talloc_free(more);
    return s;
}

struct maildex__set *maildex__set_of_texts(void *ctx, const char *const *values, size_t n)
{
    struct maildex__set *s = talloc_zero(ctx, struct maildex__set);
    size_t k = 0;

    if (s == NULL || (s->strs = talloc_array(s, const char *, n ? n : 1)) == NULL) {
        talloc_free(s);
        return NULL;
    }
    s->texts = true;
    for (size_t i = 0; i < n; i++)
        if ((s->strs[i] = talloc_strdup(s, values[i])) == NULL) {
            talloc_free(s);
            return NULL;
        }
    qsort(s->strs, n, sizeof *s->strs, cmp_str);
    for (size_t i = 0; i < n; i++)
        if (k == 0 || strcmp(s->strs[k - 1], s->strs[i]) != 0)
            s->strs[k++] = s->strs[i];
    s->n = k;
    return s;
}

size_t maildex__set_size(const struct maildex__set *s)
{
    return s->n;
}

bool maildex__set_has_int(const struct maildex__set *s, int64_t value)
{
    return !s->texts && bsearch(&value, s->ints, s->n, sizeof *s->ints, cmp_int64) != NULL;
}

int64_t maildex__set_int(const struct maildex__set *s, size_t i)
{
    return s->ints[i];
}

struct maildex__match *maildex__match_new(void *ctx, const char *expression, bool costly,
                                          bool descending)
{
    struct maildex__match *m = talloc_zero(ctx, struct maildex__match);

    if (m == NULL || (m->expression = talloc_strdup(m, expression)) == NULL) {
        talloc_free(m);
        return NULL;
    }
    m->costly = costly;
    m->descending = descending;
    return m;
}

static int match_destructor(struct maildex__match *m)
{
    if (m->keys)
        g_array_free(m->keys, TRUE);
    return 0;
}

/* ---- the SQL functions ----------------------------------------------------------------------------- */

static void maildex_in(sqlite3_context *c, int argc, sqlite3_value **argv)
{
    const struct maildex__set *s = sqlite3_value_pointer(argv[0], "maildex_set");
    const char *text;

    (void) argc;
    if (s == NULL || sqlite3_value_type(argv[1]) == SQLITE_NULL) {
        sqlite3_result_int(c, 0);
        return;
    }
    if (!s->texts) {
        sqlite3_result_int(c, maildex__set_has_int(s, sqlite3_value_int64(argv[1])));
        return;
    }
    text = (const char *) sqlite3_value_text(argv[1]);
    sqlite3_result_int(c, text && bsearch(&text, s->strs, s->n, sizeof *s->strs, cmp_str) != NULL);
}

static const char *const cursor_sql[2] = {
    "SELECT rowid FROM fts WHERE fts MATCH ?1 AND rowid <= ?2 ORDER BY rowid DESC",
    "SELECT rowid FROM fts WHERE fts MATCH ?1 AND rowid >= ?2 ORDER BY rowid",
};

static void cursor_free(void *p)
{
    struct cursor *cur = p;

    sqlite3_finalize(cur->stmt[0]);
    sqlite3_finalize(cur->stmt[1]);
    g_free(cur);
}

/* Steps the cursor's stream once: has_row and row say where it is. */
static void cursor_step(struct cursor *cur)
{
    sqlite3_stmt *stmt = cur->stmt[cur->dir > 0];
    int rc = sqlite3_step(stmt);

    cur->has_row = rc == SQLITE_ROW;
    if (cur->has_row)
        cur->row = sqlite3_column_int64(stmt, 0);
    else if (rc != SQLITE_DONE)
        cur->error = sqlite3_reset(stmt);
}

/* Starts the stream at key (inclusive), going in direction dir. */
static void cursor_start(struct cursor *cur, int64_t key, int dir)
{
    sqlite3_stmt **stmt = &cur->stmt[dir > 0];

    if (*stmt == NULL) {
        int rc = sqlite3_prepare_v3(cur->sql, cursor_sql[dir > 0], -1, SQLITE_PREPARE_PERSISTENT,
                                    stmt, NULL);
        if (rc != SQLITE_OK) {
            cur->error = rc;
            return;
        }
    }
    if (cur->dir != 0 && cur->dir != dir)
        sqlite3_reset(cur->stmt[cur->dir > 0]);
    sqlite3_reset(*stmt);
    sqlite3_bind_text(*stmt, 1, cur->match->expression, -1, SQLITE_STATIC);
    sqlite3_bind_int64(*stmt, 2, key);
    cur->dir = dir;
    cursor_step(cur);
}

/* Reads every match once, ascending, into the match (shared by every cursor of the query). */
static void read_whole(struct cursor *cur)
{
    struct maildex__match *m = cur->match;
    sqlite3_stmt *stmt;

    if (cur->dir != 0)
        sqlite3_reset(cur->stmt[cur->dir > 0]);
    cur->error = sqlite3_prepare_v2(cur->sql, "SELECT rowid FROM fts WHERE fts MATCH ?1 ORDER BY rowid",
                                    -1, &stmt, NULL);
    if (cur->error != SQLITE_OK)
        return;
    sqlite3_bind_text(stmt, 1, m->expression, -1, SQLITE_STATIC);
    m->keys = g_array_new(FALSE, FALSE, sizeof(int64_t));
    talloc_set_destructor(m, match_destructor);
    while ((cur->error = sqlite3_step(stmt)) == SQLITE_ROW) {
        int64_t key = sqlite3_column_int64(stmt, 0);
        g_array_append_val(m->keys, key);
    }
    cur->error = sqlite3_finalize(stmt);
    if (cur->error != SQLITE_OK) {
        g_array_free(m->keys, TRUE);
        m->keys = NULL;
    }
}

/* Whether key matches: from the array when the match was read whole, else by moving the stream to
 * key (or starting it again there when key lies behind it). */
static bool cursor_has(struct cursor *cur, int64_t key)
{
    struct maildex__match *m = cur->match;

    if (m->keys == NULL && cur->started) {
        const bool behind = cur->dir < 0 ? key > cur->last : key < cur->last;
        if (behind && (m->costly || ++cur->restarts > MAX_RESTARTS))
            read_whole(cur);
        else if (behind)
            cursor_start(cur, key, key > cur->last ? 1 : -1);
    } else if (m->keys == NULL) {
        cursor_start(cur, key, m->descending ? -1 : 1);
        cur->started = true;
    }
    cur->last = key;
    if (m->keys)
        return m->keys->len > 0 &&
               bsearch(&key, m->keys->data, m->keys->len, sizeof key, cmp_int64) != NULL;
    while (cur->error == SQLITE_OK && cur->has_row && (cur->dir < 0 ? cur->row > key : cur->row < key))
        cursor_step(cur);
    return cur->has_row && cur->row == key;
}

static void maildex_match(sqlite3_context *c, int argc, sqlite3_value **argv)
{
    struct cursor *cur = sqlite3_value_pointer(argv[0], "maildex_cursor");
    bool hit;

    (void) argc;
    if (cur == NULL) {
        sqlite3_result_error(c, "maildex_match: no cursor bound", -1);
        return;
    }
    hit = cursor_has(cur, sqlite3_value_int64(argv[1]));
    if (cur->error != SQLITE_OK && cur->error != SQLITE_DONE) {
        sqlite3_result_error_code(c, cur->error);
        return;
    }
    sqlite3_result_int(c, hit);
}

/* ---- maildex_set(?N): a set as rows ----------------------------------------------------------------- */

/* An eponymous table-valued function: `SELECT value FROM maildex_set(?N)` yields the set bound to ?N,
 * ascending or (when the statement orders by value descending) descending, so that a set of message
 * keys streams in key order as any index does, and a set of any size drives a join without a
 * parameter per value. */
struct set_cursor {
    sqlite3_vtab_cursor base;
    const struct maildex__set *set;
    bool desc;
    size_t i; /* rows handed out so far */
};

enum { COL_VALUE, COL_SET };

static int set_connect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out,
                       char **err)
{
    sqlite3_vtab *vt;
    int rc = sqlite3_declare_vtab(db, "CREATE TABLE x(value, set_ptr HIDDEN)");

    (void) aux, (void) argc, (void) argv, (void) err;
    if (rc != SQLITE_OK)
        return rc;
    vt = sqlite3_malloc(sizeof *vt);
    if (vt == NULL)
        return SQLITE_NOMEM;
    memset(vt, 0, sizeof *vt);
    sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS);
    *out = vt;
    return SQLITE_OK;
}

static int set_disconnect(sqlite3_vtab *vt)
{
    sqlite3_free(vt);
    return SQLITE_OK;
}

/* Only with the set given (an equality on the hidden column); an ORDER BY value is consumed. */
static int set_best_index(sqlite3_vtab *vt, sqlite3_index_info *info)
{
    int arg = -1;

    (void) vt;
    for (int i = 0; i < info->nConstraint; i++)
        if (info->aConstraint[i].iColumn == COL_SET && info->aConstraint[i].op == SQLITE_INDEX_CONSTRAINT_EQ &&
            info->aConstraint[i].usable)
            arg = i;
    if (arg < 0)
        return SQLITE_CONSTRAINT;
    info->aConstraintUsage[arg].argvIndex = 1;
    info->aConstraintUsage[arg].omit = 1;
    if (info->nOrderBy == 1 && info->aOrderBy[0].iColumn == COL_VALUE) {
        info->orderByConsumed = 1;
        info->idxNum = info->aOrderBy[0].desc;
    }
    info->estimatedCost = 10;
    return SQLITE_OK;
}

static int set_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out)
{
    struct set_cursor *c = sqlite3_malloc(sizeof *c);

    (void) vt;
    if (c == NULL)
        return SQLITE_NOMEM;
    memset(c, 0, sizeof *c);
    *out = &c->base;
    return SQLITE_OK;
}

static int set_close(sqlite3_vtab_cursor *cur)
{
    sqlite3_free(cur);
    return SQLITE_OK;
}

static int set_filter(sqlite3_vtab_cursor *cur, int idx, const char *idx_str, int argc, sqlite3_value **argv)
{
    struct set_cursor *c = (struct set_cursor *) cur;

    (void) idx_str;
    c->set = argc > 0 ? sqlite3_value_pointer(argv[0], "maildex_set") : NULL;
    c->desc = idx != 0;
    c->i = 0;
    return SQLITE_OK;
}

static int set_next(sqlite3_vtab_cursor *cur)
{
    ((struct set_cursor *) cur)->i++;
    return SQLITE_OK;
}

static int set_eof(sqlite3_vtab_cursor *cur)
{
    const struct set_cursor *c = (const struct set_cursor *) cur;
    return c->set == NULL || c->i >= c->set->n;
}

static int set_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
    const struct set_cursor *c = (const struct set_cursor *) cur;
    const size_t i = c->desc ? c->set->n - 1 - c->i : c->i;

    if (col != COL_VALUE)
        return SQLITE_OK;
    if (c->set->texts)
        sqlite3_result_text(ctx, c->set->strs[i], -1, SQLITE_STATIC);
    else
        sqlite3_result_int64(ctx, c->set->ints[i]);
    return SQLITE_OK;
}

static int set_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid)
{
    *rowid = (sqlite3_int64) ((const struct set_cursor *) cur)->i;
    return SQLITE_OK;
}

static const sqlite3_module set_module = {
    .iVersion = 0,
    .xConnect = set_connect,
    .xBestIndex = set_best_index,
    .xDisconnect = set_disconnect,
    .xOpen = set_open,
    .xClose = set_close,
    .xFilter = set_filter,
    .xNext = set_next,
    .xEof = set_eof,
    .xColumn = set_column,
    .xRowid = set_rowid,
};

int maildex__set_bind(const struct maildex__set *set, sqlite3_stmt *stmt, int k)
{
    return sqlite3_bind_pointer(stmt, k, (void *) set, "maildex_set", NULL);
}

int maildex__match_bind(struct maildex__match *match, sqlite3_stmt *stmt, int k)
{
    struct cursor *cur = g_new0(struct cursor, 1);

    cur->match = match;
    cur->sql = sqlite3_db_handle(stmt);
    return sqlite3_bind_pointer(stmt, k, cur, "maildex_cursor", cursor_free);
}

int maildex__sets_register(sqlite3 *sql)
{
    int rc = sqlite3_create_function_v2(sql, "maildex_in", 2, SQLITE_UTF8 | SQLITE_INNOCUOUS, NULL,
                                        maildex_in, NULL, NULL, NULL);

    if (rc == SQLITE_OK)
        rc = sqlite3_create_function_v2(sql, "maildex_match", 2, SQLITE_UTF8 | SQLITE_INNOCUOUS,
                                        NULL, maildex_match, NULL, NULL, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_create_module_v2(sql, "maildex_set", &set_module, NULL, NULL);
    return rc;
}
