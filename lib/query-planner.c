/* The planner's building blocks (query-planner.h), shared by the composition (query-plan.c) and the
 * field handlers (query-fields.c, query-fts.c): bound parameters and sets, the cached look-ups and
 * capped counts that estimates use, arms and unions of arms, and SQL text joined once, in balanced
 * parentheses. Nothing here knows the query language's operators or fields. */
#include "query-planner.h"

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

const char *maildex__plan_in_list(struct maildex__planner *p, const struct maildex__set *set)
{
    const size_t n = maildex__set_size(set);
    GString *s;

    if (n == 0 || p->params + (int) n > MAILDEX__MAX_IN_LIST)
        return NULL;
    s = g_string_sized_new(n * 7);
    for (size_t i = 0; i < n; i++)
        g_string_append_printf(s, "%s?%d", i ? ", " : "",
                                maildex__plan_int(p, maildex__set_int(set, i)));
    char *list = talloc_strdup(p->ctx, s->str);
    g_string_free(s, TRUE);
    if (list == NULL)
        p->st = MAILDEX_STATUS_NO_MEMORY;
    return list;
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

void maildex__plan_syntax_error(struct maildex__planner *p, const struct maildex__qnode *n,
                                const char *msg)
{
    if (p->st == MAILDEX_STATUS_OK)
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
    const char *list;

    if (set == NULL)
        return false;
    if (n == 0)
        return maildex__plan_none(p, d);
    if (n > MAILDEX__MAX_ARMS) {
        list = maildex__plan_in_list(p, set);
        if (list == NULL || !maildex__plan_arm(p, d, kind, from, key,
                                               maildex__plan_fmt(p, "%s IN (%s)", column, list), repeats))
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

