/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The query planner (see plan.h): the AST becomes one streaming SQL statement plus the per-row
 * match and exclusion expressions that thread summaries need. This file composes: AND, OR, NOT, XOR,
 * thread:{...} and the sexp syntax's (field (of ...)), choosing for an AND the most selective drivable part and probing the others, and
 * assembles the plan. What a single term means is its field's handler (fields.c, fts.c);
 * the building blocks they share are planner.c's.
 * Plan-time look-ups run once per query through the statement cache and cost the same at any store
 * size: sizes are estimated only where an AND has a choice to make, and a count never reads more than
 * MAILDEX__ESTIMATE_CAP entries. Strings are joined once, in balanced parentheses, so that neither
 * building them nor SQLite's expression depth grows faster than the query. Nothing here prints or
 * reads config, and no user text ever reaches SQL text. */
#include "plan.h"
#include "planner.h"

#include "util/regexp.h"
#include "side-read.h"

#include <inttypes.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>

/* ---- probes ------------------------------------------------------------------------------------------ */

static const char *probe(struct maildex__planner *p, const struct maildex__qnode *n, const char *a);
static bool drive(struct maildex__planner *p, const struct maildex__qnode *n, struct maildex__drive *d);

/* Whether an AND's child c (or the child of a NOT) joins the AND's one FTS5 expression: a full-text
 * part, but not a lone prefix read from the index's pages, which is a set of its own. */
static bool fts_part(struct maildex__planner *p, const struct maildex__qnode *c)
{
    const struct maildex__qnode *x = c->kind == MAILDEX__Q_NOT ? c->children[0] : c;

    return maildex__fts_able(x) && !maildex__fts_lone_prefix(p, x);
}

/* The probe of an AND of the children take[] selects: the full-text ones as one MATCH cursor. */
static const char *probe_and(struct maildex__planner *p, struct maildex__qnode *const *c, size_t n,
                             const bool *take, const char *a)
{
    const char **parts = talloc_array(p->ctx, const char *, n + 1);
    bool *fts = talloc_zero_array(p->ctx, bool, n), any = false, prefix;
    size_t k = 0;

    if (parts == NULL || fts == NULL) {
        p->st = MAILDEX_STATUS_NO_MEMORY;
        return "0";
    }
    for (size_t i = 0; i < n; i++) {
        if (!take[i])
            continue;
        fts[i] = fts_part(p, c[i]);
        any |= fts[i] && c[i]->kind != MAILDEX__Q_NOT;
    }
    if (any) {
        const char *m = maildex__fts_conjunction(p, c, n, fts, &prefix);
        parts[k++] = maildex__fts_probe(p, m, prefix, a);
    }
    for (size_t i = 0; i < n; i++)
        if (take[i] && !(any && fts[i]))
            parts[k++] = probe(p, c[i], a);
    return maildex__plan_join(p, parts, k, " AND ", "1");
}

static bool *all_true(struct maildex__planner *p, size_t n)
{
    bool *take = talloc_array(p->ctx, bool, n ? n : 1);

    if (take == NULL)
        p->st = MAILDEX_STATUS_NO_MEMORY;
    for (size_t i = 0; take && i < n; i++)
        take[i] = true;
    return take;
}

/* XOR: an odd number of the children match. */
static const char *probe_xor(struct maildex__planner *p, struct maildex__qnode *const *c, size_t n,
                             size_t skip, const char *a)
{
    const char **parts = talloc_array(p->ctx, const char *, n);
    size_t k = 0;

    if (parts == NULL) {
        p->st = MAILDEX_STATUS_NO_MEMORY;
        return "0";
    }
    for (size_t i = 0; i < n; i++)
        if (i != skip)
            parts[k++] = maildex__plan_fmt(p, "(%s)", probe(p, c[i], a));
    return maildex__plan_fmt(p, "(%s %% 2 = 1)", maildex__plan_join(p, parts, k, " + ", "0"));
}

static const char *probe_children(struct maildex__planner *p, const struct maildex__qnode *n,
                                  const char *a, const char *op)
{
    const char **parts = talloc_array(p->ctx, const char *, n->nchildren);

    if (parts == NULL) {
        p->st = MAILDEX_STATUS_NO_MEMORY;
        return "0";
    }
    for (size_t i = 0; i < n->nchildren; i++)
        parts[i] = probe(p, n->children[i], a);
    return maildex__plan_join(p, parts, n->nchildren, op, "0");
}

/* The threads that hold a message matching n (thread:{n}), found once per query: the stream of n's
 * own plan, read whole. */
static const struct maildex__set *thread_set(struct maildex__planner *p, const struct maildex__qnode *n);
static bool too_long(struct maildex__planner *p, const struct maildex__qnode *n);
static const char *key_set_probe(struct maildex__planner *p, const struct maildex__qnode *n, const char *a);
static bool key_set_drive(struct maildex__planner *p, const struct maildex__qnode *n,
                          struct maildex__drive *d);

static const char *probe(struct maildex__planner *p, const struct maildex__qnode *n, const char *a)
{
    bool prefix;

    if (p->st != MAILDEX_STATUS_OK)
        return "0";
    switch (n->kind) {
    case MAILDEX__Q_ALL:
        return "1";
    case MAILDEX__Q_NONE:
        return "0";
    case MAILDEX__Q_TERM:
        return maildex__field_ops(n)->probe(p, n, a);
    case MAILDEX__Q_NOT:
        return maildex__plan_fmt(p, "NOT (%s)", probe(p, n->children[0], a));
    case MAILDEX__Q_THREAD: {
        const struct maildex__set *set = thread_set(p, n->children[0]);
        return set ? maildex__plan_fmt(p, "maildex_in(?%d, %s.thread)", maildex__plan_set(p, set), a)
                   : "0";
    }
    case MAILDEX__Q_SAME:
        if (maildex__same_ops(n))
            return maildex__same_ops(n)->probe(p, n, a);
        return maildex__fts_same(p, n) ? probe(p, maildex__fts_same(p, n), a) : "0";
    case MAILDEX__Q_AND:
        return probe_and(p, n->children, n->nchildren, all_true(p, n->nchildren), a);
    case MAILDEX__Q_OR:
        if (maildex__fts_able(n)) {
            const char *m = maildex__fts_expression(p, n, &prefix);
            return maildex__fts_probe(p, m, prefix, a);
        }
        if (maildex__or_ops(n))
            return maildex__or_ops(n)->probe(p, n, a);
        if (too_long(p, n))
            return key_set_probe(p, n, a);
        return probe_children(p, n, a, " OR ");
    case MAILDEX__Q_XOR:
        if (maildex__fts_able(n)) {
            const char *m = maildex__fts_expression(p, n, &prefix);
            return maildex__fts_probe(p, m, prefix, a);
        }
        if (too_long(p, n))
            return key_set_probe(p, n, a);
        return probe_xor(p, n->children, n->nchildren, SIZE_MAX, a);
    }
    return "0";
}

/* ---- estimates ---------------------------------------------------------------------------------------- */

static int64_t estimate(struct maildex__planner *p, const struct maildex__qnode *n, int64_t cap);

static int64_t thread_set_messages(struct maildex__planner *p, const struct maildex__set *set)
{
    int64_t total = 0;

    for (size_t i = 0; set && i < maildex__set_size(set); i++)
        total += maildex__plan_lookup_int(p, MAILDEX__STMT_THREAD_SIZE, maildex__set_int(set, i), 0);
    return total;
}

/* The matches of n as far as choosing a driver needs: exact where stored, else counted up to cap
 * (MAILDEX__EST_MANY beyond). */
static int64_t estimate(struct maildex__planner *p, const struct maildex__qnode *n, int64_t cap)
{
    int64_t e = 0, best = MAILDEX__EST_MANY;

    if (p->st != MAILDEX_STATUS_OK)
        return MAILDEX__EST_MANY;
    if (n->kind != MAILDEX__Q_TERM && maildex__fts_able(n))
        return maildex__fts_estimate(p, n);
    switch (n->kind) {
    case MAILDEX__Q_NONE:
        return 0;
    case MAILDEX__Q_TERM:
        return maildex__field_ops(n)->estimate(p, n, cap);
    case MAILDEX__Q_THREAD:
        return thread_set_messages(p, thread_set(p, n->children[0]));
    case MAILDEX__Q_SAME:
        if (maildex__same_ops(n))
            return maildex__same_ops(n)->estimate(p, n, cap);
        return maildex__fts_same(p, n) ? estimate(p, maildex__fts_same(p, n), cap) : MAILDEX__EST_MANY;
    case MAILDEX__Q_AND:
        for (size_t i = 0; i < n->nchildren; i++)
            if (n->children[i]->kind != MAILDEX__Q_NOT) {
                e = estimate(p, n->children[i], best < cap ? best + 1 : cap);
                best = e < best ? e : best;
            }
        return best;
    case MAILDEX__Q_OR:
        if (maildex__or_ops(n))
            return maildex__or_ops(n)->estimate(p, n, cap);
        /* fall through */
    case MAILDEX__Q_XOR:
        /* Every part is estimated (each count stopping at cap): a sum cut short at the cap would
         * tie with an exact stored count it is in fact larger than. */
        for (size_t i = 0; i < n->nchildren; i++)
            e = MIN(MAILDEX__EST_MANY, e + estimate(p, n->children[i], cap));
        return e;
    default:
        return MAILDEX__EST_MANY;
    }
}

/* Whether n's estimate reads only stored counts (so it is made before any that counts). */
static bool cheap(const struct maildex__qnode *n)
{
    if (n->kind == MAILDEX__Q_TERM)
        return maildex__field_ops(n)->cheap_estimate;
    if (maildex__or_ops(n))
        return maildex__or_ops(n)->cheap_estimate;
    if (maildex__fts_able(n) || n->kind == MAILDEX__Q_NONE)
        return true;
    for (size_t i = 0; i < n->nchildren; i++)
        if (!cheap(n->children[i]))
            return false;
    return n->kind == MAILDEX__Q_AND || n->kind == MAILDEX__Q_OR || n->kind == MAILDEX__Q_XOR;
}

/* ---- drivers ------------------------------------------------------------------------------------------ */

/* Appends where to every arm of d (each arm gets its own probes, hence its own full-text cursors:
 * a UNION merges its arms' rows, so arms sharing a cursor would ask it for keys out of order). */
static void restrict_arms(struct maildex__planner *p, struct maildex__drive *d,
                          const char *(*more)(struct maildex__planner *, void *), void *data)
{
    for (size_t i = 0; i < d->narms && p->st == MAILDEX_STATUS_OK; i++)
        d->arms[i].where = maildex__plan_fmt(p, "%s AND %s", d->arms[i].where, more(p, data));
    d->tag_param = 0; /* the probes filter: the stored count no longer applies */
}

struct and_rest {
    const struct maildex__qnode *n;
    const bool *take;
};

static const char *and_rest_probe(struct maildex__planner *p, void *data)
{
    const struct and_rest *r = data;
    return probe_and(p, r->n->children, r->n->nchildren, r->take, "m");
}

/* Every message in the store (meta's count): no part matches more. A word list estimate sums its
 * words' documents, which counts a message once per word of a prefix. */
static int64_t stored_messages(struct maildex__planner *p)
{
    if (p->stored == 0)
        p->stored = maildex__plan_lookup(p, MAILDEX__STMT_META_GET, "messages", MAILDEX__EST_MANY);
    return p->stored;
}

/* The full-text group of an AND (the children fts[] selects): its words' documents, at most the
 * store. */
static int64_t fts_group_estimate(struct maildex__planner *p, const struct maildex__qnode *n,
                                  const bool *fts)
{
    const int64_t words = maildex__fts_conjunction_estimate(p, n->children, n->nchildren, fts);
    const int64_t all = stored_messages(p);

    return words < all ? words : all;
}

/* The estimates of an AND's candidate drivers (can[i]; est[nc] is the full-text group's): stored ones
 * first, then counts that stop at the best size so far. Only made when there is a choice. */
static void estimate_candidates(struct maildex__planner *p, const struct maildex__qnode *n,
                                const bool *fts, const bool *can, int64_t *est)
{
    const size_t nc = n->nchildren;
    ssize_t best = -1;

    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i <= nc; i++) {
            const bool is_cheap = i == nc || cheap(n->children[i]);
            int64_t cap;
            if (!can[i] || is_cheap != (pass == 0))
                continue;
            cap = best >= 0 && est[best] < MAILDEX__ESTIMATE_CAP ? est[best] + 1 : MAILDEX__ESTIMATE_CAP;
            est[i] = i == nc ? fts_group_estimate(p, n, fts) : estimate(p, n->children[i], cap);
            if (best < 0 || est[i] < est[best])
                best = (ssize_t) i;
        }
}

/* An AND drives from its most selective part (all full-text parts together count as one) and probes
 * the others in each arm; a part that cannot drive after all (a regex, a lastmod range) gives way to
 * the next best. */
static bool drive_and(struct maildex__planner *p, const struct maildex__qnode *n, struct maildex__drive *d)
{
    const size_t nc = n->nchildren;
    bool *fts = talloc_zero_array(p->ctx, bool, nc), *rest = talloc_zero_array(p->ctx, bool, nc);
    bool *can = talloc_zero_array(p->ctx, bool, nc + 1), any_fts = false, prefix = false;
    int64_t *est = talloc_zero_array(p->ctx, int64_t, nc + 1);
    size_t choices = 0;
    ssize_t best = -1;

    if (fts == NULL || rest == NULL || can == NULL || est == NULL) {
        p->st = MAILDEX_STATUS_NO_MEMORY;
        return false;
    }
    for (size_t i = 0; i < nc; i++) {
        const struct maildex__qnode *c = n->children[i];
        fts[i] = fts_part(p, c);
        any_fts |= fts[i] && c->kind != MAILDEX__Q_NOT;
    }
    /* can[nc] is the full-text group, can[i] child i; a NOT never drives. */
    can[nc] = any_fts;
    for (size_t i = 0; i < nc; i++)
        choices += can[i] = !(any_fts && fts[i]) && n->children[i]->kind != MAILDEX__Q_NOT;
    choices += any_fts;
    if (choices > 1)
        estimate_candidates(p, n, fts, can, est);
    while (p->st == MAILDEX_STATUS_OK) {
        best = -1;
        /* The full-text group first, so that it wins a tie: a prefix in it costs its whole merged
         * doclist whether it drives or is probed. */
        for (size_t k = 0; k <= nc; k++) {
            const size_t i = k == 0 ? nc : k - 1;
            if (can[i] && (best < 0 || est[i] < est[best]))
                best = (ssize_t) i;
        }
        if (best < 0)
            return false;
        if ((size_t) best == nc
                ? maildex__fts_drive(p, maildex__fts_conjunction(p, n->children, nc, fts, &prefix), d)
                : drive(p, n->children[best], d))
            break;
        can[best] = false;
    }
    if (p->st != MAILDEX_STATUS_OK)
        return false;
    for (size_t i = 0; i < nc; i++)
        rest[i] = (size_t) best == nc ? !fts[i] : (ssize_t) i != best;
    /* A prefix's doclist is merged whole before its first row: every row is read, so the probes may
     * read their own matches whole too. */
    const int64_t outer_bulk = p->bulk_rows;
    if ((size_t) best == nc && prefix)
        p->bulk_rows = choices > 1 ? est[nc] : fts_group_estimate(p, n, fts);
    restrict_arms(p, d, and_rest_probe, &(struct and_rest){n, rest});
    p->bulk_rows = outer_bulk;
    return true;
}

/* Several drivers merged in key order: their arms side by side. */
static bool union_of(struct maildex__planner *p, struct maildex__drive *parts, size_t n,
                     struct maildex__drive *d)
{
    size_t total = 0;

    for (size_t i = 0; i < n; i++)
        total += parts[i].narms;
    if (total > MAILDEX__MAX_ARMS)
        return false;
    d->arms = talloc_zero_array(p->ctx, struct maildex__arm, total ? total : 1);
    if (d->arms == NULL) {
        p->st = MAILDEX_STATUS_NO_MEMORY;
        return false;
    }
    d->narms = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < parts[i].narms; j++)
            d->arms[d->narms++] = parts[i].arms[j];
    d->kind = n == 1 ? parts[0].kind : MAILDEX__DRIVER_UNION;
    d->tag_param = n == 1 ? parts[0].tag_param : 0;
    return true;
}

static bool drive_or(struct maildex__planner *p, const struct maildex__qnode *n, struct maildex__drive *d)
{
    struct maildex__drive *parts;
    bool prefix;

    if (maildex__fts_able(n))
        return maildex__fts_drive(p, maildex__fts_expression(p, n, &prefix), d);
    if (maildex__or_ops(n) && maildex__or_ops(n)->drive(p, n, d))
        return true;
    if (p->st != MAILDEX_STATUS_OK || n->nchildren > MAILDEX__MAX_ARMS)
        return false;
    parts = talloc_zero_array(p->ctx, struct maildex__drive, n->nchildren);
    if (parts == NULL) {
        p->st = MAILDEX_STATUS_NO_MEMORY;
        return false;
    }
    for (size_t i = 0; i < n->nchildren; i++)
        if (!drive(p, n->children[i], &parts[i]))
            return false;
    return union_of(p, parts, n->nchildren, d);
}

struct xor_rest {
    const struct maildex__qnode *n;
    size_t skip;
};

static const char *xor_rest_probe(struct maildex__planner *p, void *data)
{
    const struct xor_rest *r = data;
    return maildex__plan_fmt(p, "NOT %s", probe_xor(p, r->n->children, r->n->nchildren, r->skip, "m"));
}

/* XOR: child i's matches where an even number of the others match, for each i, merged. */
static bool drive_xor(struct maildex__planner *p, const struct maildex__qnode *n, struct maildex__drive *d)
{
    struct maildex__drive *parts;
    bool prefix;

    if (maildex__fts_able(n))
        return maildex__fts_drive(p, maildex__fts_expression(p, n, &prefix), d);
    if (n->nchildren > MAILDEX__MAX_ARMS)
        return false;
    parts = talloc_zero_array(p->ctx, struct maildex__drive, n->nchildren);
    if (parts == NULL) {
        p->st = MAILDEX_STATUS_NO_MEMORY;
        return false;
    }
    for (size_t i = 0; i < n->nchildren; i++) {
        if (!drive(p, n->children[i], &parts[i]))
            return false;
        restrict_arms(p, &parts[i], xor_rest_probe, &(struct xor_rest){n, i});
    }
    return union_of(p, parts, n->nchildren, d);
}

/* thread:{...}: the messages of a few threads stream from (thread, id), each arm in key order; more
 * join the set's rows with the thread index (SQLite then sorts them). */
static bool drive_thread(struct maildex__planner *p, const struct maildex__qnode *n, struct maildex__drive *d)
{
    return maildex__plan_drive_set(p, d, thread_set(p, n->children[0]), MAILDEX__DRIVER_THREAD,
                                   "messages m", "m.id", "m.thread", false);
}

/* Fills d with the arms that stream exactly the messages matching n, if n can drive. */
static bool drive(struct maildex__planner *p, const struct maildex__qnode *n, struct maildex__drive *d)
{
    if (p->st != MAILDEX_STATUS_OK)
        return false;
    memset(d, 0, sizeof *d);
    switch (n->kind) {
    case MAILDEX__Q_NONE:
        return maildex__plan_none(p, d);
    case MAILDEX__Q_TERM:
        return maildex__field_ops(n)->drive(p, n, d);
    case MAILDEX__Q_AND:
        return drive_and(p, n, d);
    case MAILDEX__Q_OR:
        return too_long(p, n) ? key_set_drive(p, n, d) : drive_or(p, n, d);
    case MAILDEX__Q_XOR:
        return too_long(p, n) ? key_set_drive(p, n, d) : drive_xor(p, n, d);
    case MAILDEX__Q_THREAD:
        return drive_thread(p, n, d);
    case MAILDEX__Q_SAME:
        if (maildex__same_ops(n))
            return maildex__same_ops(n)->drive(p, n, d);
        return maildex__fts_same(p, n) && drive(p, maildex__fts_same(p, n), d);
    default:
        return false;
    }
}

/* ---- thread:{...}, and the streams of subqueries read at plan time ---------------------------------------- */

const char *maildex__plan_stream(struct maildex__planner *p, const struct maildex__qnode *n)
{
    struct maildex__set *hidden = p->hidden_tags;
    struct maildex__drive d;
    const char **arms;
    bool driven;

    /* A subquery's matches include excluded messages (notmuch expands thread:{} without exclusions),
     * so no tag is left out of its drive. */
    p->hidden_tags = NULL;
    driven = drive(p, n, &d);
    p->hidden_tags = hidden;
    if (!driven) {
        if (p->st != MAILDEX_STATUS_OK)
            return NULL;
        return maildex__plan_fmt(p, "SELECT m.id AS k FROM messages m WHERE %s", probe(p, n, "m"));
    }
    arms = talloc_array(p->ctx, const char *, d.narms);
    if (arms == NULL) {
        p->st = MAILDEX_STATUS_NO_MEMORY;
        return NULL;
    }
    for (size_t i = 0; i < d.narms; i++) {
        const struct maildex__arm a = maildex__arm_without_unused_join(p, d.arms[i]);
        arms[i] = maildex__plan_fmt(p, "SELECT %s AS k FROM %s WHERE %s", a.key, a.from, a.where);
    }
    return maildex__plan_compound(p, arms, d.narms, " UNION ALL ");
}

struct maildex__set *maildex__plan_read_keys(struct maildex__planner *p, const char *sql)
{
    struct maildex__plan so_far = {.binds = (struct maildex__bind *) p->binds->data,
                                   .nbinds = p->binds->len};
    struct maildex__set *set = NULL;
    sqlite3_stmt *stmt = NULL;
    maildex_status_t st = MAILDEX_STATUS_OK;
    int rc = sql ? sqlite3_prepare_v2(p->db->sql, sql, -1, &stmt, NULL) : SQLITE_NOMEM;

    if (rc != SQLITE_OK)
        st = maildex__sql_error(p->db, rc, "cannot plan the query");
    if (st == MAILDEX_STATUS_OK)
        st = maildex__plan_bind(p->db, &so_far, stmt);
    if (st == MAILDEX_STATUS_OK && (set = maildex__set_of_column(p->ctx, stmt, &rc)) == NULL)
        st = rc == SQLITE_NOMEM ? MAILDEX_STATUS_NO_MEMORY
                                : maildex__sql_error(p->db, sqlite3_reset(stmt), "cannot plan the query");
    sqlite3_finalize(stmt);
    if (p->st == MAILDEX_STATUS_OK)
        p->st = st;
    return set;
}

static const struct maildex__set *thread_set(struct maildex__planner *p, const struct maildex__qnode *n)
{
    struct maildex__set *set = g_hash_table_lookup(p->thread_sets, n);
    const char *stream;

    if (set || p->st != MAILDEX_STATUS_OK)
        return set;
    stream = maildex__plan_stream(p, n);
    if (stream == NULL)
        return NULL;
    set = maildex__plan_read_keys(p, maildex__plan_fmt(p, "SELECT m.thread FROM (%s) s CROSS JOIN messages m "
                                           "ON m.id = s.k", stream));
    if (set)
        g_hash_table_insert(p->thread_sets, (gpointer) n, set);
    return set;
}

/* Whether every child of n is a word whose matches the pages give (maildex__fts_word_set), reading
 * them now. */
static bool words_from_pages(struct maildex__planner *p, const struct maildex__qnode *n)
{
    for (size_t i = 0; i < n->nchildren; i++)
        if (maildex__fts_word_set(p, n->children[i]) == NULL)
            return false;
    return n->nchildren > 0;
}

/* Whether n is an OR or XOR too long to drive as a union or to probe part by part on every message
 * (three thousand `(tag:x and word)` would cost three thousand probes per message), or an XOR whose
 * parts are cheaper read once each than streamed and probed: with a prefix, or, when every match is
 * read anyway, of words the pages give (FTS5 would walk each word's positions once per time its
 * expression names it: `the xor to` names each twice). */
static bool too_long(struct maildex__planner *p, const struct maildex__qnode *n)
{
    if (n->kind == MAILDEX__Q_XOR && words_from_pages(p, n))
        return true;
    if ((n->kind != MAILDEX__Q_OR && n->kind != MAILDEX__Q_XOR) || maildex__fts_able(n) ||
        maildex__or_ops(n) != NULL)
        return false;
    /* An XOR with a prefix in it too: as a union, each part would be streamed in one arm and probed
     * in the others, and a prefix costs its whole merged doclist either way. */
    return n->nchildren > MAILDEX__MAX_ARMS || (n->kind == MAILDEX__Q_XOR && maildex__fts_has_prefix(n));
}

/* Each part's keys, parts[i] for n's child i. The costly parts (a prefix FTS5 answers: it merges all
 * its words' doclists before the first key) after the first are read on a second connection and core
 * while this one reads the rest: an XOR of two prefixes then costs the slower one, not both. A lone
 * prefix read word by word (fts-prefix.h) is a set by now, and costs nothing more here. */
static void read_parts(struct maildex__planner *p, const struct maildex__qnode *n, struct maildex__set **parts)
{
    const size_t np = n->nchildren;
    const char **streams = talloc_zero_array(p->ctx, const char *, np);
    const char **side_sqls = talloc_zero_array(p->ctx, const char *, np);
    size_t *side_part = talloc_zero_array(p->ctx, size_t, np);
    struct maildex__set **side_sets = talloc_zero_array(p->ctx, struct maildex__set *, np);
    struct maildex__side_read *side = NULL;
    size_t nside = 0, ncostly = 0;

    if (!streams || !side_sqls || !side_part || !side_sets) {
        p->st = MAILDEX_STATUS_NO_MEMORY;
        return;
    }
    for (size_t i = 0; i < np && p->st == MAILDEX_STATUS_OK; i++) {
        const struct maildex__set *words = maildex__fts_word_set(p, n->children[i]);
        if (words) { /* a copy: the merge below frees its parts, the planner keeps this one */
            if ((parts[i] = maildex__set_union(p->ctx, (struct maildex__set *const *) &words, 1)) == NULL)
                p->st = MAILDEX_STATUS_NO_MEMORY;
            continue;
        }
        streams[i] = maildex__plan_stream(p, n->children[i]);
        if (streams[i] && maildex__fts_has_prefix(n->children[i]) &&
            !maildex__fts_prefix_read(p, n->children[i]) && ncostly++ > 0) {
            side_part[nside] = i;
            side_sqls[nside++] = streams[i];
        }
    }
    if (p->st != MAILDEX_STATUS_OK)
        return;
    if (nside) {
        const struct maildex__plan so_far = {.binds = (struct maildex__bind *) p->binds->data,
                                             .nbinds = p->binds->len};
        side = maildex__side_read_start(p->ctx, p->db, side_sqls, nside, &so_far);
    }
    for (size_t i = 0, j = 0; i < np && p->st == MAILDEX_STATUS_OK; i++) {
        if (side && j < nside && side_part[j] == i) {
            j++;
            continue;
        }
        if (parts[i] == NULL)
            parts[i] = maildex__plan_read_keys(p, streams[i]);
    }
    if (side == NULL)
        return;
    maildex__side_read_finish(side, p->db, p->ctx, side_sets);
    for (size_t j = 0; j < nside && p->st == MAILDEX_STATUS_OK; j++)
        parts[side_part[j]] = side_sets[j] ? side_sets[j] : maildex__plan_read_keys(p, side_sqls[j]);
}

/* The messages a too_long n matches, found once per query: each part's own plan read once (the sum
 * of the parts), the parts' sorted keys merged pairwise, balanced (an XOR keeps the keys in one side
 * only, which is odd membership over all parts). */
static const struct maildex__set *key_set(struct maildex__planner *p, const struct maildex__qnode *n)
{
    struct maildex__set *set = g_hash_table_lookup(p->key_sets, n);
    struct maildex__set **parts;
    const size_t np = n->nchildren;

    if (set || p->st != MAILDEX_STATUS_OK)
        return set;
    parts = talloc_zero_array(p->ctx, struct maildex__set *, np);
    if (parts)
        read_parts(p, n, parts);
    for (size_t width = 1; parts && width < np && p->st == MAILDEX_STATUS_OK; width *= 2)
        for (size_t i = 0; i + width < np && p->st == MAILDEX_STATUS_OK; i += 2 * width) {
            struct maildex__set *both = maildex__set_merge(p->ctx, parts[i], parts[i + width],
                                                           n->kind == MAILDEX__Q_XOR);
            if (both == NULL)
                p->st = MAILDEX_STATUS_NO_MEMORY;
            talloc_free(parts[i]);
            talloc_free(parts[i + width]);
            parts[i] = both;
        }
    set = parts && p->st == MAILDEX_STATUS_OK ? parts[0] : NULL;
    talloc_free(parts);
    if (set)
        g_hash_table_insert(p->key_sets, (gpointer) n, set);
    else if (p->st == MAILDEX_STATUS_OK)
        p->st = MAILDEX_STATUS_NO_MEMORY;
    return set;
}

static const char *key_set_probe(struct maildex__planner *p, const struct maildex__qnode *n, const char *a)
{
    const struct maildex__set *set = key_set(p, n);

    return set ? maildex__plan_fmt(p, "maildex_in(?%d, %s.id)", maildex__plan_set(p, set), a) : "0";
}

/* The keys stream from the set's own rows, in key order (maildex_set yields them sorted). */
static bool key_set_drive(struct maildex__planner *p, const struct maildex__qnode *n,
                          struct maildex__drive *d)
{
    const struct maildex__set *set = key_set(p, n);

    if (set == NULL)
        return false;
    return maildex__plan_arm(p, d, MAILDEX__DRIVER_UNION,
                             maildex__plan_fmt(p, "maildex_set(?%d) s CROSS JOIN messages m ON m.id = s.value",
                                               maildex__plan_set(p, set)),
                             "s.value", "1", false);
}

/* ---- exclusion ---------------------------------------------------------------------------------------- */

/* notmuch drops an excluded tag that the query mentions anywhere (even under NOT, or through a regex
 * that matches it). */
static bool names_tag(const struct maildex__qnode *n, const char *tag)
{
    if (n->kind == MAILDEX__Q_TERM && n->field == MAILDEX__QF_TAG) {
        if (n->flags & MAILDEX__QFLAG_REGEX) {
            struct maildex__regex *re;
            char *error = maildex__regex_compile(NULL, n->value, &re);
            bool hit = error == NULL && maildex__regex_match(re, tag);
            talloc_free(error);
            maildex__regex_free(re);
            return hit;
        }
        return strcmp(n->value, tag) == 0;
    }
    for (size_t i = 0; i < n->nchildren; i++)
        if (names_tag(n->children[i], tag))
            return true;
    return false;
}

static const char *exclusion(struct maildex__planner *p, const struct maildex__qnode *root)
{
    GString *list;
    GArray *ids;

    if (p->opts->exclude == MAILDEX__EXCLUDE_FALSE || p->opts->exclude_tags == NULL)
        return "0";
    list = g_string_new(NULL);
    ids = g_array_new(FALSE, FALSE, sizeof(int64_t));
    for (const char *const *t = p->opts->exclude_tags; *t; t++) {
        int64_t id;
        if (names_tag(root, *t))
            continue;
        /* A tag no message carries excludes nothing: leaving it out spares every result a probe
         * (most users' spam and deleted tags are empty or rare). tags.messages is exact. */
        id = maildex__plan_lookup(p, MAILDEX__STMT_TAG_FIND, *t, -1);
        if (id < 0 || maildex__plan_lookup_int(p, MAILDEX__STMT_TAG_MESSAGES, id, 0) == 0)
            continue;
        g_string_append_printf(list, "%s?%d", list->len ? ", " : "", maildex__plan_int(p, id));
        g_array_append_val(ids, id);
    }
    if (list->len)
        p->excluded_ids = talloc_strdup(p->ctx, list->str);
    if (ids->len && (p->opts->exclude == MAILDEX__EXCLUDE_TRUE || p->opts->exclude == MAILDEX__EXCLUDE_ALL) &&
        (p->hidden_tags = maildex__set_of_ints(p->ctx, (int64_t *) ids->data, ids->len)) == NULL)
        p->st = MAILDEX_STATUS_NO_MEMORY;
    g_string_free(list, TRUE);
    g_array_free(ids, TRUE);
    if (p->excluded_ids == NULL)
        return "0";
    return maildex__plan_fmt(p, "EXISTS (SELECT 1 FROM message_tags WHERE message = m.id AND tag IN (%s))",
                             p->excluded_ids);
}

/* ---- the plan ------------------------------------------------------------------------------------------ */

/* The count of `not x` where x can drive: every message's stored count less x's own stream counted,
 * so that x's matches are read once instead of probed on every message (`not a*` at 100k: 0.20 s
 * scanning, 0.10 s subtracting). NULL for any other root. */
static const char *not_count(struct maildex__planner *p, const struct maildex__plan *plan,
                             const struct maildex__qnode *root)
{
    struct maildex__drive all = {.kind = MAILDEX__DRIVER_ALL, .narms = 1}, x = {0};
    struct maildex__plan of_x = {.hides = plan->hides, .excluded = plan->excluded};

    if (root->kind != MAILDEX__Q_NOT || !drive(p, root->children[0], &x) || p->st != MAILDEX_STATUS_OK)
        return NULL;
    maildex__plan_assemble(p, &of_x, &x);
    return maildex__plan_fmt(p, "SELECT (%s) - (SELECT count(*) FROM (%s))", maildex__plan_stored_count(p, &all, plan->hides),
                             of_x.stream);
}

maildex_status_t maildex__plan_build(void *ctx, maildex_db_t *db, const struct maildex__qnode *root,
                                     const struct maildex__plan_options *opts,
                                     struct maildex__plan **out)
{
    struct maildex__plan *plan = talloc_zero(ctx, struct maildex__plan);
    struct maildex__planner p = {.ctx = plan, .db = db, .opts = opts};
    struct maildex__drive d = {0};
    maildex_status_t st;

    *out = NULL;
    if (plan == NULL)
        return MAILDEX_STATUS_NO_MEMORY;
    p.binds = g_array_new(FALSE, FALSE, sizeof(struct maildex__bind));
    p.ids = g_hash_table_new(g_direct_hash, g_direct_equal);
    p.thread_sets = g_hash_table_new(g_direct_hash, g_direct_equal);
    p.term_sets = g_hash_table_new(g_direct_hash, g_direct_equal);
    p.key_sets = g_hash_table_new(g_direct_hash, g_direct_equal);
    p.rewrites = g_hash_table_new(g_direct_hash, g_direct_equal);
    p.now = opts->now ? opts->now : (int64_t) time(NULL);
    plan->excluded = exclusion(&p, root);
    plan->hides = (opts->exclude == MAILDEX__EXCLUDE_TRUE || opts->exclude == MAILDEX__EXCLUDE_ALL) &&
                  strcmp(plan->excluded, "0") != 0;
    plan->match = probe(&p, root, "m");
    plan->match_costly = p.costly;
    if (!drive(&p, root, &d) && p.st == MAILDEX_STATUS_OK)
        maildex__plan_arm(&p, &d, root->kind == MAILDEX__Q_ALL ? MAILDEX__DRIVER_ALL : MAILDEX__DRIVER_SCAN,
                          "messages m", "m.id", probe(&p, root, "m"), false);
    if (p.st == MAILDEX_STATUS_OK)
        maildex__plan_assemble(&p, plan, &d);
    plan->count = maildex__plan_stored_count(&p, &d, plan->hides);
    if (plan->count == NULL && p.st == MAILDEX_STATUS_OK)
        plan->count = not_count(&p, plan, root);
    plan->order = opts->oldest_first ? " ORDER BY 1" : " ORDER BY 1 DESC";
    plan->driver = d.kind;
    plan->nbinds = p.binds->len;
    plan->binds = talloc_memdup(plan, p.binds->data, p.binds->len * sizeof(struct maildex__bind));
    if (plan->binds == NULL && p.binds->len && p.st == MAILDEX_STATUS_OK)
        p.st = MAILDEX_STATUS_NO_MEMORY;
    st = p.st;
    g_array_free(p.binds, TRUE);
    g_hash_table_destroy(p.ids);
    g_hash_table_destroy(p.thread_sets);
    g_hash_table_destroy(p.term_sets);
    g_hash_table_destroy(p.key_sets);
    g_hash_table_destroy(p.rewrites);
    if (st == MAILDEX_STATUS_NO_MEMORY)
        maildex__error(db, st, "out of memory while planning the query");
    if (st != MAILDEX_STATUS_OK)
        talloc_free(plan);
    else
        *out = plan;
    return st;
}

const char *maildex__driver_name(enum maildex__driver driver)
{
    static const char *const names[] = {"all",  "none",   "scan", "tag",    "fts",      "folder",
                                        "path", "date",   "id",   "thread", "property", "union"};

    return (size_t) driver < G_N_ELEMENTS(names) ? names[driver] : "?";
}
