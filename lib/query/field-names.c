/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The handlers of tag: (and is:), folder: and path: (fields.h): fields whose values name rows of a
 * small table (tags, folders, directories). A value is looked up once per term through the statement
 * cache; a regex, a prefix, a recursive path, an OR of the field's terms or the sexp syntax's
 * (field (of ...)) becomes the set of ids it names, found at plan time, probed by binary search and
 * streamed as a union of index ranges (or, when long, through a join with the set's rows). Estimates
 * are stored sizes (tags.messages) or counts that stop at a cap. Nothing here composes terms or knows
 * another field; the subquery of (of ...) is planned through the planner's callback (p->stream). */
#include "planner.h"
#include "fields.h"

#include "util/regexp.h"

#include <string.h>

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
        set = maildex__plan_read_ints(p, "SELECT message FROM message_tags WHERE tag = ?1",
                                      &(struct maildex__bound){NULL, id}, 1);
        if (set == NULL)
            return "0";
        g_hash_table_insert(p->key_sets, (gpointer) n, (gpointer) set);
    }
    return maildex__plan_in_keys(p, set, a);
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
    const char *stream = p->stream(p, n->children[0]);

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

/* A field's handlers: of its terms and ORs of them (cheap: its estimate reads stored sizes), and of
 * (field (of ...)), whose estimate reads a subquery's matches. */
#define ID_FIELD_HANDLERS(name, field, cheap)                                                           \
    static const char *name##_probe(struct maildex__planner *p, const struct maildex__qnode *n,         \
                                    const char *a)                                                      \
    {                                                                                                   \
        return ids_probe(p, &field, n, term_ids(p, &field, n), a);                                      \
    }                                                                                                   \
    static bool name##_drive(struct maildex__planner *p, const struct maildex__qnode *n,                \
                             struct maildex__drive *d)                                                  \
    {                                                                                                   \
        return ids_drive(p, &field, term_ids(p, &field, n), d);                                         \
    }                                                                                                   \
    static int64_t name##_estimate(struct maildex__planner *p, const struct maildex__qnode *n,          \
                                   int64_t cap)                                                         \
    {                                                                                                   \
        return ids_estimate(p, &field, term_ids(p, &field, n), cap);                                    \
    }                                                                                                   \
    const struct maildex__field_ops maildex__##name##_ops = {                                           \
        .probe = name##_probe, .drive = name##_drive, .estimate = name##_estimate,                      \
        .cheap_estimate = cheap};                                                                       \
    const struct maildex__field_ops maildex__##name##_same_ops = {                                      \
        .probe = name##_probe, .drive = name##_drive, .estimate = name##_estimate}

ID_FIELD_HANDLERS(tag, tag_field, true);
ID_FIELD_HANDLERS(folder, folder_field, false);
ID_FIELD_HANDLERS(path, path_field, false);
