/* SPDX-License-Identifier: GPL-3.0-or-later */
/* One handler per query field (planner.h's struct maildex__field_ops): how a tag:, id:,
 * thread:, folder:, path:, property:, date: or lastmod: term (and a from:/subject: regex) is probed
 * on one message, drives a stream in key order, and estimates its matches. Values name rows of small
 * tables (tags, folders, directories): they are looked up once per term through the statement cache,
 * and a regex, a wildcard, a recursive path, a long OR of one field or the sexp syntax's
 * (field (of ...)) becomes a set of ids found at plan time, probed by binary search and streamed as a
 * union of index ranges (or, when long, through an IN list). An id or property wildcard, a property
 * regex or (of ...) is read at plan time into the set of the messages it matches. The full-text fields
 * are fts.c's. Nothing here composes terms. */
#include "planner.h"

#include "maildex.h"
#include "parse-time.h"
#include "util/regexp.h"

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

/* How ids_matching compares a row's name with a text. */
enum name_match {
    NAME_REGEX,     /* the node's value is a regex */
    NAME_RECURSIVE, /* the name is the text, or below it ("" is every name) */
    NAME_PREFIX,    /* the name starts with the text */
};

static bool name_matches(const char *name, const char *text, size_t tlen, enum name_match how)
{
    if (strncmp(name, text, tlen) != 0)
        return false;
    return how == NAME_PREFIX || name[tlen] == '\0' || name[tlen] == '/' || tlen == 0;
}

/* The ids of f's rows whose name the node's regex matches, or that match base as how says. */
static struct maildex__set *ids_matching(struct maildex__planner *p, const struct id_field *f,
                                         const struct maildex__qnode *n, enum name_match how,
                                         const char *base)
{
    struct maildex__regex *re = NULL;
    const size_t blen = base ? strlen(base) : 0;
    GArray *ids = g_array_new(FALSE, FALSE, sizeof(int64_t));
    struct maildex__set *set = NULL;
    sqlite3_stmt *stmt = NULL;
    char *error = how == NAME_REGEX ? maildex__regex_compile(p->ctx, n->value, &re) : NULL;
    int rc;

    if (error)
        maildex__plan_syntax_error(p, n, error);
    else if ((rc = sqlite3_prepare_v2(p->db->sql, f->all_rows, -1, &stmt, NULL)) != SQLITE_OK)
        p->st = maildex__sql_error(p->db, rc, "cannot plan the query");
    while (stmt && p->st == MAILDEX_STATUS_OK && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        const char *name = (const char *) sqlite3_column_text(stmt, 1);
        int64_t id = sqlite3_column_int64(stmt, 0);
        bool hit = re ? maildex__regex_match(re, name) : name_matches(name, base, blen, how);
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

/* set less the tags whose messages are all hidden (`(tag *)` need not stream the spam tag to find
 * every one excluded); set itself when none is in it. */
static const struct maildex__set *unhidden(struct maildex__planner *p, const struct id_field *f,
                                           const struct maildex__set *set)
{
    GArray *keep;
    struct maildex__set *out;
    bool any = false;

    if (set == NULL || f != &tag_field || p->hidden_tags == NULL)
        return set;
    for (size_t i = 0; i < maildex__set_size(set) && !any; i++)
        any = maildex__set_has_int(p->hidden_tags, maildex__set_int(set, i));
    if (!any)
        return set;
    keep = g_array_new(FALSE, FALSE, sizeof(int64_t));
    for (size_t i = 0; i < maildex__set_size(set); i++) {
        int64_t id = maildex__set_int(set, i);
        if (!maildex__set_has_int(p->hidden_tags, id))
            g_array_append_val(keep, id);
    }
    if ((out = maildex__set_of_ints(p->ctx, (int64_t *) keep->data, keep->len)) == NULL)
        p->st = MAILDEX_STATUS_NO_MEMORY;
    g_array_free(keep, TRUE);
    return out;
}

static bool ids_drive(struct maildex__planner *p, const struct id_field *f,
                      const struct maildex__set *set, struct maildex__drive *d)
{
    set = unhidden(p, f, set);
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

/* (field (of q)): the ids the messages matching q hold in f, read once from q's own plan. */
static struct maildex__set *same_ids(struct maildex__planner *p, const struct id_field *f,
                                     const struct maildex__qnode *n)
{
    const char *stream = maildex__plan_stream(p, n->children[0]);

    if (stream == NULL)
        return NULL;
    return maildex__plan_read_keys(p, maildex__plan_fmt(p, "SELECT DISTINCT d.%s FROM (%s) s CROSS JOIN %s d "
                                                           "ON d.message = s.k",
                                                        f->probe_column, stream, f->probe_table));
}

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
    } else if (n->kind == MAILDEX__Q_SAME) {
        set = same_ids(p, f, n);
    } else if (n->flags & MAILDEX__QFLAG_REGEX) {
        set = ids_matching(p, f, n, NAME_REGEX, NULL);
    } else if (n->flags & MAILDEX__QFLAG_WILDCARD) {
        set = ids_matching(p, f, n, NAME_PREFIX, n->value);
    } else if (f == &path_field && (strcmp(n->value, "**") == 0 ||
                                    (len >= 3 && strcmp(n->value + len - 3, "/**") == 0))) {
        /* "x" followed by "/" and "**" is x and everything below it; "**" alone every directory. */
        char *base = talloc_strndup(p->ctx, n->value, len >= 3 ? len - 3 : 0);
        set = base ? ids_matching(p, f, n, NAME_RECURSIVE, base) : NULL;
    } else if (f != &tag_field && len > 1 && n->value[len - 1] == '/') {
        /* notmuch drops one trailing slash of a folder: or path: value (folder:bad/news/). */
        char *base = talloc_strndup(p->ctx, n->value, len - 1);
        id = base ? maildex__plan_lookup(p, find, base, -1) : -1;
        set = base ? maildex__set_of_ints(p->ctx, &id, id < 0 ? 0 : 1) : NULL;
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

/* The side of a date range text that does not parse, as notmuch names it: `foo` of `foo..2024`. */
static const char *bad_side(struct maildex__planner *p, const char *value)
{
    const char *dots = strstr(value, "..");
    char *begin = dots ? talloc_strndup(p->ctx, value, (size_t) (dots - value)) : NULL;
    time_t now = (time_t) p->now, t;

    if (begin == NULL)
        return value;
    if (*begin && maildex__parse_time_string(begin, &t, &now, MAILDEX__ROUND_DOWN) != 0)
        return begin;
    return strcmp(dots + 2, "!") == 0 ? begin : dots + 2;
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
                                                           bad_side(p, n->value)));
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

/* ---- terms matched at plan time: id and property wildcards, thread wildcards and regexes ------------------ */

/* A value bound to a statement: text, or (text NULL) an integer. */
struct bound {
    const char *text;
    int64_t num;
};

/* The integers of column 0 of sql with values bound to ?1, ?2 ..., as a set; NULL on error (on p). */
static struct maildex__set *read_ints(struct maildex__planner *p, const char *sql, const struct bound *v, int n)
{
    GArray *ints = g_array_new(FALSE, FALSE, sizeof(int64_t));
    struct maildex__set *set = NULL;
    sqlite3_stmt *stmt = NULL;
    int rc = sqlite3_prepare_v2(p->db->sql, sql, -1, &stmt, NULL);

    if (rc != SQLITE_OK)
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

/* column >= prefix [AND column < its end]: the rows starting with prefix, through column's index; the
 * values are bound from v[*nv] on, *nv counting them. */
static const char *prefix_range(struct maildex__planner *p, const char *column, const char *prefix,
                                struct bound *v, int *nv)
{
    const char *end = prefix_end(p, prefix);
    int k = *nv;

    v[(*nv)++] = (struct bound){prefix, 0};
    if (end == NULL)
        return maildex__plan_fmt(p, "%s >= ?%d", column, k + 1);
    v[(*nv)++] = (struct bound){end, 0};
    return maildex__plan_fmt(p, "%s >= ?%d AND %s < ?%d", column, k + 1, column, k + 2);
}

/* The messages an id: or property: node matches, read once (its key set). */
static const struct maildex__set *keys_of(struct maildex__planner *p, const struct maildex__qnode *n);

static struct maildex__set *id_prefix_keys(struct maildex__planner *p, const struct maildex__qnode *n)
{
    struct bound v[2];
    int nv = 0;
    const char *range = prefix_range(p, "message_id", n->value, v, &nv);

    return read_ints(p, maildex__plan_fmt(p, "SELECT id FROM messages WHERE %s", range), v, nv);
}

/* property:(starts-with "key=val"): the key exactly and the value's start; without '=', the key's start. */
static struct maildex__set *property_prefix_keys(struct maildex__planner *p, const struct maildex__qnode *n)
{
    const char *eq = strchr(n->value, '=');
    struct bound v[3];
    const char *range;
    int nv = 0;

    if (eq == NULL) {
        range = prefix_range(p, "key", n->value, v, &nv);
    } else {
        v[nv++] = (struct bound){talloc_strndup(p->ctx, n->value, (size_t) (eq - n->value)), 0};
        if (v[0].text == NULL) {
            p->st = MAILDEX_STATUS_NO_MEMORY;
            return NULL;
        }
        range = maildex__plan_fmt(p, "key = ?1 AND %s", prefix_range(p, "value", eq + 1, v, &nv));
    }
    return read_ints(p, maildex__plan_fmt(p, "SELECT message FROM properties WHERE %s", range), v, nv);
}

/* (property (of q)): the messages holding a key=value pair that a message matching q holds. */
static struct maildex__set *property_same_keys(struct maildex__planner *p, const struct maildex__qnode *n)
{
    const char *stream = maildex__plan_stream(p, n->children[0]);

    if (stream == NULL)
        return NULL;
    return maildex__plan_read_keys(
        p, maildex__plan_fmt(p, "SELECT d.message FROM (SELECT DISTINCT e.key, e.value FROM (%s) s "
                                "CROSS JOIN properties e ON e.message = s.k) x CROSS JOIN properties d "
                                "ON d.key = x.key AND d.value = x.value",
                             stream));
}

static const struct maildex__set *keys_of(struct maildex__planner *p, const struct maildex__qnode *n)
{
    struct maildex__set *set = g_hash_table_lookup(p->key_sets, n);
    struct bound v[1] = {{n->value, 0}};

    if (set || p->st != MAILDEX_STATUS_OK)
        return set;
    if (n->kind == MAILDEX__Q_SAME)
        set = property_same_keys(p, n);
    else if (n->field == MAILDEX__QF_ID)
        set = id_prefix_keys(p, n);
    else if (!(n->flags & MAILDEX__QFLAG_REGEX))
        set = property_prefix_keys(p, n);
    else if (regex_ok(p, n))
        set = read_ints(p, "SELECT message FROM properties WHERE regexp(?1, key || '=' || value)", v, 1);
    if (set)
        g_hash_table_insert(p->key_sets, (gpointer) n, set);
    return set;
}

static const char *keys_probe(struct maildex__planner *p, const struct maildex__qnode *n, const char *a)
{
    const struct maildex__set *set = keys_of(p, n);

    return set ? maildex__plan_fmt(p, "maildex_in(?%d, %s.id)", maildex__plan_set(p, set), a) : "0";
}

/* The keys stream from the set's own rows, in key order. */
static bool keys_drive(struct maildex__planner *p, const struct maildex__qnode *n, struct maildex__drive *d)
{
    const struct maildex__set *set = keys_of(p, n);

    if (set == NULL)
        return false;
    if (maildex__set_size(set) == 0)
        return maildex__plan_none(p, d);
    return maildex__plan_arm(p, d, MAILDEX__DRIVER_UNION,
                             maildex__plan_fmt(p, "maildex_set(?%d) s CROSS JOIN messages m ON m.id = s.value",
                                               maildex__plan_set(p, set)),
                             "s.value", "1", false);
}

static int64_t keys_estimate(struct maildex__planner *p, const struct maildex__qnode *n, int64_t cap)
{
    const struct maildex__set *set = keys_of(p, n);

    (void) cap;
    return set ? (int64_t) maildex__set_size(set) : MAILDEX__EST_MANY;
}

/* thread:(starts-with HEX) and thread:(regex ...): the threads whose 16 hex digits match, found once. */
static const struct maildex__set *threads_matching(struct maildex__planner *p, const struct maildex__qnode *n)
{
    struct maildex__set *set = g_hash_table_lookup(p->term_sets, n);
    struct bound v[2] = {{n->value, 0}, {NULL, 0}};
    char lo[17], hi[17];
    size_t len = strlen(n->value);

    if (set || p->st != MAILDEX_STATUS_OK)
        return set;
    if (n->flags & MAILDEX__QFLAG_REGEX) {
        if (regex_ok(p, n))
            set = read_ints(p, "SELECT id FROM threads WHERE regexp(?1, printf('%016x', id))", v, 1);
    } else if (len <= 16 && strspn(n->value, "0123456789abcdef") == len) {
        memcpy(lo, n->value, len);
        memcpy(hi, n->value, len);
        memset(lo + len, '0', 16 - len);
        memset(hi + len, 'f', 16 - len);
        lo[16] = hi[16] = '\0';
        v[0] = (struct bound){NULL, (int64_t) strtoull(lo, NULL, 16)};
        v[1] = (struct bound){NULL, strtoull(hi, NULL, 16) > INT64_MAX ? INT64_MAX : (int64_t) strtoull(hi, NULL, 16)};
        set = v[0].num < 0 ? maildex__set_of_ints(p->ctx, NULL, 0)
                           : read_ints(p, "SELECT id FROM threads WHERE id BETWEEN ?1 AND ?2", v, 2);
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
    const struct maildex__set *set = threads_matching(p, n);

    return set ? maildex__plan_fmt(p, "maildex_in(?%d, %s.thread)", maildex__plan_set(p, set), a) : "0";
}

static bool threads_matching_drive(struct maildex__planner *p, const struct maildex__qnode *n,
                                   struct maildex__drive *d)
{
    return maildex__plan_drive_set(p, d, threads_matching(p, n), MAILDEX__DRIVER_THREAD, "messages m", "m.id",
                                   "m.thread", false);
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
static const struct maildex__field_ops keys_ops = {keys_probe, keys_drive, keys_estimate, false};
static const struct maildex__field_ops threads_matching_ops = {threads_matching_probe, threads_matching_drive,
                                                               threads_matching_estimate, false};

const struct maildex__field_ops *maildex__same_ops(const struct maildex__qnode *n)
{
    switch (n->field) {
    case MAILDEX__QF_TAG:
    case MAILDEX__QF_FOLDER:
    case MAILDEX__QF_PATH:
        return &field_ops[n->field]; /* their handlers read the ids of (of ...) */
    case MAILDEX__QF_PROPERTY:
        return &keys_ops;
    default:
        return NULL;
    }
}

const struct maildex__field_ops *maildex__or_ops(const struct maildex__qnode *n)
{
    enum maildex__qfield field;

    if (n->kind != MAILDEX__Q_OR || n->nchildren == 0 || n->children[0]->kind != MAILDEX__Q_TERM)
        return NULL;
    field = n->children[0]->field;
    for (size_t i = 0; i < n->nchildren; i++) {
        const struct maildex__qnode *c = n->children[i];
        if (c->kind != MAILDEX__Q_TERM || c->field != field ||
            (c->flags & (MAILDEX__QFLAG_REGEX | MAILDEX__QFLAG_WILDCARD)))
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
    const bool regex = n->flags & MAILDEX__QFLAG_REGEX, wildcard = n->flags & MAILDEX__QFLAG_WILDCARD;

    if (n->field == MAILDEX__QF_FROM && regex)
        return &from_regex_ops;
    if (n->field == MAILDEX__QF_SUBJECT && regex)
        return &subject_regex_ops;
    if (n->field == MAILDEX__QF_THREAD && (regex || wildcard))
        return &threads_matching_ops;
    if ((n->field == MAILDEX__QF_ID && wildcard) || (n->field == MAILDEX__QF_PROPERTY && (regex || wildcard)))
        return &keys_ops;
    if ((size_t) n->field < G_N_ELEMENTS(field_ops) && field_ops[n->field].probe)
        return &field_ops[n->field];
    if (wildcard && !*n->value && n->field != MAILDEX__QF_FREE && n->field != MAILDEX__QF_USER)
        return &maildex__fts_any_word_ops; /* (to *): FTS5 has no empty prefix */
    if (!regex && (n->field == MAILDEX__QF_FREE || n->field == MAILDEX__QF_BODY ||
                   n->field == MAILDEX__QF_FROM || n->field == MAILDEX__QF_TO ||
                   n->field == MAILDEX__QF_SUBJECT || n->field == MAILDEX__QF_ATTACHMENT ||
                   n->field == MAILDEX__QF_MIMETYPE || n->field == MAILDEX__QF_USER))
        return &maildex__fts_field_ops;
    return &unknown_ops;
}
