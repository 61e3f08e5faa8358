/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Queries as the public API sees them (maildex.h, "queries"): create one from text, iterate its
 * messages, count them, their threads or files, collect their tags. Statements come from the plan
 * (query/plan.c); this file adds LIMIT/OFFSET and reads the rows. Threads and their summaries are
 * threads.c's. It must not build SQL from user text, print, or read config. */
#include "search.h"

#include "key-order.h"
#include "util/maildir.h"
#include "message/properties.h"
#include "query/ast.h"

#include <stdlib.h>

struct maildex_messages {
    maildex_query_t *q;
    sqlite3_stmt *stream;
    struct maildex__key_order *keys; /* stream's keys in notmuch's order, offset and limit applied */
    sqlite3_stmt *detail;   /* message_id, thread, date, excluded of one id */
    struct maildex__message_stmts stmts; /* files and tags, for every message */
    maildex_message_t *current;
};

/* A statement owned by a talloc context: finalized when the context goes. */
struct owned_stmt {
    sqlite3_stmt *stmt;
};

/* ---- statements ------------------------------------------------------------------------------------ */

static int owned_stmt_destructor(struct owned_stmt *o)
{
    sqlite3_finalize(o->stmt);
    return 0;
}

maildex_status_t maildex__search_prepare(void *ctx, maildex_db_t *db, const char *sql,
                                         const struct maildex__plan *plan, sqlite3_stmt **out)
{
    struct owned_stmt *o = talloc_zero(ctx, struct owned_stmt);
    int rc;

    *out = NULL;
    if (o == NULL || sql == NULL)
        return maildex__error(db, MAILDEX_STATUS_NO_MEMORY, "out of memory");
    talloc_set_destructor(o, owned_stmt_destructor);
    rc = sqlite3_prepare_v2(db->sql, sql, -1, &o->stmt, NULL);
    if (rc != SQLITE_OK) {
        maildex_status_t st = maildex__sql_error(db, rc, "cannot prepare the query");
        talloc_free(o);
        return st;
    }
    if (plan) {
        maildex_status_t st = maildex__plan_bind(db, plan, o->stmt);
        if (st != MAILDEX_STATUS_OK) {
            talloc_free(o);
            return st;
        }
    }
    *out = o->stmt;
    return MAILDEX_STATUS_OK;
}

maildex_status_t maildex__search_step_error(maildex_db_t *db, sqlite3_stmt *stmt)
{
    return maildex__sql_error(db, sqlite3_reset(stmt), "cannot read the query's results");
}

/* ---- the query ------------------------------------------------------------------------------------- */

/* The prefixes of the database's user-defined fields, NULL-terminated, on ctx (NULL for none). */
static const char *const *user_field_names(void *ctx, maildex_db_t *db)
{
    size_t n = 0;
    const char **names;

    while (db->user_fields && db->user_fields[n].key)
        n++;
    if (n == 0 || (names = talloc_zero_array(ctx, const char *, n + 1)) == NULL)
        return NULL;
    for (size_t i = 0; i < n; i++)
        names[i] = db->user_fields[i].key;
    return names;
}

maildex_status_t maildex_query_create(maildex_db_t *db, const char *text,
                                      const maildex_query_options_t *opts, maildex_query_t **out)
{
    static const maildex_query_options_t defaults = MAILDEX_QUERY_OPTIONS_INIT;
    maildex_query_t *q = talloc_zero(db, maildex_query_t);
    struct maildex__query_options popts = {0};
    struct maildex__plan_options plan_opts = {0};
    struct maildex__qnode *root = NULL;
    char *error = NULL;
    maildex_status_t st = MAILDEX_STATUS_OK;
    int rc;

    *out = NULL;
    if (opts == NULL)
        opts = &defaults;
    if (q == NULL || text == NULL)
        return maildex__error(db, text ? MAILDEX_STATUS_NO_MEMORY : MAILDEX_STATUS_INVALID_ARGUMENT,
                              text ? "out of memory" : "no query text");
    q->db = db;
    q->exclude = (enum maildex__exclude_mode) opts->exclude;
    q->oldest_first = opts->sort == MAILDEX_SORT_OLDEST_FIRST;
    q->offset = opts->offset;
    q->limit = opts->limit;
    q->everything = strcmp(text, "*") == 0;
    popts.lookup = opts->lookup;
    popts.squery = opts->squery;
    popts.user_fields = user_field_names(q, db);
    popts.lookup_data = opts->lookup_data;
    if (opts->syntax == MAILDEX_QUERY_SEXP)
        rc = maildex__query_parse_sexp(q, text, &popts, &root, &error);
    else
        rc = maildex__query_parse(q, text, &popts, &root, &error);
    if (rc == MAILDEX__QUERY_NOMEM) {
        st = maildex__error(db, MAILDEX_STATUS_NO_MEMORY, "out of memory");
        goto done;
    }
    if (rc != MAILDEX__QUERY_OK) {
        st = maildex__error(db, MAILDEX_STATUS_QUERY_SYNTAX, "%s", error ? error : "bad query");
        goto done;
    }
    plan_opts.oldest_first = q->oldest_first;
    plan_opts.exclude = q->exclude;
    plan_opts.exclude_tags = opts->exclude_tags;
    plan_opts.now = opts->now;
    plan_opts.bare_errors = opts->syntax == MAILDEX_QUERY_SEXP;
    plan_opts.every_match = opts->limit < 0;
    st = maildex__plan_build(q, db, root, &plan_opts, &q->plan);
done:
    talloc_free(root);
    if (st != MAILDEX_STATUS_OK)
        talloc_free(q);
    else
        *out = q;
    return st;
}

void maildex_query_destroy(maildex_query_t *q)
{
    talloc_free(q);
}

/* ---- messages -------------------------------------------------------------------------------------- */

static maildex_status_t open_messages(maildex_query_t *q, maildex_messages_t **out)
{
    maildex_messages_t *it = talloc_zero(q, maildex_messages_t);
    const struct maildex__plan *plan = q->plan;
    maildex_status_t st;
    char *sql;

    *out = NULL;
    if (it == NULL)
        return maildex__error(q->db, MAILDEX_STATUS_NO_MEMORY, "out of memory");
    it->q = q;
    it->stmts.owner = it;
    sql = talloc_asprintf(it, "%s%s LIMIT ?1 OFFSET ?2", plan->stream, plan->order);
    st = maildex__search_prepare(it, q->db, sql, plan, &it->stream);
    if (st == MAILDEX_STATUS_OK && (it->keys = maildex__key_order_new(it, it->stream, q->oldest_first)) == NULL)
        st = maildex__error(q->db, MAILDEX_STATUS_NO_MEMORY, "out of memory");
    if (st == MAILDEX_STATUS_OK)
        maildex__key_order_limit(it->keys, 1, 2, q->offset, q->limit);
    if (st == MAILDEX_STATUS_OK)
        st = maildex__search_prepare(it, q->db,
                     talloc_asprintf(it, "SELECT m.message_id, m.thread, m.date, %s FROM messages m "
                                         "WHERE m.id = ?1", plan->excluded),
                     plan, &it->detail);
    if (st != MAILDEX_STATUS_OK) {
        talloc_free(it);
        return st;
    }
    *out = it;
    return MAILDEX_STATUS_OK;
}

maildex_status_t maildex_query_search_messages(maildex_query_t *q, maildex_messages_t **out)
{
    return open_messages(q, out);
}

static maildex_status_t load_message(maildex_messages_t *it, int64_t key, maildex_message_t **out)
{
    maildex_message_t *m = talloc_zero(it, maildex_message_t);
    int rc;

    *out = NULL;
    if (m == NULL)
        return maildex__error(it->q->db, MAILDEX_STATUS_NO_MEMORY, "out of memory");
    sqlite3_reset(it->detail);
    sqlite3_bind_int64(it->detail, 1, key);
    rc = sqlite3_step(it->detail);
    if (rc != SQLITE_ROW) {
        talloc_free(m);
        return maildex__search_step_error(it->q->db, it->detail);
    }
    m->q = it->q;
    m->stmts = &it->stmts;
    m->key = key;
    m->message_id = talloc_strdup(m, (const char *) sqlite3_column_text(it->detail, 0));
    m->thread = (uint64_t) sqlite3_column_int64(it->detail, 1);
    m->date = sqlite3_column_int64(it->detail, 2);
    m->excluded = sqlite3_column_int(it->detail, 3) != 0 && it->q->exclude == MAILDEX__EXCLUDE_FLAG;
    m->matched = true;
    sqlite3_reset(it->detail);
    *out = m;
    return MAILDEX_STATUS_OK;
}

maildex_status_t maildex_messages_next(maildex_messages_t *it, maildex_message_t **out)
{
    int64_t key;
    bool got;
    maildex_status_t st;

    *out = NULL;
    talloc_free(it->current);
    it->current = NULL;
    st = maildex__key_order_next(it->q->db, it->keys, &key, &got);
    if (st != MAILDEX_STATUS_OK || !got)
        return st;
    st = load_message(it, key, &it->current);
    *out = it->current;
    return st;
}

void maildex_messages_destroy(maildex_messages_t *it)
{
    talloc_free(it);
}

const char *maildex_message_id(const maildex_message_t *m) { return m->message_id; }
uint64_t maildex_message_thread(const maildex_message_t *m) { return m->thread; }
int64_t maildex_message_date(const maildex_message_t *m) { return m->date; }
bool maildex_message_matched(const maildex_message_t *m) { return m->matched; }
bool maildex_message_excluded(const maildex_message_t *m) { return m->excluded; }

maildex_message_t *const *maildex_message_replies(const maildex_message_t *m)
{
    static maildex_message_t *const none[] = {NULL};

    return m->replies ? m->replies : none;
}

/* notmuch's order, its file terms': the directory's document, then the name. maildex's directory rows
 * are made in the order notmuch makes its directory documents (lib/index/index.c); notmuch compares their
 * ids as decimal strings and counts messages in them too, which maildex does not copy (ids 9 and 10
 * are in the other order there). The first file is the one show reads and reindex takes the headers
 * from (FILE_FIRST_OF_MESSAGE, the same order). */
/* Runs the statement id with ?1 = m's key and collects column 0, or columns 0 and 1 joined as a
 * path under the mail root, into a list on m. A query's or a thread's messages share statements
 * prepared from id's text on their owner (*stmt, prepared the first time); a found message (no
 * holder) takes the handle's cached one, so that finding one message after another prepares
 * nothing. */
static maildex_status_t string_list(maildex_message_t *m, sqlite3_stmt **stmt, maildex__stmt_id_t id,
                                    bool paths, const char ***out)
{
    maildex_db_t *db = m->q->db;
    void *local = talloc_new(m);
    const char **list = talloc_array(local, const char *, 1);
    sqlite3_stmt *run = stmt ? *stmt : NULL;
    size_t n = 0;
    maildex_status_t st = MAILDEX_STATUS_OK;
    int rc;

    *out = NULL;
    if (stmt == NULL)
        st = maildex__stmt(db, id, &run);
    else if (run == NULL && (st = maildex__search_prepare(m->stmts->owner, db, maildex__stmt_sql(id), NULL,
                                                          stmt)) == MAILDEX_STATUS_OK)
        run = *stmt;
    if (st != MAILDEX_STATUS_OK)
        goto done;
    sqlite3_reset(run);
    sqlite3_bind_int64(run, 1, m->key);
    while ((rc = sqlite3_step(run)) == SQLITE_ROW) {
        const char *a = (const char *) sqlite3_column_text(run, 0);
        const char **grown = talloc_realloc(local, list, const char *, n + 2);
        if (grown == NULL) {
            st = maildex__error(db, MAILDEX_STATUS_NO_MEMORY, "out of memory");
            goto done;
        }
        list = grown;
        if (paths) {
            const char *name = (const char *) sqlite3_column_text(run, 1);
            list[n++] = maildex__path_join(m, maildex_db_mail_root(db), a ? a : "", name);
        } else {
            list[n++] = talloc_strdup(m, a ? a : "");
        }
    }
    if (rc != SQLITE_DONE) {
        st = maildex__search_step_error(db, run);
        goto done;
    }
    list[n] = NULL;
    *out = talloc_steal(m, list);
done:
    if (run)
        sqlite3_reset(run);
    talloc_free(local);
    return st;
}

maildex_status_t maildex_message_files(maildex_message_t *m, const char *const **out)
{
    maildex_status_t st = MAILDEX_STATUS_OK;

    if (m->files == NULL)
        st = string_list(m, m->stmts ? &m->stmts->files : NULL, MAILDEX__STMT_MESSAGE_FILES, true, &m->files);
    *out = m->files;
    return st;
}

maildex_status_t maildex_message_tags(maildex_message_t *m, const char *const **out)
{
    maildex_status_t st = MAILDEX_STATUS_OK;

    if (m->tags == NULL)
        st = string_list(m, m->stmts ? &m->stmts->tags : NULL, MAILDEX__STMT_MESSAGE_TAGS, false, &m->tags);
    *out = m->tags;
    return st;
}

maildex_status_t maildex_message_properties(maildex_message_t *m, const maildex_pair_t **out)
{
    size_t n;
    maildex_status_t st = MAILDEX_STATUS_OK;

    if (m->properties == NULL)
        st = maildex__properties_read(m->q->db, m, m->key, &m->properties, &n);
    *out = m->properties;
    return st;
}

/* ---- counts and tags ------------------------------------------------------------------------------- */

/* Runs head + "(" + the stream + ")" + tail (or, given, the plan's stored count) and reads one
 * integer. */
static maildex_status_t count_sql(maildex_query_t *q, const char *head, const char *tail,
                                  const char *stored, uint64_t *count)
{
    void *local = talloc_new(q);
    sqlite3_stmt *stmt;
    maildex_status_t st = maildex__search_prepare(
        local, q->db, stored ? stored : talloc_asprintf(local, "%s(%s)%s", head, q->plan->stream, tail),
        q->plan, &stmt);
    int rc;

    *count = 0;
    if (st == MAILDEX_STATUS_OK) {
        rc = sqlite3_step(stmt);
        if (rc == SQLITE_ROW)
            *count = (uint64_t) sqlite3_column_int64(stmt, 0);
        else
            st = maildex__search_step_error(q->db, stmt);
    }
    talloc_free(local);
    return st;
}

maildex_status_t maildex__query_keys(maildex_query_t *q, GArray *keys)
{
    void *local = talloc_new(q);
    sqlite3_stmt *stmt;
    maildex_status_t st = maildex__search_prepare(local, q->db, q->plan->stream, q->plan, &stmt);
    int rc;

    while (st == MAILDEX_STATUS_OK && (rc = sqlite3_step(stmt)) != SQLITE_DONE) {
        if (rc != SQLITE_ROW) {
            st = maildex__search_step_error(q->db, stmt);
            break;
        }
        int64_t key = sqlite3_column_int64(stmt, 0);
        g_array_append_val(keys, key);
    }
    talloc_free(local);
    return st;
}

maildex_db_t *maildex__query_db(maildex_query_t *q)
{
    return q->db;
}

maildex_status_t maildex_query_count_messages(maildex_query_t *q, uint64_t *count)
{
    return count_sql(q, "SELECT count(*) FROM ", "", q->plan->count, count);
}

maildex_status_t maildex_query_count_threads(maildex_query_t *q, uint64_t *count)
{
    return count_sql(q, "SELECT count(DISTINCT c.thread) FROM ", " s JOIN messages c ON c.id = s.k",
                     NULL, count);
}

maildex_status_t maildex_query_count_files(maildex_query_t *q, uint64_t *count)
{
    return count_sql(q, "SELECT count(*) FROM ", " s JOIN files c ON c.message = s.k", NULL, count);
}

/* The tags of the matches: every match's tags, read once per match (as notmuch collects them), and
 * no further once every tag in use has been seen. */
maildex_status_t maildex_query_tags(maildex_query_t *q, const char *const **out)
{
    void *local = talloc_new(q);
    const struct maildex__plan *plan = q->plan;
    /* notmuch answers `*` with every tag in the database, excluded messages' too (notmuch-hello's
     * "All tags"), and only `*`. */
    char *sql = q->everything ? talloc_strdup(local, "SELECT name FROM tags WHERE messages > 0")
                              : talloc_asprintf(local,
                                                "SELECT DISTINCT t.name FROM (%s) s CROSS JOIN message_tags "
                                                "mt ON mt.message = s.k CROSS JOIN tags t ON t.id = mt.tag",
                                                plan->stream);
    GPtrArray *names = g_ptr_array_new();
    int64_t in_use = 0;
    sqlite3_stmt *stmt;
    maildex_status_t st = MAILDEX_STATUS_OK;
    int rc = SQLITE_DONE;

    *out = NULL;
    if (q->tags) {
        *out = q->tags;
        talloc_free(local);
        g_ptr_array_free(names, TRUE);
        return MAILDEX_STATUS_OK;
    }
    st = maildex__search_prepare(local, q->db, "SELECT count(*) FROM tags WHERE messages > 0", NULL, &stmt);
    if (st == MAILDEX_STATUS_OK && sqlite3_step(stmt) == SQLITE_ROW)
        in_use = sqlite3_column_int64(stmt, 0);
    if (st == MAILDEX_STATUS_OK)
        st = maildex__search_prepare(local, q->db, sql, q->everything ? NULL : plan, &stmt);
    while (st == MAILDEX_STATUS_OK && (int64_t) names->len < in_use &&
           (rc = sqlite3_step(stmt)) == SQLITE_ROW)
        g_ptr_array_add(names, talloc_strdup(local, (const char *) sqlite3_column_text(stmt, 0)));
    if (st == MAILDEX_STATUS_OK && rc != SQLITE_DONE && rc != SQLITE_ROW)
        st = maildex__search_step_error(q->db, stmt);
    if (st == MAILDEX_STATUS_OK) {
        g_ptr_array_sort(names, maildex__strptr_cmp);
        g_ptr_array_add(names, NULL);
        q->tags = talloc_array(q, const char *, names->len);
        for (guint i = 0; q->tags && i < names->len; i++)
            q->tags[i] = names->pdata[i] ? talloc_strdup(q->tags, names->pdata[i]) : NULL;
        if (q->tags == NULL)
            st = maildex__error(q->db, MAILDEX_STATUS_NO_MEMORY, "out of memory");
        *out = q->tags;
    }
    g_ptr_array_free(names, TRUE);
    talloc_free(local);
    return st;
}

