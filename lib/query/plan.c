/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The query planner (see plan.h): the AST becomes one streaming SQL statement plus the per-row
 * match and exclusion expressions that thread summaries need. This file composes: AND, OR, NOT, XOR
 * and thread:{...}, choosing for an AND the most selective drivable part (its full-text parts count as
 * one) and probing the others, and assembles the plan. What a term means, and a node that one field
 * answers whole, is its handler's, which it finds through the table of handlers.h and calls through
 * the entry points of planner.h only; an OR or XOR read whole into a set is or-sets.c's; the building
 * blocks they share are planner.c's. Handlers reach back only through p->stream, set here.
 * Plan-time look-ups run once per query through the statement cache and cost the same at any store
 * size: sizes are estimated only where an AND has a choice to make, and a count never reads more than
 * MAILDEX__ESTIMATE_CAP entries. Strings are joined once, in balanced parentheses, so that neither
 * building them nor SQLite's expression depth grows faster than the query. Nothing here prints or
 * reads config, and no user text ever reaches SQL text. */
#include "plan.h"
#include "planner.h"

#include "handlers.h"
#include "or-sets.h"
#include "util/regexp.h"

#include <inttypes.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>

/* ---- probes ------------------------------------------------------------------------------------------ */

static const char *probe(struct maildex__planner *p, const struct maildex__qnode *n, const char *a);
static bool drive(struct maildex__planner *p, const struct maildex__qnode *n, struct maildex__drive *d);

/* The group of an AND's parts that its child c (or the child of a NOT) joins, or NULL. */
static const struct maildex__group_ops *group_of(struct maildex__planner *p, const struct maildex__qnode *c)
{
    const struct maildex__qnode *x = c->kind == MAILDEX__Q_NOT ? c->children[0] : c;
    const struct maildex__field_ops *h = maildex__handler(x);

    return h && h->group && h->group->joins(p, x) ? h->group : NULL;
}

/* Marks in[i] the children of an AND (those take[] selects, or all) that join one group: the group of
 * the first that joins any, returned (NULL when none does). *positive says whether a part that is not a
 * NOT joins it (a group of negations alone is no group: its parts are probed one by one). */
static const struct maildex__group_ops *group_parts(struct maildex__planner *p, struct maildex__qnode *const *c,
                                                    size_t n, const bool *take, bool *in, bool *positive)
{
    const struct maildex__group_ops *group = NULL;

    *positive = false;
    for (size_t i = 0; i < n; i++) {
        const struct maildex__group_ops *g = take && !take[i] ? NULL : group_of(p, c[i]);
        in[i] = g != NULL && (group == NULL || g == group);
        if (in[i]) {
            group = g;
            *positive |= c[i]->kind != MAILDEX__Q_NOT;
        }
    }
    return group;
}

/* Whether n's handler drives it; as planner.h says, one without a drive never does. */
static bool handler_drive(struct maildex__planner *p, const struct maildex__field_ops *h,
                          const struct maildex__qnode *n, struct maildex__drive *d)
{
    return h->drive != NULL && h->drive(p, n, d);
}

static int64_t handler_estimate(struct maildex__planner *p, const struct maildex__field_ops *h,
                                const struct maildex__qnode *n, int64_t cap)
{
    return h->estimate ? h->estimate(p, n, cap) : MAILDEX__EST_MANY;
}

/* The probe of an AND of the children take[] selects: those of one group (the full-text ones) as one
 * probe (one MATCH cursor). */
static const char *probe_and(struct maildex__planner *p, struct maildex__qnode *const *c, size_t n,
                             const bool *take, const char *a)
{
    const char **parts = talloc_array(p->ctx, const char *, n + 1);
    bool *in = talloc_zero_array(p->ctx, bool, n), any = false;
    const struct maildex__group_ops *group;
    size_t k = 0;

    if (parts == NULL || in == NULL) {
        p->st = MAILDEX_STATUS_NO_MEMORY;
        return "0";
    }
    group = group_parts(p, c, n, take, in, &any);
    if (any)
        parts[k++] = group->probe(p, c, n, in, a);
    for (size_t i = 0; i < n; i++)
        if (take[i] && !(any && in[i]))
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

static const char *probe(struct maildex__planner *p, const struct maildex__qnode *n, const char *a)
{
    const struct maildex__field_ops *h;

    if (p->st != MAILDEX_STATUS_OK)
        return "0";
    if (n->kind != MAILDEX__Q_AND && (h = maildex__handler(n)) != NULL) {
        if (h->rewrite == NULL)
            return h->probe(p, n, a);
        n = h->rewrite(p, n); /* planned in n's place */
        return n ? probe(p, n, a) : "0";
    }
    switch (n->kind) {
    case MAILDEX__Q_ALL:
        return "1";
    case MAILDEX__Q_NONE:
        return "0";
    case MAILDEX__Q_NOT:
        return maildex__plan_fmt(p, "NOT (%s)", probe(p, n->children[0], a));
    case MAILDEX__Q_THREAD:
        return maildex__plan_in_threads(p, thread_set(p, n->children[0]), a);
    case MAILDEX__Q_AND:
        return probe_and(p, n->children, n->nchildren, all_true(p, n->nchildren), a);
    case MAILDEX__Q_OR:
        if (maildex__or_set_wanted(p, n))
            return maildex__or_set_probe(p, n, a);
        return probe_children(p, n, a, " OR ");
    case MAILDEX__Q_XOR:
        if (maildex__or_set_wanted(p, n))
            return maildex__or_set_probe(p, n, a);
        return probe_xor(p, n->children, n->nchildren, SIZE_MAX, a);
    default: /* a term or a (field (of ...)): a handler's */
        return "0";
    }
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
    const struct maildex__field_ops *h;
    int64_t e = 0, best = MAILDEX__EST_MANY;

    if (p->st != MAILDEX_STATUS_OK)
        return MAILDEX__EST_MANY;
    if ((h = maildex__handler(n)) != NULL) {
        if (h->rewrite == NULL)
            return handler_estimate(p, h, n, cap);
        n = h->rewrite(p, n); /* planned in n's place */
        return n ? estimate(p, n, cap) : MAILDEX__EST_MANY;
    }
    switch (n->kind) {
    case MAILDEX__Q_NONE:
        return 0;
    case MAILDEX__Q_THREAD:
        return thread_set_messages(p, thread_set(p, n->children[0]));
    case MAILDEX__Q_AND:
        for (size_t i = 0; i < n->nchildren; i++)
            if (n->children[i]->kind != MAILDEX__Q_NOT) {
                e = estimate(p, n->children[i], best < cap ? best + 1 : cap);
                best = e < best ? e : best;
            }
        return best;
    case MAILDEX__Q_OR:
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
    const struct maildex__field_ops *h = maildex__handler(n);

    if (h)
        return h->cheap_estimate;
    if (n->kind == MAILDEX__Q_NONE)
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

/* The group of an AND's parts (the children in[] selects): its estimate (a full-text group's words'
 * documents), at most the store. */
static int64_t group_estimate(struct maildex__planner *p, const struct maildex__group_ops *group,
                              const struct maildex__qnode *n, const bool *in)
{
    const int64_t words = group->estimate(p, n->children, n->nchildren, in);
    const int64_t all = stored_messages(p);

    return words < all ? words : all;
}

/* The estimates of an AND's candidate drivers (can[i]; est[nc] is the group's): stored ones first,
 * then counts that stop at the best size so far. Only made when there is a choice. */
static void estimate_candidates(struct maildex__planner *p, const struct maildex__qnode *n,
                                const struct maildex__group_ops *group, const bool *in, const bool *can,
                                int64_t *est)
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
            est[i] = i == nc ? group_estimate(p, group, n, in) : estimate(p, n->children[i], cap);
            if (best < 0 || est[i] < est[best])
                best = (ssize_t) i;
        }
}

/* An AND drives from its most selective part (the parts of its group, the full-text ones, together
 * count as one) and probes the others in each arm; a part that cannot drive after all (a regex, a
 * lastmod range) gives way to the next best. */
static bool drive_and(struct maildex__planner *p, const struct maildex__qnode *n, struct maildex__drive *d)
{
    const size_t nc = n->nchildren;
    bool *in = talloc_zero_array(p->ctx, bool, nc), *rest = talloc_zero_array(p->ctx, bool, nc);
    bool *can = talloc_zero_array(p->ctx, bool, nc + 1), any = false, prefix = false;
    int64_t *est = talloc_zero_array(p->ctx, int64_t, nc + 1);
    const struct maildex__group_ops *group;
    size_t choices = 0;
    ssize_t best = -1;

    if (in == NULL || rest == NULL || can == NULL || est == NULL) {
        p->st = MAILDEX_STATUS_NO_MEMORY;
        return false;
    }
    group = group_parts(p, n->children, nc, NULL, in, &any);
    /* can[nc] is the group, can[i] child i; a NOT never drives. */
    can[nc] = any;
    for (size_t i = 0; i < nc; i++)
        choices += can[i] = !(any && in[i]) && n->children[i]->kind != MAILDEX__Q_NOT;
    choices += any;
    if (choices > 1)
        estimate_candidates(p, n, group, in, can, est);
    while (p->st == MAILDEX_STATUS_OK) {
        best = -1;
        /* The group first, so that it wins a tie: a prefix in a full-text group costs its whole
         * merged doclist whether it drives or is probed. */
        for (size_t k = 0; k <= nc; k++) {
            const size_t i = k == 0 ? nc : k - 1;
            if (can[i] && (best < 0 || est[i] < est[best]))
                best = (ssize_t) i;
        }
        if (best < 0)
            return false;
        if ((size_t) best == nc ? group->drive(p, n->children, nc, in, d, &prefix)
                                : drive(p, n->children[best], d))
            break;
        can[best] = false;
    }
    if (p->st != MAILDEX_STATUS_OK)
        return false;
    for (size_t i = 0; i < nc; i++)
        rest[i] = (size_t) best == nc ? !in[i] : (ssize_t) i != best;
    /* A prefix's doclist is merged whole before its first row: every row is read, so the probes may
     * read their own matches whole too. */
    const int64_t outer_bulk = p->bulk_rows;
    if ((size_t) best == nc && prefix)
        p->bulk_rows = choices > 1 ? est[nc] : group_estimate(p, group, n, in);
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

/* OR: the union of its parts' drives. */
static bool drive_or(struct maildex__planner *p, const struct maildex__qnode *n, struct maildex__drive *d)
{
    struct maildex__drive *parts;

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
    return maildex__plan_drive_threads(p, d, thread_set(p, n->children[0]));
}

/* Fills d with the arms that stream exactly the messages matching n, if n can drive. */
static bool drive(struct maildex__planner *p, const struct maildex__qnode *n, struct maildex__drive *d)
{
    const struct maildex__field_ops *h;

    if (p->st != MAILDEX_STATUS_OK)
        return false;
    memset(d, 0, sizeof *d);
    if ((n->kind == MAILDEX__Q_OR || n->kind == MAILDEX__Q_XOR) && maildex__or_set_wanted(p, n))
        return maildex__or_set_drive(p, n, d);
    if (n->kind != MAILDEX__Q_AND && (h = maildex__handler(n)) != NULL) {
        if (h->rewrite) {
            n = h->rewrite(p, n); /* planned in n's place */
            return n && drive(p, n, d);
        }
        if (handler_drive(p, h, n, d))
            return true;
        if (n->kind != MAILDEX__Q_OR)
            return false;
        /* an OR's handler may refuse (a few ids): the union of its terms' drives then */
    }
    switch (n->kind) {
    case MAILDEX__Q_NONE:
        return maildex__plan_none(p, d);
    case MAILDEX__Q_AND:
        return drive_and(p, n, d);
    case MAILDEX__Q_OR:
        return drive_or(p, n, d);
    case MAILDEX__Q_XOR:
        return drive_xor(p, n, d);
    case MAILDEX__Q_THREAD:
        return drive_thread(p, n, d);
    default:
        return false;
    }
}

/* ---- thread:{...}, and the streams of subqueries read at plan time ---------------------------------------- */

/* `SELECT ... AS k` streaming the keys of the messages matching n, from n's own plan (its values bound
 * as parameters of p); NULL on error (on p). The handlers' p->stream. */
static const char *stream(struct maildex__planner *p, const struct maildex__qnode *n)
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

static const struct maildex__set *thread_set(struct maildex__planner *p, const struct maildex__qnode *n)
{
    struct maildex__set *set = g_hash_table_lookup(p->thread_sets, n);
    const char *keys;

    if (set || p->st != MAILDEX_STATUS_OK)
        return set;
    keys = stream(p, n);
    if (keys == NULL)
        return NULL;
    set = maildex__plan_read_keys(p, maildex__plan_fmt(p, "SELECT m.thread FROM (%s) s CROSS JOIN messages m "
                                                          "ON m.id = s.k", keys));
    if (set)
        g_hash_table_insert(p->thread_sets, (gpointer) n, set);
    return set;
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
    p.stream = stream;
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
