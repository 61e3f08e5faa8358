/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The thread iterator of a query (maildex_query_search_threads): the message stream grouped into
 * threads as it goes, each thread's notmuch summary (lib/thread.cc, notmuch-search.c of notmuch 0.37)
 * read from its messages once, and which of them match decided from the stream itself (read ahead a
 * bounded way) rather than by a probe per message. It must not build SQL from user text, print, or
 * read config. */
#include "search.h"

#include "key-order.h"

#include <stdlib.h>

struct maildex_thread {
    maildex_query_t *q;
    uint64_t id;
    int64_t timestamp, oldest, newest;
    int matched, total, files;
    const char *authors, *subject, *matched_query, *unmatched_query;
    const char **tags;
    struct member *members; /* oldest first, kept for maildex_thread_toplevel_messages */
    size_t nmembers;
    struct maildex__message_stmts stmts;
    maildex_message_t **toplevel; /* arranged on first call */
    maildex_message_t **messages; /* ... and every member, oldest first, NULL-terminated */
};

/* Rows of the stream a thread summary may read ahead: this many, plus so many per member it has to
 * decide (the rows are not lost: the threads that follow take them from the queue). */
#define READ_AHEAD_BASE 64
#define READ_AHEAD_PER_MEMBER 16

/* How a thread summary tells which of the thread's messages match (see decide_matches()). */
enum match_method {
    MATCH_INLINE, /* the members statement evaluates the plan's match expression per message */
    MATCH_RANGED, /* read the plan's ranged stream over the thread's keys; probe only what it misses */
};

struct maildex_threads {
    maildex_query_t *q;
    enum match_method method;
    sqlite3_stmt *stream;    /* the unlimited message stream: k */
    struct maildex__key_order *keys; /* its keys in notmuch's order */
    GArray *ahead;           /* int64 keys read from stream before their turn, in stream order */
    guint ahead_head;        /* ahead[ahead_head] is the next key to hand out */
    int64_t frontier;        /* the last key read from stream */
    bool stream_done;
    sqlite3_stmt *thread_of; /* thread of ?1 */
    sqlite3_stmt *members;   /* the messages of thread ?1, oldest first, with their tag ids */
    sqlite3_stmt *ranged;    /* MATCH_RANGED: matching keys in ?1..?2, stream order, LIMIT ?3 */
    sqlite3_stmt *probe;     /* MATCH_RANGED: does message ?1 match (and is not hidden)? */
    sqlite3_stmt *tag_name;  /* name of tag ?1 */
    GHashTable *tag_names;   /* tag id -> name, as read so far */
    GHashTable *seen;
    uint64_t skipped;
    int64_t returned;
    maildex_thread_t *current;
};

/* One message of the thread being summarised: the members statement's row. */
struct member {
    int64_t key, date;
    const char *message_id, *author, *subject, *tag_ids, *parent;
    bool inline_match, excluded, match;
    int files;
};

/* ---- threads --------------------------------------------------------------------------------------- */

static int threads_destructor(maildex_threads_t *it)
{
    if (it->seen)
        g_hash_table_destroy(it->seen);
    if (it->tag_names)
        g_hash_table_destroy(it->tag_names);
    if (it->ahead)
        g_array_free(it->ahead, TRUE);
    return 0;
}

/* The statements of a thread iterator. Every summary reads its thread's messages once through
 * messages_thread, each with its tag ids and file count from its own row (sql/0009), so its cost
 * depends on the thread's size only. */
static maildex_status_t prepare_threads(maildex_threads_t *it)
{
    const struct maildex__plan *plan = it->q->plan;
    maildex_db_t *db = it->q->db;
    maildex_status_t st;

    /* A full-text probe per message is an FTS5 query each (a seek per segment per word); reading the
     * driving index over the thread's keys costs one. A plan that scans has no index to read. */
    it->method = plan->match_costly && plan->driver != MAILDEX__DRIVER_SCAN ? MATCH_RANGED : MATCH_INLINE;
    st = maildex__search_prepare(it, db, talloc_asprintf(it, "%s%s", plan->stream, plan->order), plan, &it->stream);
    if (st == MAILDEX_STATUS_OK && (it->keys = maildex__key_order_new(it, it->stream, it->q->oldest_first)) == NULL)
        st = maildex__error(db, MAILDEX_STATUS_NO_MEMORY, "out of memory");
    if (st == MAILDEX_STATUS_OK)
        st = maildex__search_prepare(it, db, "SELECT thread FROM messages WHERE id = ?1", NULL, &it->thread_of);
    if (st == MAILDEX_STATUS_OK)
        st = maildex__search_prepare(it, db, "SELECT name FROM tags WHERE id = ?1", NULL, &it->tag_name);
    if (st == MAILDEX_STATUS_OK)
        st = maildex__search_prepare(it, db,
                     talloc_asprintf(it, "SELECT m.id, m.message_id, m.date, m.author, m.subject, %s, "
                                         "%s, m.nfiles, m.tag_ids, m.parent "
                                         "FROM messages m WHERE m.thread = ?1 ORDER BY m.id",
                                     it->method == MATCH_INLINE ? plan->match : "0", plan->excluded),
                     plan, &it->members);
    return st;
}

/* MATCH_RANGED's fallback statements, prepared the first time a thread needs them (the read-ahead
 * usually decides every member). */
static maildex_status_t prepare_fallback(maildex_threads_t *it)
{
    const struct maildex__plan *plan = it->q->plan;
    const char *hide = plan->hides ? plan->excluded : "0";
    maildex_status_t st = MAILDEX_STATUS_OK;

    if (it->ranged == NULL)
        st = maildex__search_prepare(it, it->q->db, talloc_asprintf(it, "%s%s LIMIT ?3", plan->ranged, plan->order),
                     plan, &it->ranged);
    if (st == MAILDEX_STATUS_OK && it->probe == NULL)
        st = maildex__search_prepare(it, it->q->db,
                     talloc_asprintf(it, "SELECT (%s) AND NOT (%s) FROM messages m WHERE m.id = ?1",
                                     plan->match, hide),
                     plan, &it->probe);
    return st;
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
    it->tag_names = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
    it->ahead = g_array_new(FALSE, FALSE, sizeof(int64_t));
    talloc_set_destructor(it, threads_destructor);
    st = prepare_threads(it);
    if (st != MAILDEX_STATUS_OK) {
        talloc_free(it);
        return st;
    }
    *out = it;
    return MAILDEX_STATUS_OK;
}

/* The name of tag id, read once per iterator. */
static maildex_status_t tag_name(maildex_threads_t *it, int64_t id, const char **out)
{
    const char *name = g_hash_table_lookup(it->tag_names, &id);
    int rc;

    *out = name;
    if (name)
        return MAILDEX_STATUS_OK;
    sqlite3_reset(it->tag_name);
    sqlite3_bind_int64(it->tag_name, 1, id);
    rc = sqlite3_step(it->tag_name);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return maildex__search_step_error(it->q->db, it->tag_name);
    /* A tag row removed under a live message would be a broken store: show nothing for it. */
    name = rc == SQLITE_ROW ? (const char *) sqlite3_column_text(it->tag_name, 0) : "";
    char *copy = g_strdup(name ? name : "");
    g_hash_table_insert(it->tag_names, g_memdup2(&id, sizeof id), copy);
    sqlite3_reset(it->tag_name);
    *out = copy;
    return MAILDEX_STATUS_OK;
}

/* An ordered list of unique strings (notmuch's GPtrArray + hash table pairs). The strings are
 * borrowed: a thread's members and the tag-name cache both outlive the summary built from them. */
struct uniq {
    GHashTable *set;
    GPtrArray *order;
};

static void uniq_init(struct uniq *u)
{
    u->set = g_hash_table_new(g_str_hash, g_str_equal);
    u->order = g_ptr_array_new();
}

static void uniq_add(struct uniq *u, const char *s)
{
    if (s == NULL || !g_hash_table_add(u->set, (gpointer) s))
        return;
    g_ptr_array_add(u->order, (gpointer) s);
}

static void uniq_free(struct uniq *u)
{
    g_hash_table_destroy(u->set);
    g_ptr_array_free(u->order, TRUE);
}

/* Appends " " (unless q is empty) and notmuch's make_boolean_term of prefix:term to q: quoted when
 * empty or holding a space, control byte, '"', '(' or ')', or a byte >= 0x80; quotes inside are
 * doubled. Into a GString, not by printf or talloc appends: a thread summary lists every member,
 * and formatting and reallocating were a sixth of `search` printing every thread of a common word. */
static void append_boolean_term(GString *q, const char *prefix, const char *term)
{
    bool quote = *term == '\0';

    for (const unsigned char *s = (const unsigned char *) term; *s && !quote; s++)
        quote = *s <= ' ' || *s == ')' || *s == '"' || *s == '(' || *s >= 0x80;
    if (q->len > 0)
        g_string_append_c(q, ' ');
    g_string_append(q, prefix);
    g_string_append(q, quote ? ":\"" : ":");
    for (const char *s = term; *s; s++) {
        if (*s == '"')
            g_string_append_c(q, '"');
        g_string_append_c(q, *s);
    }
    if (quote)
        g_string_append_c(q, '"');
}

/* notmuch's _thread_set_subject_from_message: one reply prefix dropped, and an empty subject never
 * replaces one the thread already has. */
static void set_subject(maildex_thread_t *t, const char *subject)
{
    static const char *const prefixes[] = {"Re: ", "Aw: ", "Vs: ", "Sv: "};
    const char *clean = subject;

    for (size_t i = 0; i < G_N_ELEMENTS(prefixes); i++)
        if (g_ascii_strncasecmp(subject, prefixes[i], 4) == 0)
            clean = subject + 4;
    if (*clean != '\0')
        t->subject = talloc_strdup(t, clean);
}

static char *join_uniq(void *ctx, struct uniq *u, size_t *count)
{
    char *s = NULL;

    *count = u->order->len;
    for (guint i = 0; i < u->order->len && (i == 0 || s); i++) {
        const char *a = g_ptr_array_index(u->order, i);
        if (s == NULL)
            s = talloc_strdup(ctx, a);
        else if ((s = talloc_strdup_append_buffer(s, ", ")) != NULL)
            s = talloc_strdup_append_buffer(s, a);
    }
    return s;
}

/* The summary of thread id, after notmuch's _notmuch_thread_create: members oldest first, matched
 * ones counted and their authors first, the subject and timestamp from the newest (oldest) match. */
struct summary_state {
    struct uniq authors, matched_authors, tags;
    GString *matched_q, *unmatched_q;
    bool any_match;
};

static maildex_status_t add_member(maildex_threads_t *it, maildex_thread_t *t, struct summary_state *s,
                                   const struct member *mb)
{
    const enum maildex__exclude_mode mode = it->q->exclude;
    const char *author = mb->author && *mb->author ? mb->author : NULL;
    const bool match = mb->match;
    maildex_status_t st;

    if (mb->excluded && mode == MAILDEX__EXCLUDE_ALL)
        return MAILDEX_STATUS_OK;
    t->total++;
    t->files += mb->files;
    uniq_add(&s->authors, author);
    for (const char *p = mb->tag_ids; p && *p;) {
        char *end;
        const char *name;
        int64_t id = strtoll(p, &end, 10);
        if (end == p)
            break;
        st = tag_name(it, id, &name);
        if (st != MAILDEX_STATUS_OK)
            return st;
        uniq_add(&s->tags, name);
        p = *end == ',' ? end + 1 : end;
    }
    append_boolean_term(match ? s->matched_q : s->unmatched_q, "id", mb->message_id);
    if (!match)
        return MAILDEX_STATUS_OK;
    /* notmuch compares with the count of non-excluded matches, so excluded matches before the
     * first counted one keep moving the timestamps. */
    if (mb->date < t->oldest || t->matched == 0) {
        t->oldest = mb->date;
        if (it->q->oldest_first)
            set_subject(t, mb->subject);
    }
    if (mb->date > t->newest || t->matched == 0) {
        t->newest = mb->date;
        /* Oldest first, a newer match names the thread while the oldest ones had no subject. */
        if (!it->q->oldest_first || *t->subject == '\0')
            set_subject(t, mb->subject);
    }
    if (!mb->excluded)
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
        if (out == NULL)
            out = talloc_strdup(ctx, "");
        if (out)
            out = talloc_strdup_append_buffer(out, first ? "| " : ", ");
        if (out)
            out = talloc_strdup_append_buffer(out, a);
        first = false;
    }
    return out ? out : "";
}

/* Reads the stream's next key into the read-ahead queue; sets *got unless the stream is done. */
static maildex_status_t read_stream(maildex_threads_t *it, bool *got)
{
    int64_t key;
    maildex_status_t st;

    *got = false;
    if (it->stream_done)
        return MAILDEX_STATUS_OK;
    st = maildex__key_order_next(it->q->db, it->keys, &key, got);
    if (st != MAILDEX_STATUS_OK || !*got) {
        it->stream_done = st == MAILDEX_STATUS_OK;
        return st;
    }
    it->frontier = key;
    g_array_append_val(it->ahead, it->frontier);
    return MAILDEX_STATUS_OK;
}

/* The next key of the stream, from the read-ahead queue first; *got is false at the end. */
static maildex_status_t next_key(maildex_threads_t *it, int64_t *key, bool *got)
{
    maildex_status_t st = MAILDEX_STATUS_OK;

    if (it->ahead_head == it->ahead->len) {
        g_array_set_size(it->ahead, 0);
        it->ahead_head = 0;
        st = read_stream(it, got);
        if (st != MAILDEX_STATUS_OK || !*got)
            return st;
    }
    *key = g_array_index(it->ahead, int64_t, it->ahead_head++);
    *got = true;
    return st;
}

/* Whether a comes before b in stream order (notmuch's, key-order.h). */
static bool before(const maildex_threads_t *it, int64_t a, int64_t b)
{
    return maildex__key_before(a, b, it->q->oldest_first);
}

/* Whether key is in the read-ahead queue (which is in stream order). */
static bool ahead_has(const maildex_threads_t *it, int64_t key)
{
    guint lo = it->ahead_head, hi = it->ahead->len;

    while (lo < hi) {
        guint mid = lo + (hi - lo) / 2;
        int64_t k = g_array_index(it->ahead, int64_t, mid);
        if (k == key)
            return true;
        if (before(it, k, key))
            lo = mid + 1;
        else
            hi = mid;
    }
    return false;
}

/* Copies the n strings of from (NULL stays NULL) into one block on ctx: a member's five strings
 * were five allocations, a tenth of printing every thread of a common word. */
static bool copy_strings(void *ctx, const char *const *from, const char **to, int n)
{
    size_t len[8], total = 0;
    char *block, *p;

    for (int i = 0; i < n; i++)
        total += len[i] = from[i] ? strlen(from[i]) + 1 : 0;
    p = block = talloc_size(ctx, total ? total : 1);
    if (block == NULL)
        return false;
    for (int i = 0; i < n; i++) {
        to[i] = from[i] ? memcpy(p, from[i], len[i]) : NULL;
        p += len[i];
    }
    return true;
}

/* Turns around each run of members of one second: the members statement lists them by key, which
 * within a second is the reverse of the order they were indexed, and notmuch lists a thread's messages
 * oldest first with ties in that order (key-order.h). */
static void ties_in_indexing_order(struct member *list, size_t n)
{
    for (size_t i = 0, j; i < n; i = j) {
        for (j = i + 1; j < n && maildex__key_second(list[j].key) == maildex__key_second(list[i].key); j++)
            ;
        for (size_t a = i, b = j - 1; a < b; a++, b--) {
            struct member swap = list[a];
            list[a] = list[b];
            list[b] = swap;
        }
    }
}

/* Reads the messages of thread id, oldest first as notmuch lists them, into *out (on ctx). */
static maildex_status_t read_members(maildex_threads_t *it, void *ctx, uint64_t id, struct member **out,
                                     size_t *count)
{
    sqlite3_stmt *m = it->members;
    const enum maildex__exclude_mode mode = it->q->exclude;
    struct member *list = NULL;
    size_t n = 0, size = 0;
    maildex_status_t st = MAILDEX_STATUS_OK;
    int rc;

    sqlite3_reset(m);
    sqlite3_bind_int64(m, 1, (int64_t) id);
    while ((rc = sqlite3_step(m)) == SQLITE_ROW) {
        if (n == size) {
            size = size ? 2 * size : 8;
            list = talloc_realloc(ctx, list, struct member, size);
            if (list == NULL) {
                st = maildex__error(it->q->db, MAILDEX_STATUS_NO_MEMORY, "out of memory");
                break;
            }
        }
        struct member *mb = &list[n++];
        const char *mid = (const char *) sqlite3_column_text(m, 1);
        const char *author = (const char *) sqlite3_column_text(m, 3);
        const char *subject = (const char *) sqlite3_column_text(m, 4);
        const char *tag_ids = (const char *) sqlite3_column_text(m, 8);
        const char *parent = (const char *) sqlite3_column_text(m, 9);
        mb->key = sqlite3_column_int64(m, 0);
        mb->date = sqlite3_column_int64(m, 2);
        const char *from[5] = {mid ? mid : "", author ? author : "", subject ? subject : "", tag_ids,
                               parent};
        const char *to[5];
        if (!copy_strings(list, from, to, 5)) {
            st = maildex__error(it->q->db, MAILDEX_STATUS_NO_MEMORY, "out of memory");
            break;
        }
        mb->message_id = to[0];
        mb->author = to[1];
        mb->subject = to[2];
        mb->tag_ids = to[3];
        mb->parent = to[4];
        mb->inline_match = sqlite3_column_int(m, 5) != 0;
        mb->excluded = sqlite3_column_int(m, 6) != 0;
        mb->files = sqlite3_column_int(m, 7);
        /* Hidden (excluded, mode true or all) messages never match: the stream leaves them out. */
        mb->match = mb->inline_match &&
                    !(mb->excluded && (mode == MAILDEX__EXCLUDE_TRUE || mode == MAILDEX__EXCLUDE_ALL));
    }
    if (st == MAILDEX_STATUS_OK && rc != SQLITE_DONE)
        st = maildex__search_step_error(it->q->db, m);
    sqlite3_reset(m);
    if (st == MAILDEX_STATUS_OK)
        ties_in_indexing_order(list, n);
    *out = list;
    *count = n;
    return st;
}

/* The member with key, or NULL; list is in notmuch's oldest-first order. */
static struct member *find_member(struct member *list, size_t n, int64_t key)
{
    size_t lo = 0, hi = n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (list[mid].key == key)
            return &list[mid];
        if (maildex__key_before(list[mid].key, key, true))
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

static maildex_status_t probe_member(maildex_threads_t *it, struct member *mb)
{
    int rc;

    sqlite3_reset(it->probe);
    sqlite3_bind_int64(it->probe, 1, mb->key);
    rc = sqlite3_step(it->probe);
    if (rc != SQLITE_ROW)
        return maildex__search_step_error(it->q->db, it->probe);
    mb->match = sqlite3_column_int(it->probe, 0) != 0;
    sqlite3_reset(it->probe);
    return MAILDEX_STATUS_OK;
}

/* The members the read-ahead left undecided (undecided[i]), count of them: one read of the ranged
 * stream over their keys, at most twice as many rows as there are of them (plus a few); if matches
 * of other threads fill that, the ones beyond the last row read are probed one by one. */
static maildex_status_t decide_rest(maildex_threads_t *it, struct member *list, size_t n,
                                    const bool *undecided, size_t count)
{
    int64_t lo = INT64_MAX, hi = INT64_MIN, last = 0, rows = 0, cap = 2 * (int64_t) count + 8;
    maildex_status_t st = prepare_fallback(it);
    int rc;

    if (st != MAILDEX_STATUS_OK)
        return st;
    for (size_t i = 0; i < n; i++) {
        if (!undecided[i])
            continue;
        lo = list[i].key < lo ? list[i].key : lo;
        hi = list[i].key > hi ? list[i].key : hi;
    }
    sqlite3_reset(it->ranged);
    sqlite3_bind_int64(it->ranged, 1, lo);
    sqlite3_bind_int64(it->ranged, 2, hi);
    sqlite3_bind_int64(it->ranged, 3, cap);
    while ((rc = sqlite3_step(it->ranged)) == SQLITE_ROW) {
        struct member *mb = find_member(list, n, last = sqlite3_column_int64(it->ranged, 0));
        if (mb)
            mb->match = true;
        rows++;
    }
    if (rc != SQLITE_DONE)
        st = maildex__search_step_error(it->q->db, it->ranged);
    sqlite3_reset(it->ranged);
    if (rows < cap)
        return st;
    /* The ranged statement reads in key order, not notmuch's: what lies past its last row is by key. */
    for (size_t i = 0; st == MAILDEX_STATUS_OK && i < n; i++)
        if (undecided[i] && (it->q->oldest_first ? last < list[i].key : last > list[i].key))
            st = probe_member(it, &list[i]);
    return st;
}

/* MATCH_RANGED: sets list[].match from the stream itself, so that no member costs a full-text probe.
 * first is the key through which the stream reached this thread: it matches, and every member before
 * it in stream order does not (the thread would have been reached through that one). For the members
 * after it the stream is read ahead (the keys are queued for the threads that follow) until it passes
 * the last of them, or for a bounded number of rows: a member the stream has passed matches exactly
 * when its key was read. Members beyond that bound go to decide_rest(). */
static maildex_status_t decide_matches(maildex_threads_t *it, struct member *list, size_t n, int64_t first)
{
    size_t unknown = 0, rest = 0;
    int64_t last = first; /* the member latest in stream order */
    maildex_status_t st = MAILDEX_STATUS_OK;
    bool *undecided, got = true;

    for (size_t i = 0; i < n; i++) {
        list[i].match = list[i].key == first;
        if (before(it, first, list[i].key)) {
            unknown++;
            last = before(it, last, list[i].key) ? list[i].key : last;
        }
    }
    if (unknown == 0)
        return MAILDEX_STATUS_OK;
    const size_t budget = READ_AHEAD_BASE + READ_AHEAD_PER_MEMBER * unknown;
    for (size_t rows = 0; st == MAILDEX_STATUS_OK && got && rows < budget; rows++) {
        if (!before(it, it->frontier, last))
            break;
        st = read_stream(it, &got);
    }
    if (st != MAILDEX_STATUS_OK)
        return st;
    undecided = talloc_zero_array(list, bool, n);
    if (undecided == NULL)
        return maildex__error(it->q->db, MAILDEX_STATUS_NO_MEMORY, "out of memory");
    for (size_t i = 0; i < n; i++) {
        if (!before(it, first, list[i].key))
            continue;
        if (it->stream_done || !before(it, it->frontier, list[i].key))
            list[i].match = ahead_has(it, list[i].key);
        else
            rest += undecided[i] = true;
    }
    if (rest > 0)
        st = decide_rest(it, list, n, undecided, rest);
    talloc_free(undecided);
    return st;
}

static maildex_status_t build_thread(maildex_threads_t *it, uint64_t id, int64_t first,
                                     maildex_thread_t **out)
{
    maildex_thread_t *t = talloc_zero(it, maildex_thread_t);
    struct summary_state s = {0};
    struct member *list = NULL;
    size_t n = 0;
    maildex_status_t st;

    *out = NULL;
    if (t == NULL)
        return maildex__error(it->q->db, MAILDEX_STATUS_NO_MEMORY, "out of memory");
    t->q = it->q;
    t->id = id;
    t->subject = "";
    t->stmts.owner = t;
    uniq_init(&s.authors);
    uniq_init(&s.matched_authors);
    uniq_init(&s.tags);
    s.matched_q = g_string_sized_new(256);
    s.unmatched_q = g_string_sized_new(256);
    /* The members stay with the thread: show arranges them (a few hundred bytes each). */
    st = read_members(it, t, id, &list, &n);
    t->members = list;
    t->nmembers = n;
    if (st == MAILDEX_STATUS_OK && it->method == MATCH_RANGED)
        st = decide_matches(it, list, n, first);
    for (size_t i = 0; st == MAILDEX_STATUS_OK && i < n; i++)
        st = add_member(it, t, &s, &list[i]);
    if (st == MAILDEX_STATUS_OK) {
        t->timestamp = it->q->oldest_first ? t->oldest : t->newest;
        t->authors = authors_string(t, &s);
        t->matched_query = s.matched_q->len ? talloc_strndup(t, s.matched_q->str, s.matched_q->len)
                                            : NULL;
        t->unmatched_query = s.unmatched_q->len
                                 ? talloc_strndup(t, s.unmatched_q->str, s.unmatched_q->len)
                                 : NULL;
        g_ptr_array_sort(s.tags.order, maildex__strptr_cmp);
        t->tags = talloc_array(t, const char *, s.tags.order->len + 1);
        for (guint i = 0; i < s.tags.order->len; i++)
            t->tags[i] = talloc_strdup(t, g_ptr_array_index(s.tags.order, i));
        t->tags[s.tags.order->len] = NULL;
    }
    uniq_free(&s.authors);
    uniq_free(&s.matched_authors);
    uniq_free(&s.tags);
    g_string_free(s.matched_q, TRUE);
    g_string_free(s.unmatched_q, TRUE);
    if (st != MAILDEX_STATUS_OK)
        talloc_free(t);
    else
        *out = t;
    return st;
}

/* The thread of message key; *found is false when the message is gone (not within one read). */
static maildex_status_t thread_of(maildex_threads_t *it, int64_t key, int64_t *thread, bool *found)
{
    int rc;

    *found = false;
    sqlite3_reset(it->thread_of);
    sqlite3_bind_int64(it->thread_of, 1, key);
    rc = sqlite3_step(it->thread_of);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return maildex__search_step_error(it->q->db, it->thread_of);
    *found = rc == SQLITE_ROW;
    *thread = *found ? sqlite3_column_int64(it->thread_of, 0) : 0;
    sqlite3_reset(it->thread_of);
    return MAILDEX_STATUS_OK;
}

maildex_status_t maildex_threads_next(maildex_threads_t *it, maildex_thread_t **out)
{
    maildex_status_t st;
    int64_t key, thread;
    bool found, got;

    *out = NULL;
    talloc_free(it->current);
    it->current = NULL;
    if (it->q->limit >= 0 && it->returned >= it->q->limit)
        return MAILDEX_STATUS_OK;
    for (;;) {
        st = next_key(it, &key, &got);
        if (st != MAILDEX_STATUS_OK || !got)
            return st;
        st = thread_of(it, key, &thread, &found);
        if (st != MAILDEX_STATUS_OK)
            return st;
        if (!found || g_hash_table_contains(it->seen, &thread))
            continue;
        g_hash_table_add(it->seen, g_memdup2(&thread, sizeof thread));
        if (it->skipped < it->q->offset) {
            it->skipped++;
            continue;
        }
        st = build_thread(it, (uint64_t) thread, key, &it->current);
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

/* The thread's members as message objects, oldest first, for thread-tree.c: matched as the summary
 * decided, excluded as notmuch flags thread members (an excluded tag, unless exclusion is off). */
maildex_status_t maildex_thread_toplevel_messages(maildex_thread_t *t, maildex_message_t *const **out)
{
    maildex_message_t **list = talloc_zero_array(t, maildex_message_t *, t->nmembers + 1);
    maildex_status_t st = MAILDEX_STATUS_OK;
    size_t n = 0;

    *out = NULL;
    if (t->toplevel) {
        talloc_free(list);
        *out = t->toplevel;
        return MAILDEX_STATUS_OK;
    }
    for (size_t i = 0; list && i < t->nmembers; i++) {
        const struct member *mb = &t->members[i];
        maildex_message_t *m;
        if (mb->excluded && t->q->exclude == MAILDEX__EXCLUDE_ALL) /* not in notmuch's thread either */
            continue;
        if ((m = list[n++] = talloc_zero(list, maildex_message_t)) == NULL)
            break;
        m->q = t->q;
        m->stmts = &t->stmts;
        m->key = mb->key;
        m->message_id = mb->message_id;
        m->thread = t->id;
        m->date = mb->date;
        m->matched = mb->match;
        m->excluded = mb->excluded && t->q->exclude != MAILDEX__EXCLUDE_FALSE;
        m->parent = mb->parent;
    }
    if (list == NULL || (n > 0 && list[n - 1] == NULL))
        st = maildex__error(t->q->db, MAILDEX_STATUS_NO_MEMORY, "out of memory");
    if (st == MAILDEX_STATUS_OK)
        st = maildex__thread_arrange(list, list, n, maildex__references_of_file, t->q->db, &t->toplevel);
    if (st == MAILDEX_STATUS_NO_MEMORY)
        maildex__error(t->q->db, st, "out of memory");
    if (st != MAILDEX_STATUS_OK) {
        talloc_free(list);
        t->toplevel = NULL;
        return st;
    }
    t->messages = list;
    *out = t->toplevel;
    return st;
}

maildex_status_t maildex_thread_messages(maildex_thread_t *t, maildex_message_t *const **out)
{
    maildex_message_t *const *toplevel;
    maildex_status_t st = maildex_thread_toplevel_messages(t, &toplevel);

    *out = st == MAILDEX_STATUS_OK ? t->messages : NULL;
    return st;
}
