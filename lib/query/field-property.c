/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The handlers of property: (fields.h). A key=value term is probed and driven through the properties
 * index and estimated from the stored count (sql/0003-property-counts.sql), as a tag is. A prefix
 * ((starts-with "key=val")), a regex over "key=value" or (property (of ...)) is read at plan time
 * into the set of the messages it matches, probed by binary search and streamed from the set's own
 * rows. Nothing here composes terms or knows another field; the subquery of (of ...) is planned
 * through the planner's callback (p->stream). */
#include "planner.h"
#include "fields.h"

#include <string.h>

/* ---- property:key=value ----------------------------------------------------------------------------------- */

/* property:key=value: the key and the value, or false when there is no '='. */
static bool property_parts(struct maildex__planner *p, const struct maildex__qnode *n, char **key,
                           const char **value)
{
    const char *eq = strchr(n->value, '=');

    if (eq == NULL)
        return false;
    *key = talloc_strndup(p->ctx, n->value, (size_t) (eq - n->value));
    *value = eq + 1;
    return *key != NULL;
}

static const char *property_probe(struct maildex__planner *p, const struct maildex__qnode *n, const char *a)
{
    char *key;
    const char *value;

    if (!property_parts(p, n, &key, &value))
        return "0";
    return maildex__plan_fmt(p, "EXISTS (SELECT 1 FROM properties WHERE message = %s.id AND key = ?%d "
                                "AND value = ?%d)",
                             a, maildex__plan_text(p, key), maildex__plan_text(p, value));
}

static bool property_drive(struct maildex__planner *p, const struct maildex__qnode *n,
                           struct maildex__drive *d)
{
    char *key;
    const char *value;
    int k;

    if (!property_parts(p, n, &key, &value))
        return maildex__plan_none(p, d);
    k = maildex__plan_text(p, key);
    return maildex__plan_arm(p, d, MAILDEX__DRIVER_PROPERTY,
                             "properties d CROSS JOIN messages m ON m.id = d.message", "d.message",
                             maildex__plan_fmt(p, "d.key = ?%d AND d.value = ?%d", k,
                                               maildex__plan_text(p, value)),
                             false);
}

/* Exact, from the stored count (sql/0003-property-counts.sql), as a tag's is. */
static int64_t property_estimate(struct maildex__planner *p, const struct maildex__qnode *n, int64_t cap)
{
    char *key;
    const char *value;
    sqlite3_stmt *stmt = NULL;
    int64_t c = MAILDEX__EST_MANY;
    maildex_status_t st;

    (void) cap;
    if (!property_parts(p, n, &key, &value))
        return 0;
    st = maildex__stmt(p->db, MAILDEX__STMT_PROPERTY_COUNT, &stmt);
    if (st == MAILDEX_STATUS_OK) {
        sqlite3_bind_text(stmt, 1, key, -1, SQLITE_STATIC);
        sqlite3_bind_text(stmt, 2, value, -1, SQLITE_STATIC);
        c = sqlite3_step(stmt) == SQLITE_ROW ? sqlite3_column_int64(stmt, 0) : 0;
        sqlite3_reset(stmt);
    } else {
        p->st = st;
    }
    return c;
}

/* ---- read at plan time: a prefix, a regex, (property (of ...)) ------------------------------------------ */

/* property:(starts-with "key=val"): the key exactly and the value's start; without '=', the key's start. */
static struct maildex__set *property_prefix_keys(struct maildex__planner *p, const struct maildex__qnode *n)
{
    const char *eq = strchr(n->value, '=');
    struct maildex__bound v[3];
    const char *range;
    int nv = 0;

    if (eq == NULL) {
        range = maildex__plan_prefix_range(p, "key", n->value, v, &nv);
    } else {
        v[nv++] = (struct maildex__bound){talloc_strndup(p->ctx, n->value, (size_t) (eq - n->value)), 0};
        if (v[0].text == NULL) {
            p->st = MAILDEX_STATUS_NO_MEMORY;
            return NULL;
        }
        range = maildex__plan_fmt(p, "key = ?1 AND %s", maildex__plan_prefix_range(p, "value", eq + 1, v, &nv));
    }
    return maildex__plan_read_ints(p, maildex__plan_fmt(p, "SELECT message FROM properties WHERE %s", range), v,
                                  nv);
}

/* (property (of q)): the messages holding a key=value pair that a message matching q holds. */
static struct maildex__set *property_same_keys(struct maildex__planner *p, const struct maildex__qnode *n)
{
    const char *stream = p->stream(p, n->children[0]);

    if (stream == NULL)
        return NULL;
    return maildex__plan_read_keys(
        p, maildex__plan_fmt(p, "SELECT d.message FROM (SELECT DISTINCT e.key, e.value FROM (%s) s "
                                "CROSS JOIN properties e ON e.message = s.k) x CROSS JOIN properties d "
                                "ON d.key = x.key AND d.value = x.value",
                             stream));
}

/* The messages a property prefix, regex or (of ...) matches, read once per node (its key set). */
static const struct maildex__set *keys_of(struct maildex__planner *p, const struct maildex__qnode *n)
{
    struct maildex__set *set = g_hash_table_lookup(p->key_sets, n);
    struct maildex__bound v[1] = {{n->value, 0}};

    if (set || p->st != MAILDEX_STATUS_OK)
        return set;
    if (n->kind == MAILDEX__Q_SAME)
        set = property_same_keys(p, n);
    else if (!(n->flags & MAILDEX__QFLAG_REGEX))
        set = property_prefix_keys(p, n);
    else if (maildex__plan_regex_ok(p, n))
        set = maildex__plan_read_ints(p, "SELECT message FROM properties WHERE regexp(?1, key || '=' || value)", v, 1);
    if (set)
        g_hash_table_insert(p->key_sets, (gpointer) n, set);
    return set;
}

static const char *keys_probe(struct maildex__planner *p, const struct maildex__qnode *n, const char *a)
{
    return maildex__plan_in_keys(p, keys_of(p, n), a);
}

/* The keys stream from the set's own rows, in key order. */
static bool keys_drive(struct maildex__planner *p, const struct maildex__qnode *n, struct maildex__drive *d)
{
    return maildex__plan_drive_key_set(p, d, keys_of(p, n), MAILDEX__DRIVER_UNION);
}

static int64_t keys_estimate(struct maildex__planner *p, const struct maildex__qnode *n, int64_t cap)
{
    (void) cap;
    return maildex__plan_key_set_size(keys_of(p, n));
}

/* ---- the handlers ---------------------------------------------------------------------------------------- */

const struct maildex__field_ops maildex__property_ops = {
    .probe = property_probe, .drive = property_drive, .estimate = property_estimate, .cheap_estimate = true};
const struct maildex__field_ops maildex__property_keys_ops = {
    .probe = keys_probe, .drive = keys_drive, .estimate = keys_estimate};
