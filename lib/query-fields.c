/* One handler per query field (query-planner.h's struct maildex__field_ops): how a tag:, id:,
 * thread:, folder:, path:, property:, date: or lastmod: term (and a from:/subject: regex) is probed
 * on one message, drives a stream in key order, and estimates its matches. Values name rows of small
 * tables (tags, folders, directories): they are looked up once per term through the statement cache,
 * and a regex, a recursive path or a long OR of one field becomes a set of ids found at plan time,
 * probed by binary search and streamed as a union of index ranges (or, when long, through an IN
 * list). The full-text fields are query-fts.c's. Nothing here composes terms. */
#include "query-planner.h"

#include "maildex.h"
#include "parse-time.h"
#include "regexp.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

extern const struct maildex__field_ops maildex__fts_field_ops;

/* messages.id is a date's key: see maildex__key_of_date. */
static int64_t date_key(int64_t t, bool upper)
{
    const int64_t lim = INT64_MAX >> MAILDEX__KEY_SHIFT;

    if (t >= lim)
        return INT64_MAX;
    if (t <= -lim)
        return INT64_MIN;
    return maildex__key_of_date(t) + (upper ? ((int64_t) 1 << MAILDEX__KEY_SHIFT) - 1 : 0);
}

static const char *none_probe(struct maildex__planner *p, const struct maildex__qnode *n, const char *a)
{
    (void) p, (void) n, (void) a;
    return "0";
}

static bool no_drive(struct maildex__planner *p, const struct maildex__qnode *n, struct maildex__drive *d)
{
    (void) p, (void) n, (void) d;
    return false;
}

static int64_t no_estimate(struct maildex__planner *p, const struct maildex__qnode *n, int64_t cap)
{
    (void) p, (void) n, (void) cap;
    return MAILDEX__EST_MANY;
}

static bool regex_ok(struct maildex__planner *p, const struct maildex__qnode *n)
{
    char *error = maildex__regex_check(p->ctx, n->value);

    if (error)
        maildex__plan_syntax_error(p, n, error);
    return error == NULL;
}

/* ---- fields whose values are rows of a small table: tags, folders, directories ------------------------- */

struct id_field {
    enum maildex__driver kind;
    const char *drive_from, *drive_key, *drive_column;
    const char *probe_table, *probe_column; /* WHERE message = a.id AND column ... */
    bool repeats;                           /* a message has several rows (files) */
    maildex__stmt_id_t size;                /* stored size of one id, or 0: counted */
    const char *count_from;                 /* "table WHERE column = ?1", for the counts */
    const char *all_rows;                   /* id, name of every row, for regexes */
};

static const struct id_field tag_field = {
    MAILDEX__DRIVER_TAG, "message_tags d CROSS JOIN messages m ON m.id = d.message", "d.message",
    "d.tag", "message_tags", "tag", false, MAILDEX__STMT_TAG_MESSAGES, NULL,
    "SELECT id, name FROM tags"};
static const struct id_field folder_field = {
    MAILDEX__DRIVER_FOLDER, "files d CROSS JOIN messages m ON m.id = d.message", "d.message",
    "d.folder", "files", "folder", true, 0, "files WHERE folder = ?1", "SELECT id, name FROM folders"};
static const struct id_field path_field = {
    MAILDEX__DRIVER_PATH, "files d CROSS JOIN messages m ON m.id = d.message", "d.message",
    "d.directory", "files", "directory", true, 0, "files WHERE directory = ?1",
    "SELECT id, path FROM directories"};

/* The ids of f's rows whose name the regex (or, with recursive, the path prefix base) matches. */
static struct maildex__set *ids_matching(struct maildex__planner *p, const struct id_field *f,
                                         const struct maildex__qnode *n, const char *base)
{
    struct maildex__regex *re = NULL;
    const size_t blen = base ? strlen(base) : 0;
    GArray *ids = g_array_new(FALSE, FALSE, sizeof(int64_t));
    struct maildex__set *set = NULL;
    sqlite3_stmt *stmt = NULL;
    char *error = base ? NULL : maildex__regex_compile(p->ctx, n->value, &re);
    int rc;

    if (error)
        maildex__plan_syntax_error(p, n, error);
    else if ((rc = sqlite3_prepare_v2(p->db->sql, f->all_rows, -1, &stmt, NULL)) != SQLITE_OK)
        p->st = maildex__sql_error(p->db, rc, "cannot plan the query");
    while (stmt && p->st == MAILDEX_STATUS_OK && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        const char *name = (const char *) sqlite3_column_text(stmt, 1);
        int64_t id = sqlite3_column_int64(stmt, 0);
        bool hit = re ? maildex__regex_match(re, name)
                      : strncmp(name, base, blen) == 0 && (name[blen] == '\0' || name[blen] == '/' ||
                                                           blen == 0);
        if (hit)
            g_array_append_val(ids, id);
    }
    sqlite3_finalize(stmt);
    maildex__regex_free(re);
    if (p->st == MAILDEX_STATUS_OK && (set = maildex__set_of_ints(p->ctx, (int64_t *) ids->data,
                                                                  ids->len)) == NULL)
        p->st = MAILDEX_STATUS_NO_MEMORY;
    g_array_free(ids, TRUE);
    return set;
}

/* A tag probed on every row of a bulk driver (p->bulk_rows) whose count is within a few times that:
 * its messages read once (sequential in the tag's index, 2 ms for 97,000 at 100k) and searched in
 * memory, instead of an index descent per row (32 ms for `tag:inbox and a*` there). NULL otherwise. */
static const char *tag_members_probe(struct maildex__planner *p, const struct id_field *f,
                                     const struct maildex__qnode *n, int64_t id, const char *a)
{
    const struct maildex__set *set;

    if (p->bulk_rows == 0 || f->size != MAILDEX__STMT_TAG_MESSAGES ||
        maildex__plan_lookup_int(p, f->size, id, 0) > 8 * p->bulk_rows)
        return NULL;
    set = g_hash_table_lookup(p->key_sets, n);
    if (set == NULL) {
        set = maildex__plan_read_set(p, "SELECT message FROM message_tags WHERE tag = ?1", id);
        if (set == NULL)
            return "0";
        g_hash_table_insert(p->key_sets, (gpointer) n, (gpointer) set);
    }
    return maildex__plan_fmt(p, "maildex_in(?%d, %s.id)", maildex__plan_set(p, set), a);
}

static const char *ids_probe(struct maildex__planner *p, const struct id_field *f,
                             const struct maildex__qnode *node, const struct maildex__set *set,
                             const char *a)
{
    const size_t n = set ? maildex__set_size(set) : 0;
    const char *members;

    if (n == 0)
        return "0";
    if (n == 1 && (members = tag_members_probe(p, f, node, maildex__set_int(set, 0), a)) != NULL)
        return members;
    if (n == 1)
        return maildex__plan_fmt(p, "EXISTS (SELECT 1 FROM %s WHERE %s = ?%d AND message = %s.id)",
                                 f->probe_table, f->probe_column,
                                 maildex__plan_int(p, maildex__set_int(set, 0)), a);
    return maildex__plan_fmt(p, "EXISTS (SELECT 1 FROM %s WHERE message = %s.id AND maildex_in(?%d, %s))",
                             f->probe_table, a, maildex__plan_set(p, set), f->probe_column);
}

static bool ids_drive(struct maildex__planner *p, const struct id_field *f,
                      const struct maildex__set *set, struct maildex__drive *d)
{
    if (!maildex__plan_drive_set(p, d, set, f->kind, f->drive_from, f->drive_key, f->drive_column,
                                 f->repeats))
        return false;
    /* tags.messages is exact: one tag and nothing else needs no counting. */
    if (d->narms == 1 && d->kind == MAILDEX__DRIVER_TAG && !d->arms[0].unordered)
        d->tag_param = maildex__plan_int(p, maildex__set_int(set, 0));
    return true;
}

static int64_t ids_estimate(struct maildex__planner *p, const struct id_field *f,
                            const struct maildex__set *set, int64_t cap)
{
    int64_t e = 0;

    /* Stored sizes are summed whole; counts stop at the cap. */
    for (size_t i = 0; set && i < maildex__set_size(set) && e < MAILDEX__EST_MANY; i++)
        e += f->size ? maildex__plan_lookup_int(p, f->size, maildex__set_int(set, i), 0)
                     : maildex__plan_count(p, f->count_from, maildex__set_int(set, i), 0, 1,
                                           MAX(cap - e, 1));
    return MIN(e, MAILDEX__EST_MANY);
}

static const struct maildex__set *term_ids(struct maildex__planner *p, const struct id_field *f,
                                           const struct maildex__qnode *n);

/* The union of the ids of an OR's terms (`tag:a tag:b ...`, which notmuch groups). */
static struct maildex__set *or_ids(struct maildex__planner *p, const struct id_field *f,
                                   const struct maildex__qnode *n)
{
    GArray *ids = g_array_new(FALSE, FALSE, sizeof(int64_t));
    struct maildex__set *set;

    for (size_t i = 0; i < n->nchildren && p->st == MAILDEX_STATUS_OK; i++) {
        const struct maildex__set *one = term_ids(p, f, n->children[i]);
        for (size_t j = 0; one && j < maildex__set_size(one); j++) {
            int64_t id = maildex__set_int(one, j);
            g_array_append_val(ids, id);
        }
    }
    set = maildex__set_of_ints(p->ctx, (int64_t *) ids->data, ids->len);
    g_array_free(ids, TRUE);
    return set;
}

/* The ids a tag:, folder: or path: term (or an OR of them) stands for, found once per node. */
static const struct maildex__set *term_ids(struct maildex__planner *p, const struct id_field *f,
                                           const struct maildex__qnode *n)
{
    const maildex__stmt_id_t find = f == &tag_field      ? MAILDEX__STMT_TAG_FIND
                                    : f == &folder_field ? MAILDEX__STMT_FOLDER_FIND
                                                         : MAILDEX__STMT_DIR_FIND;
    struct maildex__set *set = g_hash_table_lookup(p->term_sets, n);
    const size_t len = n->kind == MAILDEX__Q_TERM ? strlen(n->value) : 0;
    int64_t id;

    if (set || p->st != MAILDEX_STATUS_OK)
        return set;
    if (n->kind == MAILDEX__Q_OR) {
        set = or_ids(p, f, n);
    } else if (n->flags & MAILDEX__QFLAG_REGEX) {
        set = ids_matching(p, f, n, NULL);
    } else if (f == &path_field && (strcmp(n->value, "**") == 0 ||
                                    (len >= 3 && strcmp(n->value + len - 3, "/**") == 0))) {
        /* "x" followed by "/" and "**" is x and everything below it; "**" alone every directory. */
        char *base = talloc_strndup(p->ctx, n->value, len >= 3 ? len - 3 : 0);
        set = base ? ids_matching(p, f, n, base) : NULL;
    } else {
        id = maildex__plan_node_id(p, n, find);
        set = maildex__set_of_ints(p->ctx, &id, id < 0 ? 0 : 1);
    }
    if (set == NULL && p->st == MAILDEX_STATUS_OK)
        p->st = MAILDEX_STATUS_NO_MEMORY;
    if (set)
        g_hash_table_insert(p->term_sets, (gpointer) n, set);
    return set;
}

#define ID_FIELD_HANDLERS(name, field)                                                                  \
    static const char *name##_probe(struct maildex__planner *p, const struct maildex__qnode *n,        \
                                    const char *a)                                                      \
    {                                                                                                   \
        return ids_probe(p, &field, n, term_ids(p, &field, n), a);                                      \
    }                                                                                                   \
    static bool name##_drive(struct maildex__planner *p, const struct maildex__qnode *n,               \
                             struct maildex__drive *d)                                                  \
    {                                                                                                   \
        return ids_drive(p, &field, term_ids(p, &field, n), d);                                         \
    }                                                                                                   \
    static int64_t name##_estimate(struct maildex__planner *p, const struct maildex__qnode *n,         \
                                   int64_t cap)                                                         \
    {                                                                                                   \
        return ids_estimate(p, &field, term_ids(p, &field, n), cap);                                    \
    }

ID_FIELD_HANDLERS(tag, tag_field)
ID_FIELD_HANDLERS(folder, folder_field)
ID_FIELD_HANDLERS(path, path_field)

/* ---- id:, mid:, thread: ---------------------------------------------------------------------------------- */

static const char *id_probe(struct maildex__planner *p, const struct maildex__qnode *n, const char *a)
{
    if (n->flags & MAILDEX__QFLAG_REGEX)
        return regex_ok(p, n) ? maildex__plan_fmt(p, "regexp(?%d, %s.message_id)",
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
    const struct maildex__set *set = threads_of(p, n);

    return set ? maildex__plan_fmt(p, "maildex_in(?%d, %s.thread)", maildex__plan_set(p, set), a) : "0";
}

static bool threads_or_drive(struct maildex__planner *p, const struct maildex__qnode *n,
                             struct maildex__drive *d)
{
    if (n->nchildren <= MAILDEX__MAX_ARMS)
        return false; /* the planner's union of thread: arms */
    return maildex__plan_drive_set(p, d, threads_of(p, n), MAILDEX__DRIVER_THREAD, "messages m", "m.id",
                                   "m.thread", false);
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

/* ---- property:, date:, lastmod: --------------------------------------------------------------------------- */

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

/* A date range as a key range. A quoted date is one date for notmuch's date field processor, however
 * many `..` it holds (the parser has already lexed the quoted values that Xapian takes for ranges). */
static bool date_range(struct maildex__planner *p, const struct maildex__qnode *n, int64_t *lo, int64_t *hi)
{
    time_t now = (time_t) p->now, a, b;
    int64_t from, to;
    const char *err = NULL;

    if (n->flags & MAILDEX__QFLAG_QUOTED) {
        if (maildex__parse_time_string(n->value, &a, &now, MAILDEX__ROUND_DOWN) != 0 ||
            maildex__parse_time_string(n->value, &b, &now, MAILDEX__ROUND_UP_INCLUSIVE) != 0) {
            maildex__plan_syntax_error(
                p, n, maildex__plan_fmt(p, "Didn't understand date specification '%s'", n->value));
            return false;
        }
        from = (int64_t) a;
        to = (int64_t) b;
    } else if (maildex__parse_date_range(n->value, (time_t) p->now, &from, &to, &err) != 0) {
        maildex__plan_syntax_error(p, n, maildex__plan_fmt(p, "%s '%s'", err ? err : "Didn't understand date "
                                                                                   "specification",
                                                           n->value));
        return false;
    }
    /* notmuch starts an open range at DBL_MIN, the smallest positive double, so `date:..X` and `date:..`
     * leave out undated messages (date 0); the legacy `..N` comes as @0..@N and keeps them. */
    if (from == INT64_MIN)
        from = 1;
    *lo = date_key(from, false);
    *hi = date_key(to, true);
    return true;
}

static const char *date_probe(struct maildex__planner *p, const struct maildex__qnode *n, const char *a)
{
    int64_t lo, hi;

    if (!date_range(p, n, &lo, &hi))
        return "0";
    return maildex__plan_fmt(p, "%s.id BETWEEN ?%d AND ?%d", a, maildex__plan_int(p, lo),
                             maildex__plan_int(p, hi));
}

static bool date_drive(struct maildex__planner *p, const struct maildex__qnode *n, struct maildex__drive *d)
{
    int64_t lo, hi;

    if (!date_range(p, n, &lo, &hi))
        return false;
    return maildex__plan_arm(p, d, MAILDEX__DRIVER_DATE, "messages m", "m.id",
                             maildex__plan_fmt(p, "m.id BETWEEN ?%d AND ?%d", maildex__plan_int(p, lo),
                                               maildex__plan_int(p, hi)),
                             false);
}

static int64_t date_estimate(struct maildex__planner *p, const struct maildex__qnode *n, int64_t cap)
{
    int64_t lo, hi;

    if (!date_range(p, n, &lo, &hi))
        return 0;
    return maildex__plan_count(p, "messages WHERE id BETWEEN ?1 AND ?2", lo, hi, 2, cap);
}

static bool parse_int64(const char *s, size_t len, int64_t *v)
{
    char buf[32], *end;

    if (len == 0 || len >= sizeof buf)
        return false;
    memcpy(buf, s, len);
    buf[len] = '\0';
    *v = strtoll(buf, &end, 10);
    return *end == '\0';
}

static const char *lastmod_probe(struct maildex__planner *p, const struct maildex__qnode *n, const char *a)
{
    const char *dots = strstr(n->value, "..");
    const size_t len = strlen(n->value);
    int64_t lo = INT64_MIN, hi = INT64_MAX;
    bool ok;

    if (dots == NULL) {
        ok = parse_int64(n->value, len, &lo);
        hi = lo;
    } else {
        const size_t l1 = (size_t) (dots - n->value), l2 = len - l1 - 2;
        ok = (l1 == 0 || parse_int64(n->value, l1, &lo)) && (l2 == 0 || parse_int64(dots + 2, l2, &hi));
    }
    if (!ok) {
        maildex__plan_syntax_error(
            p, n, maildex__plan_fmt(p, "Didn't understand lastmod specification '%s'", n->value));
        return "0";
    }
    return maildex__plan_fmt(p, "%s.lastmod BETWEEN ?%d AND ?%d", a, maildex__plan_int(p, lo),
                             maildex__plan_int(p, hi));
}

/* ---- from:/regex/ and subject:/regex/ ------------------------------------------------------------------- */

static const char *from_regex_probe(struct maildex__planner *p, const struct maildex__qnode *n, const char *a)
{
    if (!regex_ok(p, n))
        return "0";
    return maildex__plan_fmt(p, "EXISTS (SELECT 1 FROM fts_text WHERE fts_text.id = %s.id AND "
                                "regexp(?%d, fts_text.\"from\"))",
                             a, maildex__plan_text(p, n->value));
}

static const char *subject_regex_probe(struct maildex__planner *p, const struct maildex__qnode *n,
                                       const char *a)
{
    if (!regex_ok(p, n))
        return "0";
    return maildex__plan_fmt(p, "regexp(?%d, %s.subject)", maildex__plan_text(p, n->value), a);
}

/* ---- the table ---------------------------------------------------------------------------------------------- */

static const struct maildex__field_ops field_ops[] = {
    [MAILDEX__QF_TAG] = {tag_probe, tag_drive, tag_estimate, true},
    [MAILDEX__QF_ID] = {id_probe, id_drive, id_estimate, true},
    [MAILDEX__QF_THREAD] = {thread_probe, thread_drive, thread_estimate, true},
    [MAILDEX__QF_FOLDER] = {folder_probe, folder_drive, folder_estimate, false},
    [MAILDEX__QF_PATH] = {path_probe, path_drive, path_estimate, false},
    [MAILDEX__QF_PROPERTY] = {property_probe, property_drive, property_estimate, true},
    [MAILDEX__QF_DATE] = {date_probe, date_drive, date_estimate, false},
    [MAILDEX__QF_LASTMOD] = {lastmod_probe, no_drive, no_estimate, true},
};
static const struct maildex__field_ops from_regex_ops = {from_regex_probe, no_drive, no_estimate, true};
static const struct maildex__field_ops subject_regex_ops = {subject_regex_probe, no_drive, no_estimate,
                                                            true};
static const struct maildex__field_ops unknown_ops = {none_probe, no_drive, no_estimate, true};
static const struct maildex__field_ops ids_or_ops = {ids_or_probe, ids_or_drive, ids_or_estimate, true};
static const struct maildex__field_ops threads_or_ops = {threads_or_probe, threads_or_drive,
                                                         threads_or_estimate, true};

const struct maildex__field_ops *maildex__or_ops(const struct maildex__qnode *n)
{
    enum maildex__qfield field;

    if (n->kind != MAILDEX__Q_OR || n->nchildren == 0 || n->children[0]->kind != MAILDEX__Q_TERM)
        return NULL;
    field = n->children[0]->field;
    for (size_t i = 0; i < n->nchildren; i++) {
        const struct maildex__qnode *c = n->children[i];
        if (c->kind != MAILDEX__Q_TERM || c->field != field || (c->flags & MAILDEX__QFLAG_REGEX))
            return NULL;
    }
    switch (field) {
    case MAILDEX__QF_TAG:
    case MAILDEX__QF_FOLDER:
    case MAILDEX__QF_PATH:
        return &field_ops[field]; /* their handlers take an OR of their terms too */
    case MAILDEX__QF_ID:
        return &ids_or_ops;
    case MAILDEX__QF_THREAD:
        return &threads_or_ops;
    default:
        return NULL;
    }
}

const struct maildex__field_ops *maildex__field_ops(const struct maildex__qnode *n)
{
    const bool regex = n->flags & MAILDEX__QFLAG_REGEX;

    if (n->field == MAILDEX__QF_FROM && regex)
        return &from_regex_ops;
    if (n->field == MAILDEX__QF_SUBJECT && regex)
        return &subject_regex_ops;
    if ((size_t) n->field < G_N_ELEMENTS(field_ops) && field_ops[n->field].probe)
        return &field_ops[n->field];
    if (!regex && (n->field == MAILDEX__QF_FREE || n->field == MAILDEX__QF_BODY ||
                   n->field == MAILDEX__QF_FROM || n->field == MAILDEX__QF_TO ||
                   n->field == MAILDEX__QF_SUBJECT || n->field == MAILDEX__QF_ATTACHMENT ||
                   n->field == MAILDEX__QF_MIMETYPE))
        return &maildex__fts_field_ops;
    return &unknown_ops;
}
