/* Queries as the public API sees them (maildex.h, "queries"): create from text, iterate messages or
 * threads, count, collect tags, suggest words. Statements come from the plan (query-plan.c); this
 * file adds LIMIT/OFFSET, groups the message stream into threads as it goes, and builds notmuch's
 * thread summary (lib/thread.cc, notmuch-search.c of notmuch 0.37). It must not build SQL from user
 * text, print, or read config. */
#include "maildex-private.h"
#include "fts-tokenizer.h"
#include "query-plan.h"
#include "query.h"

#include <glib.h>
#include <stdlib.h>
#include <string.h>

struct maildex_query {
    maildex_db_t *db;
    struct maildex__plan *plan;
    enum maildex__exclude_mode exclude;
    bool oldest_first;
    uint64_t offset;
    int64_t limit;
    const char **tags; /* maildex_query_tags' result, cached */
};

/* A statement owned by a talloc context: finalized when the context goes. */
struct owned_stmt {
    sqlite3_stmt *stmt;
};

struct maildex_message {
    maildex_query_t *q;
    int64_t key;
    const char *message_id;
    uint64_t thread;
    int64_t date;
    bool matched, excluded;
    const char **files, **tags;
};

struct maildex_messages {
    maildex_query_t *q;
    sqlite3_stmt *stream;
    sqlite3_stmt *detail;   /* message_id, thread, date, excluded of one id */
    maildex_message_t *current;
};

struct maildex_thread {
    uint64_t id;
    int64_t timestamp, oldest, newest;
    int matched, total, files;
    const char *authors, *subject, *matched_query, *unmatched_query;
    const char **tags;
};

struct maildex_threads {
    maildex_query_t *q;
    maildex_messages_t *messages; /* the unlimited message stream */
    sqlite3_stmt *members;
    GHashTable *seen;
    uint64_t skipped;
    int64_t returned;
    maildex_thread_t *current;
};

/* ---- statements ------------------------------------------------------------------------------------ */

static int owned_stmt_destructor(struct owned_stmt *o)
{
    sqlite3_finalize(o->stmt);
    return 0;
}

/* Prepares sql as a child of ctx, with the plan's values bound when plan is not NULL. */
static maildex_status_t prepare(void *ctx, maildex_db_t *db, const char *sql,
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

static maildex_status_t step_error(maildex_db_t *db, sqlite3_stmt *stmt, int rc)
{
    (void) rc;
    return maildex__sql_error(db, sqlite3_reset(stmt), "cannot read the query's results");
}

/* ---- the query ------------------------------------------------------------------------------------- */

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
    popts.lookup = opts->lookup;
    popts.lookup_data = opts->lookup_data;
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

static maildex_status_t open_messages(maildex_query_t *q, bool limited, maildex_messages_t **out)
{
    maildex_messages_t *it = talloc_zero(q, maildex_messages_t);
    const struct maildex__plan *plan = q->plan;
    maildex_status_t st;
    char *sql;

    *out = NULL;
    if (it == NULL)
        return maildex__error(q->db, MAILDEX_STATUS_NO_MEMORY, "out of memory");
    it->q = q;
    sql = talloc_asprintf(it, "%s%s%s", plan->stream, plan->order,
                          limited ? " LIMIT ?1 OFFSET ?2" : "");
    st = prepare(it, q->db, sql, plan, &it->stream);
    if (st == MAILDEX_STATUS_OK && limited) {
        sqlite3_bind_int64(it->stream, 1, q->limit < 0 ? -1 : q->limit);
        sqlite3_bind_int64(it->stream, 2, (int64_t) q->offset);
    }
    if (st == MAILDEX_STATUS_OK)
        st = prepare(it, q->db,
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
    return open_messages(q, true, out);
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
        return step_error(it->q->db, it->detail, rc);
    }
    m->q = it->q;
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
    int rc;

    *out = NULL;
    talloc_free(it->current);
    it->current = NULL;
    rc = sqlite3_step(it->stream);
    if (rc == SQLITE_DONE)
        return MAILDEX_STATUS_OK;
    if (rc != SQLITE_ROW)
        return step_error(it->q->db, it->stream, rc);
    maildex_status_t st = load_message(it, sqlite3_column_int64(it->stream, 0), &it->current);
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

/* Runs sql (?1 = id) and collects column 0, or columns 0 and 1 joined as a path under the mail root. */
static maildex_status_t string_list(maildex_db_t *db, void *ctx, const char *sql, int64_t id,
                                    bool paths, const char ***out)
{
    void *local = talloc_new(ctx);
    const char **list = talloc_array(local, const char *, 1);
    size_t n = 0;
    sqlite3_stmt *stmt;
    maildex_status_t st = prepare(local, db, sql, NULL, &stmt);
    int rc;

    *out = NULL;
    if (st != MAILDEX_STATUS_OK)
        goto done;
    sqlite3_bind_int64(stmt, 1, id);
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        const char *a = (const char *) sqlite3_column_text(stmt, 0);
        const char **grown = talloc_realloc(local, list, const char *, n + 2);
        if (grown == NULL) {
            st = maildex__error(db, MAILDEX_STATUS_NO_MEMORY, "out of memory");
            goto done;
        }
        list = grown;
        if (paths) {
            const char *name = (const char *) sqlite3_column_text(stmt, 1);
            list[n++] = a && *a ? talloc_asprintf(ctx, "%s/%s/%s", maildex_db_mail_root(db), a, name)
                                : talloc_asprintf(ctx, "%s/%s", maildex_db_mail_root(db), name);
        } else {
            list[n++] = talloc_strdup(ctx, a ? a : "");
        }
    }
    if (rc != SQLITE_DONE) {
        st = step_error(db, stmt, rc);
        goto done;
    }
    list[n] = NULL;
    *out = talloc_steal(ctx, list);
done:
    talloc_free(local);
    return st;
}

static const char files_sql[] = "SELECT d.path, f.name FROM files f JOIN directories d ON d.id = "
                                "f.directory WHERE f.message = ?1 ORDER BY f.id";
static const char tags_sql[] = "SELECT t.name FROM message_tags mt JOIN tags t ON t.id = mt.tag "
                               "WHERE mt.message = ?1 ORDER BY t.name";

maildex_status_t maildex_message_files(maildex_message_t *m, const char *const **out)
{
    maildex_status_t st = MAILDEX_STATUS_OK;

    if (m->files == NULL)
        st = string_list(m->q->db, m, files_sql, m->key, true, &m->files);
    *out = m->files;
    return st;
}

maildex_status_t maildex_message_tags(maildex_message_t *m, const char *const **out)
{
    maildex_status_t st = MAILDEX_STATUS_OK;

    if (m->tags == NULL)
        st = string_list(m->q->db, m, tags_sql, m->key, false, &m->tags);
    *out = m->tags;
    return st;
}

/* ---- threads --------------------------------------------------------------------------------------- */

static int threads_destructor(maildex_threads_t *it)
{
    if (it->seen)
        g_hash_table_destroy(it->seen);
    return 0;
}

maildex_status_t maildex_query_search_threads(maildex_query_t *q, maildex_threads_t **out)
{
    maildex_threads_t *it = talloc_zero(q, maildex_threads_t);
    maildex_status_t st;

    *out = NULL;
    if (it == NULL)
        return maildex__error(q->db, MAILDEX_STATUS_NO_MEMORY, "out of memory");
    it->q = q;
    it->seen = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
    talloc_set_destructor(it, threads_destructor);
    st = open_messages(q, false, &it->messages);
    if (st == MAILDEX_STATUS_OK) {
        talloc_steal(it, it->messages);
        st = prepare(it, q->db,
                     talloc_asprintf(it, "SELECT m.id, m.message_id, m.date, m.author, m.subject, "
                                         "%s, %s, (SELECT count(*) FROM files WHERE message = m.id) "
                                         "FROM messages m WHERE m.thread = ?1 ORDER BY m.id",
                                     q->plan->match, q->plan->excluded),
                     q->plan, &it->members);
    }
    if (st != MAILDEX_STATUS_OK) {
        talloc_free(it);
        return st;
    }
    *out = it;
    return MAILDEX_STATUS_OK;
}

/* An ordered list of unique strings (notmuch's GPtrArray + hash table pairs). */
struct uniq {
    GHashTable *set;
    GPtrArray *order;
};

static void uniq_init(struct uniq *u)
{
    u->set = g_hash_table_new(g_str_hash, g_str_equal);
    u->order = g_ptr_array_new_with_free_func(g_free);
}

static void uniq_add(struct uniq *u, const char *s)
{
    if (s == NULL || g_hash_table_contains(u->set, s))
        return;
    char *copy = g_strdup(s);
    g_ptr_array_add(u->order, copy);
    g_hash_table_add(u->set, copy);
}

static void uniq_free(struct uniq *u)
{
    g_hash_table_destroy(u->set);
    g_ptr_array_free(u->order, TRUE);
}

/* notmuch's make_boolean_term: quote when empty or holding a space, control byte, '"', '(' or ')',
 * or a byte >= 0x80; quotes inside are doubled. */
static char *boolean_term(void *ctx, const char *prefix, const char *term)
{
    bool quote = *term == '\0';
    char *out;

    for (const unsigned char *s = (const unsigned char *) term; *s && !quote; s++)
        quote = *s <= ' ' || *s == ')' || *s == '"' || *s == '(' || *s >= 0x80;
    if (!quote)
        return talloc_asprintf(ctx, "%s:%s", prefix, term);
    out = talloc_asprintf(ctx, "%s:\"", prefix);
    for (const char *s = term; *s && out; s++)
        out = *s == '"' ? talloc_strdup_append(out, "\"\"") : talloc_asprintf_append(out, "%c", *s);
    return out ? talloc_strdup_append(out, "\"") : NULL;
}

static const char *clean_subject(void *ctx, const char *subject)
{
    static const char *const prefixes[] = {"Re: ", "Aw: ", "Vs: ", "Sv: "};

    for (size_t i = 0; i < G_N_ELEMENTS(prefixes); i++)
        if (g_ascii_strncasecmp(subject, prefixes[i], 4) == 0)
            return talloc_strdup(ctx, subject + 4);
    return talloc_strdup(ctx, subject);
}

static char *join_uniq(void *ctx, struct uniq *u, size_t *count)
{
    char *s = NULL;

    *count = u->order->len;
    for (guint i = 0; i < u->order->len; i++) {
        const char *a = g_ptr_array_index(u->order, i);
        s = s ? talloc_asprintf_append(s, ", %s", a) : talloc_strdup(ctx, a);
    }
    return s;
}

/* The summary of thread id, after notmuch's _notmuch_thread_create: members oldest first, matched
 * ones counted and their authors first, the subject and timestamp from the newest (oldest) match. */
struct summary_state {
    struct uniq authors, matched_authors, tags;
    char *matched_q, *unmatched_q;
    bool any_match;
};

static maildex_status_t add_member(maildex_threads_t *it, maildex_thread_t *t, struct summary_state *s)
{
    sqlite3_stmt *m = it->members;
    const enum maildex__exclude_mode mode = it->q->exclude;
    const int64_t key = sqlite3_column_int64(m, 0), date = sqlite3_column_int64(m, 2);
    const char *mid = (const char *) sqlite3_column_text(m, 1);
    const char *author = (const char *) sqlite3_column_text(m, 3);
    const bool excluded = sqlite3_column_int(m, 6) != 0;
    const bool hide = excluded && (mode == MAILDEX__EXCLUDE_TRUE || mode == MAILDEX__EXCLUDE_ALL);
    const bool match = sqlite3_column_int(m, 5) != 0 && !hide;
    const char **tags;
    maildex_status_t st;

    if (author && *author == '\0')
        author = NULL;
    if (excluded && mode == MAILDEX__EXCLUDE_ALL)
        return MAILDEX_STATUS_OK;
    t->total++;
    t->files += sqlite3_column_int(m, 7);
    uniq_add(&s->authors, author);
    st = string_list(it->q->db, t, tags_sql, key, false, &tags);
    if (st != MAILDEX_STATUS_OK)
        return st;
    for (const char **tag = tags; *tag; tag++)
        uniq_add(&s->tags, *tag);
    char **q = match ? &s->matched_q : &s->unmatched_q;
    char *term = boolean_term(t, "id", mid ? mid : "");
    *q = *q ? talloc_asprintf_append(*q, " %s", term) : talloc_strdup(t, term);
    if (!match)
        return MAILDEX_STATUS_OK;
    /* notmuch compares with the count of non-excluded matches, so excluded matches before the
     * first counted one keep moving the timestamps. */
    if (date < t->oldest || t->matched == 0) {
        t->oldest = date;
        if (it->q->oldest_first)
            t->subject = clean_subject(t, (const char *) sqlite3_column_text(m, 4));
    }
    if (date > t->newest || t->matched == 0) {
        t->newest = date;
        if (!it->q->oldest_first)
            t->subject = clean_subject(t, (const char *) sqlite3_column_text(m, 4));
    }
    if (!excluded)
        t->matched++;
    uniq_add(&s->matched_authors, author);
    return MAILDEX_STATUS_OK;
}

static const char *authors_string(void *ctx, struct summary_state *s)
{
    char *out = NULL;
    size_t n;
    bool first = true;

    out = join_uniq(ctx, &s->matched_authors, &n);
    for (guint i = 0; i < s->authors.order->len; i++) {
        const char *a = g_ptr_array_index(s->authors.order, i);
        if (g_hash_table_contains(s->matched_authors.set, a))
            continue;
        out = talloc_asprintf(ctx, "%s%s%s", out ? out : "", first ? "| " : ", ", a);
        first = false;
    }
    return out ? out : "";
}

/* Bytewise, as notmuch sorts thread tags (strcmp). */
static gint strptr_cmp(gconstpointer a, gconstpointer b)
{
    return strcmp(*(const char *const *) a, *(const char *const *) b);
}

static maildex_status_t build_thread(maildex_threads_t *it, uint64_t id, maildex_thread_t **out)
{
    maildex_thread_t *t = talloc_zero(it, maildex_thread_t);
    struct summary_state s = {0};
    maildex_status_t st = MAILDEX_STATUS_OK;
    int rc;

    *out = NULL;
    if (t == NULL)
        return maildex__error(it->q->db, MAILDEX_STATUS_NO_MEMORY, "out of memory");
    t->id = id;
    t->subject = "";
    uniq_init(&s.authors);
    uniq_init(&s.matched_authors);
    uniq_init(&s.tags);
    sqlite3_reset(it->members);
    sqlite3_bind_int64(it->members, 1, (int64_t) id);
    while (st == MAILDEX_STATUS_OK && (rc = sqlite3_step(it->members)) == SQLITE_ROW)
        st = add_member(it, t, &s);
    if (st == MAILDEX_STATUS_OK && rc != SQLITE_DONE)
        st = step_error(it->q->db, it->members, rc);
    sqlite3_reset(it->members);
    if (st == MAILDEX_STATUS_OK) {
        t->timestamp = it->q->oldest_first ? t->oldest : t->newest;
        t->authors = authors_string(t, &s);
        t->matched_query = s.matched_q;
        t->unmatched_query = s.unmatched_q;
        g_ptr_array_sort(s.tags.order, strptr_cmp);
        t->tags = talloc_array(t, const char *, s.tags.order->len + 1);
        for (guint i = 0; i < s.tags.order->len; i++)
            t->tags[i] = talloc_strdup(t, g_ptr_array_index(s.tags.order, i));
        t->tags[s.tags.order->len] = NULL;
    }
    uniq_free(&s.authors);
    uniq_free(&s.matched_authors);
    uniq_free(&s.tags);
    if (st != MAILDEX_STATUS_OK)
        talloc_free(t);
    else
        *out = t;
    return st;
}

maildex_status_t maildex_threads_next(maildex_threads_t *it, maildex_thread_t **out)
{
    maildex_message_t *m;
    maildex_status_t st;

    *out = NULL;
    talloc_free(it->current);
    it->current = NULL;
    if (it->q->limit >= 0 && it->returned >= it->q->limit)
        return MAILDEX_STATUS_OK;
    for (;;) {
        st = maildex_messages_next(it->messages, &m);
        if (st != MAILDEX_STATUS_OK || m == NULL)
            return st;
        int64_t thread = (int64_t) m->thread;
        if (g_hash_table_contains(it->seen, &thread))
            continue;
        g_hash_table_add(it->seen, g_memdup2(&thread, sizeof thread));
        if (it->skipped < it->q->offset) {
            it->skipped++;
            continue;
        }
        st = build_thread(it, m->thread, &it->current);
        if (st == MAILDEX_STATUS_OK)
            it->returned++;
        *out = it->current;
        return st;
    }
}

void maildex_threads_destroy(maildex_threads_t *it)
{
    talloc_free(it);
}

uint64_t maildex_thread_id(const maildex_thread_t *t) { return t->id; }
int64_t maildex_thread_timestamp(const maildex_thread_t *t) { return t->timestamp; }
int maildex_thread_matched(const maildex_thread_t *t) { return t->matched; }
int maildex_thread_total(const maildex_thread_t *t) { return t->total; }
int maildex_thread_files(const maildex_thread_t *t) { return t->files; }
const char *maildex_thread_authors(const maildex_thread_t *t) { return t->authors; }
const char *maildex_thread_subject(const maildex_thread_t *t) { return t->subject; }
const char *const *maildex_thread_tags(const maildex_thread_t *t) { return t->tags; }
const char *maildex_thread_matched_query(const maildex_thread_t *t) { return t->matched_query; }
const char *maildex_thread_unmatched_query(const maildex_thread_t *t) { return t->unmatched_query; }

/* ---- counts and tags ------------------------------------------------------------------------------- */

/* Runs head + "(" + the stream + ")" + tail and reads one integer. */
static maildex_status_t count_sql(maildex_query_t *q, const char *head, const char *tail,
                                  uint64_t *count)
{
    void *local = talloc_new(q);
    sqlite3_stmt *stmt;
    maildex_status_t st = prepare(local, q->db,
                                  talloc_asprintf(local, "%s(%s)%s", head, q->plan->stream, tail),
                                  q->plan, &stmt);
    int rc;

    *count = 0;
    if (st == MAILDEX_STATUS_OK) {
        rc = sqlite3_step(stmt);
        if (rc == SQLITE_ROW)
            *count = (uint64_t) sqlite3_column_int64(stmt, 0);
        else
            st = step_error(q->db, stmt, rc);
    }
    talloc_free(local);
    return st;
}

maildex_status_t maildex_query_count_messages(maildex_query_t *q, uint64_t *count)
{
    return count_sql(q, "SELECT count(*) FROM ", "", count);
}

maildex_status_t maildex_query_count_threads(maildex_query_t *q, uint64_t *count)
{
    return count_sql(q, "SELECT count(DISTINCT c.thread) FROM ", " s JOIN messages c ON c.id = s.k",
                     count);
}

maildex_status_t maildex_query_count_files(maildex_query_t *q, uint64_t *count)
{
    return count_sql(q, "SELECT count(*) FROM ", " s JOIN files c ON c.message = s.k", count);
}

maildex_status_t maildex_query_tags(maildex_query_t *q, const char *const **out)
{
    void *local = talloc_new(q);
    const struct maildex__plan *plan = q->plan;
    const bool hide = q->exclude == MAILDEX__EXCLUDE_TRUE || q->exclude == MAILDEX__EXCLUDE_ALL;
    /* Per tag, the first message carrying it that matches: stops early for common tags. */
    char *sql = talloc_asprintf(local,
                                "SELECT t.name FROM tags t WHERE EXISTS (SELECT 1 FROM message_tags d "
                                "CROSS JOIN messages m ON m.id = d.message WHERE d.tag = t.id AND %s%s%s) "
                                "ORDER BY t.name",
                                plan->match, hide ? " AND NOT " : "", hide ? plan->excluded : "");
    const char **list = talloc_array(local, const char *, 1);
    size_t n = 0;
    sqlite3_stmt *stmt;
    maildex_status_t st;
    int rc;

    *out = NULL;
    if (q->tags) {
        *out = q->tags;
        talloc_free(local);
        return MAILDEX_STATUS_OK;
    }
    st = prepare(local, q->db, sql, plan, &stmt);
    while (st == MAILDEX_STATUS_OK && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        const char **grown = talloc_realloc(local, list, const char *, n + 2);
        if (grown == NULL)
            st = maildex__error(q->db, MAILDEX_STATUS_NO_MEMORY, "out of memory");
        else
            (list = grown)[n++] = talloc_strdup(q, (const char *) sqlite3_column_text(stmt, 0));
    }
    if (st == MAILDEX_STATUS_OK && rc != SQLITE_DONE)
        st = step_error(q->db, stmt, rc);
    if (st == MAILDEX_STATUS_OK) {
        list[n] = NULL;
        q->tags = talloc_steal(q, list);
        *out = q->tags;
    }
    talloc_free(local);
    return st;
}

/* ---- did you mean ---------------------------------------------------------------------------------- */

/* Levenshtein distance of a and b (bytes), or limit + 1 once it must exceed limit. */
static size_t edit_distance(const char *a, const char *b, size_t limit)
{
    size_t la = strlen(a), lb = strlen(b), prev[66], cur[66];

    if (la > 64 || lb > 64 || (la > lb ? la - lb : lb - la) > limit)
        return limit + 1;
    for (size_t j = 0; j <= lb; j++)
        prev[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t best = cur[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
            size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
            cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
            if (cur[j] < best)
                best = cur[j];
        }
        if (best > limit)
            return limit + 1;
        memcpy(prev, cur, (lb + 1) * sizeof *prev);
    }
    return prev[lb];
}

/* The word as the index holds it: lower case, accents removed. */
static char *fold_word(const char *word)
{
    char *lower = g_utf8_strdown(word, -1), *nfd = g_utf8_normalize(lower, -1, G_NORMALIZE_NFD);
    GString *out = g_string_new(NULL);

    for (const char *s = nfd ? nfd : ""; *s; s = g_utf8_next_char(s)) {
        gunichar c = g_utf8_get_char(s);
        if (g_unichar_type(c) != G_UNICODE_NON_SPACING_MARK)
            g_string_append_unichar(out, c);
    }
    g_free(nfd);
    g_free(lower);
    return g_string_free(out, FALSE);
}

struct candidate {
    char *term;
    size_t distance;
    int64_t docs;
};

static gint candidate_cmp(gconstpointer a, gconstpointer b)
{
    const struct candidate *x = a, *y = b;

    if (x->distance != y->distance)
        return x->distance < y->distance ? -1 : 1;
    if (x->docs != y->docs)
        return x->docs > y->docs ? -1 : 1;
    return strcmp(x->term, y->term);
}

maildex_status_t maildex_db_suggest(maildex_db_t *db, const char *word, size_t max, char ***out)
{
    char *w = fold_word(word ? word : "");
    GArray *cands = g_array_new(FALSE, FALSE, sizeof(struct candidate));
    sqlite3_stmt *stmt = NULL;
    maildex_status_t st;
    char **list = NULL;
    int rc;

    *out = NULL;
    st = maildex__vocab_ensure(db);
    if (st != MAILDEX_STATUS_OK)
        goto done;
    /* Candidates share the first character: a bounded range of the vocabulary, never all of it. */
    rc = sqlite3_prepare_v2(db->sql, "SELECT term, doc FROM temp.maildex_vocab WHERE term >= ?1 AND "
                                     "term < ?2 LIMIT 200000", -1, &stmt, NULL);
    if (rc == SQLITE_OK && *w) {
        size_t first = (size_t) (g_utf8_next_char(w) - w);
        char *lo = g_strndup(w, first), *hi = g_strconcat(lo, "\xf4\x8f\xbf\xbf", NULL);
        sqlite3_bind_text(stmt, 1, lo, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(stmt, 2, hi, -1, SQLITE_TRANSIENT);
        g_free(lo);
        g_free(hi);
        while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
            const char *term = (const char *) sqlite3_column_text(stmt, 0);
            size_t d;
            if (term == NULL || term[0] == MAILDEX_FTS_STEM_MARKER)
                continue;
            d = edit_distance(w, term, 2);
            if (d == 0) {
                g_array_set_size(cands, 0);
                break;
            }
            if (d <= 2) {
                struct candidate c = {g_strdup(term), d, sqlite3_column_int64(stmt, 1)};
                g_array_append_val(cands, c);
            }
        }
        if (rc == SQLITE_DONE || rc == SQLITE_ROW)
            rc = SQLITE_OK;
    }
    if (rc != SQLITE_OK) {
        st = maildex__sql_error(db, rc, "cannot read the word list");
        goto done;
    }
    g_array_sort(cands, candidate_cmp);
    list = talloc_zero_array(db, char *, (cands->len < max ? cands->len : max) + 1);
    for (guint i = 0; list && i < cands->len && i < max; i++)
        list[i] = talloc_strdup(list, g_array_index(cands, struct candidate, i).term);
    if (list == NULL)
        st = maildex__error(db, MAILDEX_STATUS_NO_MEMORY, "out of memory");
    *out = list;
done:
    sqlite3_finalize(stmt);
    for (guint i = 0; i < cands->len; i++)
        g_free(g_array_index(cands, struct candidate, i).term);
    g_array_free(cands, TRUE);
    g_free(w);
    return st;
}

void maildex_strings_free(char **strings)
{
    talloc_free(strings);
}
