/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The handlers of id:, mid: and thread: (fields.h): a Message-ID is probed and driven through the
 * messages' Message-ID index, a thread id through the thread index, whose stored sizes
 * (threads.messages) are exact estimates. A long OR of either (notmuch.el tags a thread as
 * `id:a id:b ...`) is one set; an id prefix ((starts-with ...)), and a thread id's prefix or regex,
 * are read at plan time into the set of the messages or threads they match. Nothing here composes
 * terms or knows another field. */
#include "planner.h"
#include "fields.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* ---- id:, mid:, thread: ---------------------------------------------------------------------------------- */

static const char *id_probe(struct maildex__planner *p, const struct maildex__qnode *n, const char *a)
{
    if (n->flags & MAILDEX__QFLAG_REGEX)
        return maildex__plan_regex_ok(p, n) ? maildex__plan_fmt(p, "regexp(?%d, %s.message_id)",
                                                  maildex__plan_text(p, n->value), a)
                              : "0";
    return maildex__plan_fmt(p, "%s.message_id = ?%d", a, maildex__plan_text(p, n->value));
}

static bool id_drive(struct maildex__planner *p, const struct maildex__qnode *n, struct maildex__drive *d)
{
    if (n->flags & MAILDEX__QFLAG_REGEX)
        return false;
    return maildex__plan_arm(p, d, MAILDEX__DRIVER_ID, "messages m", "m.id",
                             maildex__plan_fmt(p, "m.message_id = ?%d", maildex__plan_text(p, n->value)),
                             false);
}

static int64_t id_estimate(struct maildex__planner *p, const struct maildex__qnode *n, int64_t cap)
{
    (void) p, (void) cap;
    return n->flags & MAILDEX__QFLAG_REGEX ? MAILDEX__EST_MANY : 1;
}

/* thread:HEX, the 16 hex digits notmuch prints; anything else matches nothing. */
static int64_t thread_id(const struct maildex__qnode *n)
{
    const char *s = n->value;

    if (strlen(s) != 16)
        return -1;
    for (; *s; s++)
        if (!isxdigit((unsigned char) *s))
            return -1;
    return (int64_t) strtoull(n->value, NULL, 16);
}

static const char *thread_probe(struct maildex__planner *p, const struct maildex__qnode *n, const char *a)
{
    const int64_t id = thread_id(n);

    return id < 0 ? "0" : maildex__plan_fmt(p, "%s.thread = ?%d", a, maildex__plan_int(p, id));
}

static bool thread_drive(struct maildex__planner *p, const struct maildex__qnode *n, struct maildex__drive *d)
{
    const int64_t id = thread_id(n);

    if (id < 0)
        return maildex__plan_none(p, d);
    return maildex__plan_arm(p, d, MAILDEX__DRIVER_THREAD, "messages m", "m.id",
                             maildex__plan_fmt(p, "m.thread = ?%d", maildex__plan_int(p, id)), false);
}

/* threads.messages is maintained: no need to count. */
static int64_t thread_estimate(struct maildex__planner *p, const struct maildex__qnode *n, int64_t cap)
{
    const int64_t id = thread_id(n);

    (void) cap;
    return id < 0 ? 0 : maildex__plan_lookup_int(p, MAILDEX__STMT_THREAD_SIZE, id, 0);
}

/* ---- long ORs of id: and thread: terms (notmuch.el tags a thread as `id:a id:b ...`) ------------------- */

static const struct maildex__set *ids_of(struct maildex__planner *p, const struct maildex__qnode *n);

static const char *ids_or_probe(struct maildex__planner *p, const struct maildex__qnode *n, const char *a)
{
    const struct maildex__set *set = ids_of(p, n);

    return set ? maildex__plan_fmt(p, "maildex_in(?%d, %s.message_id)", maildex__plan_set(p, set), a) : "0";
}

/* The set of an OR of id: terms, made once per node. */
static const struct maildex__set *ids_of(struct maildex__planner *p, const struct maildex__qnode *n)
{
    struct maildex__set *set = g_hash_table_lookup(p->term_sets, n);
    const char **values;

    if (set)
        return set;
    values = talloc_array(p->ctx, const char *, n->nchildren);
    for (size_t i = 0; values && i < n->nchildren; i++)
        values[i] = n->children[i]->value;
    set = values ? maildex__set_of_texts(p->ctx, values, n->nchildren) : NULL;
    if (set == NULL)
        p->st = MAILDEX_STATUS_NO_MEMORY;
    else
        g_hash_table_insert(p->term_sets, (gpointer) n, set);
    return set;
}

/* A few ids stream as a union (the planner's); more join the set's rows with the Message-ID index
 * (a seek each, then a sort). */
static bool ids_or_drive(struct maildex__planner *p, const struct maildex__qnode *n, struct maildex__drive *d)
{
    const struct maildex__set *set;

    if (n->nchildren <= MAILDEX__MAX_ARMS || (set = ids_of(p, n)) == NULL)
        return false;
    if (!maildex__plan_arm(p, d, MAILDEX__DRIVER_ID,
                           maildex__plan_fmt(p, "maildex_set(?%d) s CROSS JOIN messages m",
                                             maildex__plan_set(p, set)),
                           "m.id", "m.message_id = s.value", false))
        return false;
    d->arms[0].unordered = true;
    return true;
}

static int64_t ids_or_estimate(struct maildex__planner *p, const struct maildex__qnode *n, int64_t cap)
{
    (void) p, (void) cap;
    return (int64_t) n->nchildren;
}

static const struct maildex__set *threads_of(struct maildex__planner *p, const struct maildex__qnode *n)
{
    struct maildex__set *set = g_hash_table_lookup(p->term_sets, n);
    int64_t *ids;
    size_t k = 0;

    if (set)
        return set;
    ids = talloc_array(p->ctx, int64_t, n->nchildren);
    for (size_t i = 0; ids && i < n->nchildren; i++)
        if ((ids[k] = thread_id(n->children[i])) >= 0)
            k++;
    set = ids ? maildex__set_of_ints(p->ctx, ids, k) : NULL;
    if (set == NULL)
        p->st = MAILDEX_STATUS_NO_MEMORY;
    else
        g_hash_table_insert(p->term_sets, (gpointer) n, set);
    return set;
}

static const char *threads_or_probe(struct maildex__planner *p, const struct maildex__qnode *n,
                                    const char *a)
{
    return maildex__plan_in_threads(p, threads_of(p, n), a);
}

static bool threads_or_drive(struct maildex__planner *p, const struct maildex__qnode *n,
                             struct maildex__drive *d)
{
    if (n->nchildren <= MAILDEX__MAX_ARMS)
        return false; /* the planner's union of thread: arms */
    return maildex__plan_drive_threads(p, d, threads_of(p, n));
}

static int64_t threads_or_estimate(struct maildex__planner *p, const struct maildex__qnode *n, int64_t cap)
{
    const struct maildex__set *set = threads_of(p, n);
    int64_t e = 0;

    (void) cap; /* stored sizes: summed whole */
    for (size_t i = 0; set && i < maildex__set_size(set); i++)
        e += maildex__plan_lookup_int(p, MAILDEX__STMT_THREAD_SIZE, maildex__set_int(set, i), 0);
    return e;
}

/* ---- id:(starts-with ...): the messages whose Message-ID starts so, read once ---------------------------- */

static struct maildex__set *id_prefix_keys(struct maildex__planner *p, const struct maildex__qnode *n)
{
    struct maildex__bound v[2];
    int nv = 0;
    const char *range = maildex__plan_prefix_range(p, "message_id", n->value, v, &nv);

    return maildex__plan_read_ints(p, maildex__plan_fmt(p, "SELECT id FROM messages WHERE %s", range), v, nv);
}

/* Its key set, read once per node. */
static const struct maildex__set *id_prefix_set(struct maildex__planner *p, const struct maildex__qnode *n)
{
    struct maildex__set *set = g_hash_table_lookup(p->key_sets, n);

    if (set || p->st != MAILDEX_STATUS_OK)
        return set;
    if ((set = id_prefix_keys(p, n)) != NULL)
        g_hash_table_insert(p->key_sets, (gpointer) n, set);
    return set;
}

static const char *id_prefix_probe(struct maildex__planner *p, const struct maildex__qnode *n, const char *a)
{
    return maildex__plan_in_keys(p, id_prefix_set(p, n), a);
}

static bool id_prefix_drive(struct maildex__planner *p, const struct maildex__qnode *n, struct maildex__drive *d)
{
    return maildex__plan_drive_key_set(p, d, id_prefix_set(p, n), MAILDEX__DRIVER_UNION);
}

static int64_t id_prefix_estimate(struct maildex__planner *p, const struct maildex__qnode *n, int64_t cap)
{
    (void) cap;
    return maildex__plan_key_set_size(id_prefix_set(p, n));
}

/* ---- thread:(starts-with ...) and thread:(regex ...) --------------------------------------------------------- */

/* thread:(starts-with HEX) and thread:(regex ...): the threads whose 16 hex digits match, found once. */
static const struct maildex__set *threads_matching(struct maildex__planner *p, const struct maildex__qnode *n)
{
    struct maildex__set *set = g_hash_table_lookup(p->term_sets, n);
    struct maildex__bound v[2] = {{n->value, 0}, {NULL, 0}};
    char lo[17], hi[17];
    size_t len = strlen(n->value);

    if (set || p->st != MAILDEX_STATUS_OK)
        return set;
    if (n->flags & MAILDEX__QFLAG_REGEX) {
        if (maildex__plan_regex_ok(p, n))
            set = maildex__plan_read_ints(p, "SELECT id FROM threads WHERE regexp(?1, printf('%016x', id))", v, 1);
    } else if (len <= 16 && strspn(n->value, "0123456789abcdef") == len) {
        memcpy(lo, n->value, len);
        memcpy(hi, n->value, len);
        memset(lo + len, '0', 16 - len);
        memset(hi + len, 'f', 16 - len);
        lo[16] = hi[16] = '\0';
        v[0] = (struct maildex__bound){NULL, (int64_t) strtoull(lo, NULL, 16)};
        v[1] = (struct maildex__bound){NULL, strtoull(hi, NULL, 16) > INT64_MAX ? INT64_MAX : (int64_t) strtoull(hi, NULL, 16)};
        set = v[0].num < 0 ? maildex__set_of_ints(p->ctx, NULL, 0)
                           : maildex__plan_read_ints(p, "SELECT id FROM threads WHERE id BETWEEN ?1 AND ?2", v, 2);
    } else {
        set = maildex__set_of_ints(p->ctx, NULL, 0); /* a thread id is hex digits */
    }
    if (set == NULL && p->st == MAILDEX_STATUS_OK)
        p->st = MAILDEX_STATUS_NO_MEMORY;
    if (set)
        g_hash_table_insert(p->term_sets, (gpointer) n, set);
    return set;
}

static const char *threads_matching_probe(struct maildex__planner *p, const struct maildex__qnode *n,
                                          const char *a)
{
    return maildex__plan_in_threads(p, threads_matching(p, n), a);
}

static bool threads_matching_drive(struct maildex__planner *p, const struct maildex__qnode *n,
                                   struct maildex__drive *d)
{
    return maildex__plan_drive_threads(p, d, threads_matching(p, n));
}

static int64_t threads_matching_estimate(struct maildex__planner *p, const struct maildex__qnode *n, int64_t cap)
{
    const struct maildex__set *set = threads_matching(p, n);
    int64_t e = 0;

    (void) cap; /* stored sizes: summed whole, until they are many */
    for (size_t i = 0; set && i < maildex__set_size(set) && e < MAILDEX__EST_MANY; i++)
        e += maildex__plan_lookup_int(p, MAILDEX__STMT_THREAD_SIZE, maildex__set_int(set, i), 0);
    return MIN(e, MAILDEX__EST_MANY);
}

/* ---- the handlers ---------------------------------------------------------------------------------------- */

const struct maildex__field_ops maildex__id_ops = {
    .probe = id_probe, .drive = id_drive, .estimate = id_estimate, .cheap_estimate = true};
const struct maildex__field_ops maildex__id_prefix_ops = {
    .probe = id_prefix_probe, .drive = id_prefix_drive, .estimate = id_prefix_estimate};
const struct maildex__field_ops maildex__id_or_ops = {
    .probe = ids_or_probe, .drive = ids_or_drive, .estimate = ids_or_estimate, .cheap_estimate = true};
const struct maildex__field_ops maildex__thread_ops = {
    .probe = thread_probe, .drive = thread_drive, .estimate = thread_estimate, .cheap_estimate = true};
const struct maildex__field_ops maildex__thread_pattern_ops = {
    .probe = threads_matching_probe, .drive = threads_matching_drive, .estimate = threads_matching_estimate};
const struct maildex__field_ops maildex__thread_or_ops = {
    .probe = threads_or_probe, .drive = threads_or_drive, .estimate = threads_or_estimate,
    .cheap_estimate = true};
