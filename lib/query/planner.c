/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The planner's building blocks (planner.h), shared by the composition (plan.c, or-sets.c) and the
 * field handlers (field-*.c, fts.c): bound parameters and sets, the cached look-ups and capped counts
 * that estimates use, plan-time reads of keys and ids, arms, unions of arms and joins with a set's
 * rows, SQL text joined once, in balanced parentheses, and a plan's streams, stored counts and bound
 * values made from its arms. Nothing here knows what an operator or a field means, and nothing here
 * calls a handler or the composition. */
#include "planner.h"

#include "util/regexp.h"

#include <inttypes.h>
#include <stdarg.h>
#include <string.h>

/* ---- strings, parameters, look-ups ---------------------------------------------------------------- */

char *maildex__plan_fmt(struct maildex__planner *p, const char *fmt, ...)
{
    va_list ap;
    char *s;

    va_start(ap, fmt);
    s = talloc_vasprintf(p->ctx, fmt, ap);
    va_end(ap);
    if (s == NULL && p->st == MAILDEX_STATUS_OK)
        p->st = MAILDEX_STATUS_NO_MEMORY;
    return s ? s : (char *) "0";
}

static int add_bind(struct maildex__planner *p, struct maildex__bind b)
{
    g_array_append_val(p->binds, b);
    p->params++;
    return MAILDEX__PLAN_FIRST_PARAM + (int) p->binds->len - 1;
}

int maildex__plan_int(struct maildex__planner *p, int64_t value)
{
    return add_bind(p, (struct maildex__bind){.kind = MAILDEX__BIND_INT, .i = value});
}

int maildex__plan_text(struct maildex__planner *p, const char *value)
{
    char *copy = talloc_strdup(p->ctx, value);

    if (copy == NULL)
        p->st = MAILDEX_STATUS_NO_MEMORY;
    return add_bind(p, (struct maildex__bind){.kind = MAILDEX__BIND_TEXT, .s = copy ? copy : ""});
}

int maildex__plan_set(struct maildex__planner *p, const struct maildex__set *set)
{
    return add_bind(p, (struct maildex__bind){.kind = MAILDEX__BIND_SET, .ptr = (void *) set});
}

int maildex__plan_match(struct maildex__planner *p, struct maildex__match *match)
{
    p->costly = true;
    return add_bind(p, (struct maildex__bind){.kind = MAILDEX__BIND_MATCH, .ptr = match});
}

/* The cached look-ups of db.c, with p's sticky status; a missing row or a 0 is dflt (ids and sizes
 * the planner looks up are never 0 where dflt matters). */
int64_t maildex__plan_lookup(struct maildex__planner *p, maildex__stmt_id_t id, const char *text,
                             int64_t dflt)
{
    int64_t v = 0;

    if (p->st == MAILDEX_STATUS_OK)
        p->st = maildex__lookup_id(p->db, id, text, &v);
    return v != 0 ? v : dflt;
}

int64_t maildex__plan_lookup_int(struct maildex__planner *p, maildex__stmt_id_t id, int64_t key,
                                 int64_t dflt)
{
    int64_t v = 0;

    if (p->st == MAILDEX_STATUS_OK)
        p->st = maildex__lookup_int(p->db, id, key, &v);
    return v != 0 ? v : dflt;
}

int64_t maildex__plan_node_id(struct maildex__planner *p, const struct maildex__qnode *n,
                              maildex__stmt_id_t id)
{
    int64_t *known = g_hash_table_lookup(p->ids, n);

    if (known == NULL) {
        known = talloc(p->ctx, int64_t);
        if (known == NULL) {
            p->st = MAILDEX_STATUS_NO_MEMORY;
            return -1;
        }
        *known = maildex__plan_lookup(p, id, n->value, -1);
        g_hash_table_insert(p->ids, (gpointer) n, known);
    }
    return *known;
}

int64_t maildex__plan_count(struct maildex__planner *p, const char *from_where, int64_t a, int64_t b,
                            int nargs, int64_t cap)
{
    sqlite3_stmt *stmt = NULL;
    int64_t n = MAILDEX__EST_MANY;
    char *sql = maildex__plan_fmt(p, "SELECT count(*) FROM (SELECT 1 FROM %s LIMIT %" PRId64 ")",
                                  from_where, cap);
    int rc;

    if (p->st != MAILDEX_STATUS_OK)
        return MAILDEX__EST_MANY;
    rc = sqlite3_prepare_v2(p->db->sql, sql, -1, &stmt, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_bind_int64(stmt, 1, a);
        if (nargs > 1)
            sqlite3_bind_int64(stmt, 2, b);
        rc = sqlite3_step(stmt);
        if (rc == SQLITE_ROW)
            n = sqlite3_column_int64(stmt, 0);
        rc = rc == SQLITE_ROW || rc == SQLITE_DONE ? SQLITE_OK : rc;
    }
    if (rc != SQLITE_OK)
        p->st = maildex__sql_error(p->db, rc, "cannot plan the query");
    sqlite3_finalize(stmt);
    return n >= cap ? MAILDEX__EST_MANY : n;
}

struct maildex__set *maildex__plan_read_ints(struct maildex__planner *p, const char *sql,
                                             const struct maildex__bound *v, int n)
{
    GArray *ints;
    struct maildex__set *set = NULL;
    sqlite3_stmt *stmt = NULL;
    int rc;

    if (p->st != MAILDEX_STATUS_OK)
        return NULL;
    ints = g_array_new(FALSE, FALSE, sizeof(int64_t));
    if ((rc = sqlite3_prepare_v2(p->db->sql, sql, -1, &stmt, NULL)) != SQLITE_OK)
        p->st = maildex__sql_error(p->db, rc, "cannot plan the query");
    for (int i = 0; stmt && i < n; i++)
        if (v[i].text)
            sqlite3_bind_text(stmt, i + 1, v[i].text, -1, SQLITE_STATIC);
        else
            sqlite3_bind_int64(stmt, i + 1, v[i].num);
    while (p->st == MAILDEX_STATUS_OK && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        int64_t x = sqlite3_column_int64(stmt, 0);
        g_array_append_val(ints, x);
    }
    if (p->st == MAILDEX_STATUS_OK && rc != SQLITE_DONE)
        p->st = maildex__sql_error(p->db, sqlite3_reset(stmt), "cannot plan the query");
    sqlite3_finalize(stmt);
    if (p->st == MAILDEX_STATUS_OK &&
        (set = maildex__set_of_ints(p->ctx, (int64_t *) ints->data, ints->len)) == NULL)
        p->st = MAILDEX_STATUS_NO_MEMORY;
    g_array_free(ints, TRUE);
    return set;
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

/* The smallest string greater than every string starting with prefix (bytewise, as SQLite's BINARY
 * collation compares), or NULL when there is none (prefix empty or all 0xff). */
static char *prefix_end(struct maildex__planner *p, const char *prefix)
{
    char *end = talloc_strdup(p->ctx, prefix);
    size_t n = end ? strlen(end) : 0;

    while (n > 0 && (unsigned char) end[n - 1] == 0xff)
        end[--n] = '\0';
    if (n == 0)
        return NULL;
    end[n - 1] = (char) ((unsigned char) end[n - 1] + 1);
    return end;
}

const char *maildex__plan_prefix_range(struct maildex__planner *p, const char *column, const char *prefix,
                                       struct maildex__bound *v, int *nv)
{
    const char *end = prefix_end(p, prefix);
    int k = *nv;

    v[(*nv)++] = (struct maildex__bound){prefix, 0};
    if (end == NULL)
        return maildex__plan_fmt(p, "%s >= ?%d", column, k + 1);
    v[(*nv)++] = (struct maildex__bound){end, 0};
    return maildex__plan_fmt(p, "%s >= ?%d AND %s < ?%d", column, k + 1, column, k + 2);
}

bool maildex__plan_regex_ok(struct maildex__planner *p, const struct maildex__qnode *n)
{
    char *error = maildex__regex_check(p->ctx, n->value);

    if (error)
        maildex__plan_syntax_error(p, n, error);
    return error == NULL;
}

void maildex__plan_syntax_error(struct maildex__planner *p, const struct maildex__qnode *n,
                                const char *msg)
{
    if (p->st == MAILDEX_STATUS_OK && p->opts->bare_errors)
        p->st = maildex__error(p->db, MAILDEX_STATUS_QUERY_SYNTAX, "%s", msg);
    else if (p->st == MAILDEX_STATUS_OK)
        p->st = maildex__error(p->db, MAILDEX_STATUS_QUERY_SYNTAX, "syntax error at position %zu: %s",
                               n->pos, msg);
}

bool maildex__plan_arm(struct maildex__planner *p, struct maildex__drive *d,
                       enum maildex__driver kind, const char *from, const char *key,
                       const char *where, bool files)
{
    d->arms = talloc_zero(p->ctx, struct maildex__arm);
    if (d->arms == NULL) {
        p->st = MAILDEX_STATUS_NO_MEMORY;
        return false;
    }
    *d->arms = (struct maildex__arm){from, key, where, files, false};
    d->narms = 1;
    d->kind = kind;
    d->tag_param = 0;
    return true;
}

bool maildex__plan_none(struct maildex__planner *p, struct maildex__drive *d)
{
    return maildex__plan_arm(p, d, MAILDEX__DRIVER_NONE, "messages m", "m.id", "0", false);
}

bool maildex__plan_drive_set(struct maildex__planner *p, struct maildex__drive *d,
                             const struct maildex__set *set, enum maildex__driver kind,
                             const char *from, const char *key, const char *column, bool repeats)
{
    const size_t n = set ? maildex__set_size(set) : 0;

    if (set == NULL)
        return false;
    if (n == 0)
        return maildex__plan_none(p, d);
    if (n > MAILDEX__MAX_ARMS) {
        if (!maildex__plan_arm(p, d, kind,
                               maildex__plan_fmt(p, "maildex_set(?%d) s CROSS JOIN %s",
                                                 maildex__plan_set(p, set), from),
                               key, maildex__plan_fmt(p, "%s = s.value", column), repeats))
            return false;
        d->arms[0].unordered = true;
        return true;
    }
    d->arms = talloc_zero_array(p->ctx, struct maildex__arm, n);
    if (d->arms == NULL) {
        p->st = MAILDEX_STATUS_NO_MEMORY;
        return false;
    }
    for (size_t i = 0; i < n; i++)
        d->arms[i] = (struct maildex__arm){
            from, key,
            maildex__plan_fmt(p, "%s = ?%d", column, maildex__plan_int(p, maildex__set_int(set, i))),
            repeats, false};
    d->narms = n;
    d->kind = n == 1 ? kind : MAILDEX__DRIVER_UNION;
    d->tag_param = 0;
    return true;
}

const char *maildex__plan_in_keys(struct maildex__planner *p, const struct maildex__set *set, const char *a)
{
    return set ? maildex__plan_fmt(p, "maildex_in(?%d, %s.id)", maildex__plan_set(p, set), a) : "0";
}

bool maildex__plan_drive_keys(struct maildex__planner *p, struct maildex__drive *d,
                              const struct maildex__set *set, enum maildex__driver kind)
{
    if (set == NULL)
        return false;
    return maildex__plan_arm(p, d, kind,
                             maildex__plan_fmt(p, "maildex_set(?%d) s CROSS JOIN messages m ON m.id = s.value",
                                               maildex__plan_set(p, set)),
                             "s.value", "1", false);
}

const char *maildex__plan_in_threads(struct maildex__planner *p, const struct maildex__set *set, const char *a)
{
    return set ? maildex__plan_fmt(p, "maildex_in(?%d, %s.thread)", maildex__plan_set(p, set), a) : "0";
}

bool maildex__plan_drive_threads(struct maildex__planner *p, struct maildex__drive *d, const struct maildex__set *set)
{
    return maildex__plan_drive_set(p, d, set, MAILDEX__DRIVER_THREAD, "messages m", "m.id", "m.thread", false);
}

bool maildex__plan_drive_key_set(struct maildex__planner *p, struct maildex__drive *d,
                                 const struct maildex__set *set, enum maildex__driver kind)
{
    if (set && maildex__set_size(set) == 0)
        return maildex__plan_none(p, d);
    return maildex__plan_drive_keys(p, d, set, kind);
}

int64_t maildex__plan_key_set_size(const struct maildex__set *set)
{
    return set ? (int64_t) maildex__set_size(set) : MAILDEX__EST_MANY;
}

const char maildex__no_keys_mark;

bool maildex__plan_keys_held(struct maildex__planner *p, const struct maildex__qnode *n)
{
    const struct maildex__set *set = n->kind == MAILDEX__Q_TERM ? g_hash_table_lookup(p->key_sets, n) : NULL;

    return set != NULL && set != MAILDEX__NO_KEYS;
}

bool maildex__plan_has_prefix(const struct maildex__qnode *n)
{
    if (n->kind == MAILDEX__Q_TERM)
        return (n->flags & MAILDEX__QFLAG_WILDCARD) != 0;
    for (size_t i = 0; i < n->nchildren; i++)
        if (maildex__plan_has_prefix(n->children[i]))
            return true;
    return false;
}

/* parts[0] op parts[1] op ... in balanced parentheses: SQLite nests `a OR b OR c` one level per
 * term, and refuses an expression deeper than 1,000. Written into one buffer, never re-copied. */
static void join_into(GString *s, const char *const *parts, size_t n, const char *op)
{
    if (n == 1) {
        g_string_append(s, parts[0]);
        return;
    }
    g_string_append_c(s, '(');
    join_into(s, parts, n / 2, op);
    g_string_append(s, op);
    join_into(s, parts + n / 2, n - n / 2, op);
    g_string_append_c(s, ')');
}

const char *maildex__plan_join(struct maildex__planner *p, const char *const *parts, size_t n,
                        const char *op, const char *empty)
{
    GString *s;
    char *out;

    if (n == 0)
        return empty;
    s = g_string_new(NULL);
    join_into(s, parts, n, op);
    out = talloc_strdup(p->ctx, s->str);
    g_string_free(s, TRUE);
    if (out == NULL)
        p->st = MAILDEX_STATUS_NO_MEMORY;
    return out ? out : "0";
}

/* SELECTs joined by a compound operator: flat, as SQL wants them. */
const char *maildex__plan_compound(struct maildex__planner *p, const char *const *selects, size_t n,
                            const char *op)
{
    GString *s = g_string_new(NULL);
    char *out;

    for (size_t i = 0; i < n; i++) {
        if (i)
            g_string_append(s, op);
        g_string_append(s, selects[i]);
    }
    out = talloc_strdup(p->ctx, s->str);
    g_string_free(s, TRUE);
    if (out == NULL)
        p->st = MAILDEX_STATUS_NO_MEMORY;
    return out;
}

/* ---- streams, counts and bound values of a plan ------------------------------------------------------- */

/* Whether x starts a reference to the messages row "m" ("m." not preceded by an identifier
 * character). Only the planner's own text is searched: user values are bound parameters. */
static bool is_m_at(const char *sql, const char *x)
{
    return x[0] == 'm' && x[1] == '.' && (x == sql || !(g_ascii_isalnum(x[-1]) || x[-1] == '_'));
}

/* sql with every "m.id" replaced by key, or NULL when sql reads another column of m. */
static const char *with_key_for_m_id(struct maildex__planner *p, const char *sql, const char *key)
{
    GString *out = g_string_sized_new(strlen(sql) + 64);
    char *text;

    for (const char *x = sql; *x; x++) {
        if (!is_m_at(sql, x)) {
            g_string_append_c(out, *x);
            continue;
        }
        if (strncmp(x, "m.id", 4) != 0 || g_ascii_isalnum(x[4]) || x[4] == '_') {
            g_string_free(out, TRUE);
            return NULL;
        }
        g_string_append(out, key);
        x += 3;
    }
    text = talloc_strdup(p->ctx, out->str);
    g_string_free(out, TRUE);
    if (text == NULL)
        p->st = MAILDEX_STATUS_NO_MEMORY;
    return text;
}

/* An index driven arm joins messages only for the probes that read more of it than its id, which is
 * the arm's key: without them the join is a seek per match for nothing (count tag:unread at 100k:
 * 43 ms, 9,266 seeks; tag:inbox and a*, 95,000 matches: a third of the time). Every row of the
 * driving tables belongs to a message, so the join never filters. */
struct maildex__arm maildex__arm_without_unused_join(struct maildex__planner *p, struct maildex__arm a)
{
    const char *join_at = strstr(a.from, " CROSS JOIN messages m ON ");
    const char *where;

    if (join_at == NULL || is_m_at(a.key, a.key) || (where = with_key_for_m_id(p, a.where, a.key)) == NULL)
        return a;
    a.from = talloc_strndup(p->ctx, a.from, (size_t) (join_at - a.from));
    a.where = where;
    return a;
}

/* The count of a stream of every message or of one tag's, from the stored counts (meta's message
 * count, tags.messages) less the excluded messages among them, which are read from the excluded
 * tags' own index entries: the work follows the excluded tags' size, never the store's. NULL for
 * any other stream. */
const char *maildex__plan_stored_count(struct maildex__planner *p, const struct maildex__drive *d, bool hiding)
{
    const bool all = d->narms == 1 && d->kind == MAILDEX__DRIVER_ALL;
    const char *total;

    if (!all && !(d->narms == 1 && d->kind == MAILDEX__DRIVER_TAG && d->tag_param))
        return NULL;
    total = all ? "(SELECT value FROM meta WHERE key = 'messages')"
                : maildex__plan_fmt(p, "(SELECT messages FROM tags WHERE id = ?%d)", d->tag_param);
    if (!hiding)
        return maildex__plan_fmt(p, "SELECT %s", total);
    if (all)
        return maildex__plan_fmt(p, "SELECT %s - (SELECT count(DISTINCT message) FROM message_tags "
                                    "WHERE tag IN (%s))",
                                 total, p->excluded_ids);
    return maildex__plan_fmt(p,
                             "SELECT %s - (SELECT count(DISTINCT e.message) FROM message_tags e "
                             "WHERE e.tag IN (%s) AND EXISTS (SELECT 1 FROM message_tags x WHERE "
                             "x.tag = ?%d AND x.message = e.message))",
                             total, p->excluded_ids, d->tag_param);
}

static const char *arm_sql(struct maildex__planner *p, const struct maildex__arm *a, bool single)
{
    return maildex__plan_fmt(p, "SELECT %s AS k FROM %s WHERE %s%s%s", a->key, a->from, a->where,
                             single && a->files ? " GROUP BY " : "", single && a->files ? a->key : "");
}

void maildex__plan_assemble(struct maildex__planner *p, struct maildex__plan *plan, struct maildex__drive *d)
{
    const char **stream = talloc_array(p->ctx, const char *, d->narms);
    const char **ranged = talloc_array(p->ctx, const char *, d->narms);

    if (stream == NULL || ranged == NULL) {
        p->st = MAILDEX_STATUS_NO_MEMORY;
        return;
    }
    for (size_t i = 0; i < d->narms && p->st == MAILDEX_STATUS_OK; i++) {
        struct maildex__arm a = d->arms[i];
        if (plan->hides)
            a.where = maildex__plan_fmt(p, "%s AND NOT %s", a.where, plan->excluded);
        a = maildex__arm_without_unused_join(p, a);
        stream[i] = arm_sql(p, &a, d->narms == 1);
        a.where = maildex__plan_fmt(p, "%s AND %s BETWEEN ?1 AND ?2", a.where, a.key);
        ranged[i] = arm_sql(p, &a, false);
    }
    plan->stream = maildex__plan_compound(p, stream, d->narms, " UNION ");
    plan->ranged = maildex__plan_compound(p, ranged, d->narms, " UNION ");
}

int maildex__plan_bind_values(const struct maildex__plan *plan, sqlite3_stmt *stmt, bool cursors)
{
    const int max = sqlite3_bind_parameter_count(stmt);

    for (size_t i = 0; i < plan->nbinds; i++) {
        const int k = MAILDEX__PLAN_FIRST_PARAM + (int) i;
        const struct maildex__bind *b = &plan->binds[i];
        int rc = SQLITE_OK;
        if (k > max)
            break;
        switch (b->kind) {
        case MAILDEX__BIND_INT:
            rc = sqlite3_bind_int64(stmt, k, b->i);
            break;
        case MAILDEX__BIND_TEXT:
            rc = sqlite3_bind_text(stmt, k, b->s, -1, SQLITE_STATIC);
            break;
        case MAILDEX__BIND_SET:
            rc = maildex__set_bind(b->ptr, stmt, k);
            break;
        case MAILDEX__BIND_MATCH:
            /* A parameter stmt does not name has no name: only the cursors it uses matter. */
            if (!cursors && sqlite3_bind_parameter_name(stmt, k) != NULL)
                return SQLITE_MISUSE;
            rc = cursors ? maildex__match_bind(b->ptr, stmt, k) : SQLITE_OK;
            break;
        }
        if (rc != SQLITE_OK)
            return rc;
    }
    return SQLITE_OK;
}

maildex_status_t maildex__plan_bind(maildex_db_t *db, const struct maildex__plan *plan,
                                    sqlite3_stmt *stmt)
{
    int rc = maildex__plan_bind_values(plan, stmt, true);

    return rc == SQLITE_OK ? MAILDEX_STATUS_OK : maildex__sql_error(db, rc, "cannot bind a query value");
}
