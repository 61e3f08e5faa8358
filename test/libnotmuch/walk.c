/* SPDX-License-Identifier: GPL-3.0-or-later */
/* walk.c: a small libnotmuch client, written against notmuch 0.37's notmuch.h alone, that prints what
 * a mail client reads of a store, so that two libraries can be compared by their output: Debian's on
 * notmuch's database and maildex's lib/notmuch-abi on maildex's (test/T710-libnotmuch-differential.sh),
 * and timed (bench/run --libnotmuch). The same binary serves both: which libnotmuch.so.5 it runs on is
 * the loader's choice (LD_LIBRARY_PATH), never this file's.
 *
 *     walk read CONFIG QUERIES    the store, then each query's threads and messages
 *     walk write CONFIG PREFIX    a fixed set of tag and property changes (tags PREFIX-*), statuses
 *     walk bench CONFIG WHAT      every message (WHAT=messages) or thread (threads) of '*', or only
 *                                 open and close (open); prints one line of totals
 *     walk open PATH              open PATH, which holds no store, with no config: the status
 *
 * QUERIES holds one query a line: SYNTAX SORT EXCLUDE QUERY, SYNTAX infix|sexp, SORT newest|oldest,
 * EXCLUDE true|false|flag|all (notmuch_exclude_t; search.exclude_tags are added to every query);
 * '#' lines are comments. <thread-of:MID> in QUERY stands for the thread id of message MID.
 *
 * What it must not print: anything the two stores may rightly differ in. Thread ids are each store's
 * own numbering: a thread is named T{smallest message id of the thread}, from a walk of every thread
 * of '*' made first. Results are printed in the order the library gives them, equal dates included
 * (notmuch lists those in the order it made their documents). A message's file names are a set (notmuch lists them in the order of its
 * directory documents). Revisions and the database uuid are each store's own: only whether the
 * revision grew is printed. */
#include <notmuch.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHECK(call)                                                                            \
    do {                                                                                       \
        notmuch_status_t st_ = (call);                                                         \
        if (st_ != NOTMUCH_STATUS_SUCCESS) {                                                   \
            fprintf(stderr, "walk: %s: %s\n", #call, notmuch_status_to_string(st_));           \
            exit(2);                                                                           \
        }                                                                                      \
    } while (0)

/* ---- small helpers --------------------------------------------------------------------------- */

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (p == NULL) {
        fprintf(stderr, "walk: out of memory\n");
        exit(2);
    }
    return p;
}

static char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(xmalloc(n), s, n);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *) a, *(char *const *) b);
}

/* A growing array of strings. */
struct strv {
    char **v;
    size_t n, cap;
};

static void strv_push(struct strv *s, char *str)
{
    if (s->n == s->cap) {
        char **v;
        s->cap = s->cap ? 2 * s->cap : 16;
        v = realloc(s->v, s->cap * sizeof *v);
        if (v == NULL) {
            fprintf(stderr, "walk: out of memory\n");
            exit(2);
        }
        s->v = v;
    }
    s->v[s->n++] = str;
}

static void strv_free(struct strv *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->v[i]);
    free(s->v);
    *s = (struct strv){0};
}

static const char *or_null(const char *s)
{
    return s ? s : "(null)";
}

/* A string with newlines and tabs escaped, so that every printed value is one line. */
static void put_value(FILE *out, const char *s)
{
    if (s == NULL) {
        fputs("(null)", out);
        return;
    }
    for (; *s; s++) {
        if (*s == '\n')
            fputs("\\n", out);
        else if (*s == '\t')
            fputs("\\t", out);
        else if (*s == '\\')
            fputs("\\\\", out);
        else
            fputc(*s, out);
    }
}

static void put_tags(FILE *out, const char *label, notmuch_tags_t *tags)
{
    fprintf(out, "  %s:", label);
    if (tags == NULL)
        fputs(" (null)", out);
    for (; notmuch_tags_valid(tags); notmuch_tags_move_to_next(tags))
        fprintf(out, " %s", notmuch_tags_get(tags));
    fputc('\n', out);
    notmuch_tags_destroy(tags);
}

/* A query for every message, in sort order, excluding nothing (no exclude tags are added). */
static notmuch_query_t *everything(notmuch_database_t *db, notmuch_sort_t sort)
{
    notmuch_query_t *q = notmuch_query_create(db, "*");

    if (q == NULL) {
        fprintf(stderr, "walk: notmuch_query_create: out of memory\n");
        exit(2);
    }
    notmuch_query_set_sort(q, sort);
    notmuch_query_set_omit_excluded(q, NOTMUCH_EXCLUDE_FALSE);
    return q;
}

/* ---- thread names ---------------------------------------------------------------------------- */

struct thread_name {
    char *id, *name;
};

static struct {
    struct thread_name *v;
    size_t n;
} names;

static int cmp_name(const void *a, const void *b)
{
    return strcmp(((const struct thread_name *) a)->id, ((const struct thread_name *) b)->id);
}

/* Every thread of '*', each named by its smallest message id. */
static void load_thread_names(notmuch_database_t *db)
{
    notmuch_query_t *q = everything(db, NOTMUCH_SORT_UNSORTED);
    notmuch_threads_t *threads;
    size_t cap = 0;

    CHECK(notmuch_query_search_threads(q, &threads));
    for (; notmuch_threads_valid(threads); notmuch_threads_move_to_next(threads)) {
        notmuch_thread_t *t = notmuch_threads_get(threads);
        notmuch_messages_t *ms = notmuch_thread_get_messages(t);
        const char *least = NULL;

        for (; notmuch_messages_valid(ms); notmuch_messages_move_to_next(ms)) {
            const char *id = notmuch_message_get_message_id(notmuch_messages_get(ms));
            if (least == NULL || strcmp(id, least) < 0)
                least = id;
        }
        if (names.n == cap) {
            cap = cap ? 2 * cap : 64;
            names.v = realloc(names.v, cap * sizeof *names.v);
            if (names.v == NULL)
                exit(2);
        }
        names.v[names.n].id = xstrdup(notmuch_thread_get_thread_id(t));
        names.v[names.n].name = xmalloc(strlen(or_null(least)) + 4);
        sprintf(names.v[names.n].name, "T{%s}", or_null(least));
        names.n++;
        notmuch_thread_destroy(t);
    }
    notmuch_query_destroy(q);
    qsort(names.v, names.n, sizeof *names.v, cmp_name);
}

static const char *thread_name(const char *id)
{
    struct thread_name key = {(char *) or_null(id), NULL}, *found;

    found = bsearch(&key, names.v, names.n, sizeof *names.v, cmp_name);
    return found ? found->name : "T?unknown";
}

/* ---- one message, one thread ----------------------------------------------------------------- */

static void put_flags(FILE *out, notmuch_message_t *m)
{
    static const struct {
        notmuch_message_flag_t flag;
        const char *name;
    } flags[] = {{NOTMUCH_MESSAGE_FLAG_MATCH, "match"},
                 {NOTMUCH_MESSAGE_FLAG_EXCLUDED, "excluded"},
                 {NOTMUCH_MESSAGE_FLAG_GHOST, "ghost"}};

    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) {
        notmuch_bool_t on = FALSE;
        notmuch_status_t st = notmuch_message_get_flag_st(m, flags[i].flag, &on);
        if (st != NOTMUCH_STATUS_SUCCESS)
            fprintf(out, " %s:%s", flags[i].name, notmuch_status_to_string(st));
        else if (on)
            fprintf(out, " %s", flags[i].name);
    }
}

/* The file names, sorted, with the mail root cut off. */
static void put_filenames(FILE *out, notmuch_message_t *m, const char *root)
{
    notmuch_filenames_t *fs = notmuch_message_get_filenames(m);
    struct strv files = {0};
    size_t rl = root ? strlen(root) : 0;

    for (; notmuch_filenames_valid(fs); notmuch_filenames_move_to_next(fs)) {
        const char *f = notmuch_filenames_get(fs);
        strv_push(&files, xstrdup(rl && strncmp(f, root, rl) == 0 && f[rl] == '/' ? f + rl + 1 : f));
    }
    notmuch_filenames_destroy(fs);
    qsort(files.v, files.n, sizeof *files.v, cmp_str);
    fprintf(out, "  files %d:", notmuch_message_count_files(m));
    for (size_t i = 0; i < files.n; i++)
        fprintf(out, " %s", files.v[i]);
    fputc('\n', out);
    strv_free(&files);
}

static void put_properties(FILE *out, notmuch_message_t *m)
{
    notmuch_message_properties_t *ps = notmuch_message_get_properties(m, "", FALSE);

    fputs("  properties:", out);
    for (; notmuch_message_properties_valid(ps); notmuch_message_properties_move_to_next(ps))
        fprintf(out, " %s=%s", notmuch_message_properties_key(ps), notmuch_message_properties_value(ps));
    fputc('\n', out);
    notmuch_message_properties_destroy(ps);
}

static void put_message(FILE *out, notmuch_message_t *m, const char *root)
{
    static const char *const headers[] = {"From", "To", "Subject", "Date", "References", "In-Reply-To"};

    fprintf(out, "message %s\n  thread %s\n  date %ld\n  flags:", notmuch_message_get_message_id(m),
            thread_name(notmuch_message_get_thread_id(m)), (long) notmuch_message_get_date(m));
    put_flags(out, m);
    fputc('\n', out);
    for (size_t i = 0; i < sizeof headers / sizeof headers[0]; i++) {
        fprintf(out, "  %s: ", headers[i]);
        put_value(out, notmuch_message_get_header(m, headers[i]));
        fputc('\n', out);
    }
    put_filenames(out, m, root);
    put_tags(out, "tags", notmuch_message_get_tags(m));
    put_properties(out, m);
}

/* A message of a thread and its replies, indented by depth. */
static void put_tree(FILE *out, notmuch_messages_t *ms, int depth)
{
    for (; notmuch_messages_valid(ms); notmuch_messages_move_to_next(ms)) {
        notmuch_message_t *m = notmuch_messages_get(ms);
        fprintf(out, "  %*s%s", 2 * depth, "", notmuch_message_get_message_id(m));
        put_flags(out, m);
        fputc('\n', out);
        put_tree(out, notmuch_message_get_replies(m), depth + 1);
    }
}

static void put_thread(FILE *out, notmuch_thread_t *t)
{
    notmuch_messages_t *ms;

    fprintf(out, "thread %s\n  total %d matched %d\n  total files %d\n  oldest %ld newest %ld\n  authors: ",
            thread_name(notmuch_thread_get_thread_id(t)), notmuch_thread_get_total_messages(t),
            notmuch_thread_get_matched_messages(t), notmuch_thread_get_total_files(t),
            (long) notmuch_thread_get_oldest_date(t), (long) notmuch_thread_get_newest_date(t));
    put_value(out, notmuch_thread_get_authors(t));
    fputs("\n  subject: ", out);
    put_value(out, notmuch_thread_get_subject(t));
    fputc('\n', out);
    put_tags(out, "tags", notmuch_thread_get_tags(t));
    fputs("  messages:", out);
    for (ms = notmuch_thread_get_messages(t); notmuch_messages_valid(ms); notmuch_messages_move_to_next(ms))
        fprintf(out, " %s", notmuch_message_get_message_id(notmuch_messages_get(ms)));
    fputs("\n  tree:\n", out);
    put_tree(out, notmuch_thread_get_toplevel_messages(t), 0);
}

/* ---- results ----------------------------------------------------------------------------------- */

/* The printed results of one search, printed in the order they came. */
struct item {
    char *text;
};

struct items {
    struct item *v;
    size_t n, cap;
};

static FILE *item_begin(char **buf, size_t *len)
{
    FILE *f = open_memstream(buf, len);
    if (f == NULL) {
        perror("walk: open_memstream");
        exit(2);
    }
    return f;
}

static void item_end(struct items *items, FILE *f, char *const *buf)
{
    fclose(f);
    if (items->n == items->cap) {
        items->cap = items->cap ? 2 * items->cap : 64;
        items->v = realloc(items->v, items->cap * sizeof *items->v);
        if (items->v == NULL)
            exit(2);
    }
    items->v[items->n++] = (struct item){*buf};
}

static void items_flush(FILE *out, struct items *items)
{
    for (size_t i = 0; i < items->n; i++) {
        fputs(items->v[i].text, out);
        free(items->v[i].text);
    }
    free(items->v);
    *items = (struct items){0};
}

/* ---- queries --------------------------------------------------------------------------------- */

struct spec {
    notmuch_query_syntax_t syntax;
    notmuch_sort_t sort;
    notmuch_exclude_t exclude;
    const char *text;
};

/* text with each <thread-of:MID> replaced by that message's thread id; malloc'd. */
static char *expand(notmuch_database_t *db, const char *text)
{
    static const char mark[] = "<thread-of:";
    char *out = xstrdup(text), *at, *end;

    while ((at = strstr(out, mark)) && (end = strchr(at + sizeof mark - 1, '>'))) {
        notmuch_message_t *m = NULL;
        const char *tid = "none";
        char *next, *mid = xstrdup(at + sizeof mark - 1);

        mid[end - at - (sizeof mark - 1)] = '\0';
        if (notmuch_database_find_message(db, mid, &m) == NOTMUCH_STATUS_SUCCESS && m)
            tid = notmuch_message_get_thread_id(m);
        next = xmalloc(strlen(out) + strlen(tid) + 1);
        sprintf(next, "%.*s%s%s", (int) (at - out), out, tid, end + 1);
        if (m)
            notmuch_message_destroy(m);
        free(mid);
        free(out);
        out = next;
    }
    return out;
}

/* The query of spec with the config's exclude tags, or NULL after printing the status. */
static notmuch_query_t *make_query(FILE *out, notmuch_database_t *db, const struct spec *spec)
{
    notmuch_query_t *q = NULL;
    notmuch_config_values_t *ex;
    char *text = expand(db, spec->text);
    notmuch_status_t st = notmuch_query_create_with_syntax(db, text, spec->syntax, &q);

    free(text);
    if (st != NOTMUCH_STATUS_SUCCESS || q == NULL) {
        fprintf(out, "  create: %s%s\n", notmuch_status_to_string(st), q ? "" : " (no query)");
        return NULL;
    }
    notmuch_query_set_sort(q, spec->sort);
    notmuch_query_set_omit_excluded(q, spec->exclude);
    ex = notmuch_config_get_values(db, NOTMUCH_CONFIG_EXCLUDE_TAGS);
    for (; notmuch_config_values_valid(ex); notmuch_config_values_move_to_next(ex)) {
        st = notmuch_query_add_tag_exclude(q, notmuch_config_values_get(ex));
        if (st != NOTMUCH_STATUS_SUCCESS && st != NOTMUCH_STATUS_IGNORED)
            fprintf(out, "  exclude %s: %s\n", notmuch_config_values_get(ex), notmuch_status_to_string(st));
    }
    notmuch_config_values_destroy(ex);
    return q;
}

static void put_counts(FILE *out, notmuch_query_t *q)
{
    unsigned int messages = 0, threads = 0;
    notmuch_status_t sm = notmuch_query_count_messages(q, &messages);
    notmuch_status_t sth = notmuch_query_count_threads(q, &threads);

    if (sm == NOTMUCH_STATUS_SUCCESS && sth == NOTMUCH_STATUS_SUCCESS)
        fprintf(out, "  count messages %u threads %u\n", messages, threads);
    else
        fprintf(out, "  count messages %u (%s) threads %u (%s)\n", messages, notmuch_status_to_string(sm),
                threads, notmuch_status_to_string(sth));
}

/* "  LABEL:", and the status after it when it is not success. */
static void put_search(FILE *out, const char *label, notmuch_status_t st)
{
    fprintf(out, "  %s:%s%s\n", label, st == NOTMUCH_STATUS_SUCCESS ? "" : " ",
            st == NOTMUCH_STATUS_SUCCESS ? "" : notmuch_status_to_string(st));
}

static void search_threads(FILE *out, notmuch_query_t *q)
{
    notmuch_threads_t *threads = NULL;
    notmuch_status_t st = notmuch_query_search_threads(q, &threads);
    struct items items = {0};

    put_search(out, "threads", st);
    for (; st == NOTMUCH_STATUS_SUCCESS && notmuch_threads_valid(threads); notmuch_threads_move_to_next(threads)) {
        notmuch_thread_t *t = notmuch_threads_get(threads);
        char *buf = NULL;
        size_t len = 0;
        FILE *f = item_begin(&buf, &len);

        put_thread(f, t);
        item_end(&items, f, &buf);
        notmuch_thread_destroy(t);
    }
    items_flush(out, &items);
    if (threads)
        notmuch_threads_destroy(threads);
}

static void search_messages(FILE *out, notmuch_query_t *q, const char *root)
{
    notmuch_messages_t *ms = NULL;
    notmuch_status_t st = notmuch_query_search_messages(q, &ms);
    struct items items = {0};

    put_search(out, "messages", st);
    for (; st == NOTMUCH_STATUS_SUCCESS && notmuch_messages_valid(ms); notmuch_messages_move_to_next(ms)) {
        notmuch_message_t *m = notmuch_messages_get(ms);
        char *buf = NULL;
        size_t len = 0;
        FILE *f = item_begin(&buf, &len);

        put_message(f, m, root);
        item_end(&items, f, &buf);
        notmuch_message_destroy(m);
    }
    items_flush(out, &items);
    if (ms)
        notmuch_messages_destroy(ms);
}

/* "SYNTAX SORT EXCLUDE QUERY" into spec (pointing into line); 0, or -1 when malformed. */
static int parse_spec(char *line, struct spec *spec)
{
    char *syntax = strtok(line, " "), *sort = strtok(NULL, " "), *exclude = strtok(NULL, " ");
    static const char *const excludes[] = {"flag", "true", "false", "all"};

    spec->text = strtok(NULL, "");
    if (syntax == NULL || sort == NULL || exclude == NULL)
        return -1;
    spec->text = spec->text ? spec->text : "";
    spec->syntax = strcmp(syntax, "sexp") == 0 ? NOTMUCH_QUERY_SYNTAX_SEXP : NOTMUCH_QUERY_SYNTAX_XAPIAN;
    spec->sort = strcmp(sort, "oldest") == 0 ? NOTMUCH_SORT_OLDEST_FIRST : NOTMUCH_SORT_NEWEST_FIRST;
    for (size_t i = 0; i < sizeof excludes / sizeof excludes[0]; i++)
        if (strcmp(exclude, excludes[i]) == 0) {
            spec->exclude = (notmuch_exclude_t) i;
            return 0;
        }
    return -1;
}

/* ---- walk read ------------------------------------------------------------------------------- */

static notmuch_database_t *open_db(const char *config, notmuch_database_mode_t mode)
{
    notmuch_database_t *db = NULL;
    char *msg = NULL;
    notmuch_status_t st = notmuch_database_open_with_config(NULL, mode, config, NULL, &db, &msg);

    if (st != NOTMUCH_STATUS_SUCCESS) {
        fprintf(stderr, "walk: cannot open the database of '%s': %s%s%s\n", config,
                notmuch_status_to_string(st), msg ? ": " : "", msg ? msg : "");
        exit(2);
    }
    free(msg);
    return db;
}

static void put_config_values(FILE *out, notmuch_database_t *db, const char *label, notmuch_config_key_t key)
{
    notmuch_config_values_t *v = notmuch_config_get_values(db, key);

    fprintf(out, "  %s:", label);
    for (; notmuch_config_values_valid(v); notmuch_config_values_move_to_next(v))
        fprintf(out, " %s", notmuch_config_values_get(v));
    fputc('\n', out);
    notmuch_config_values_destroy(v);
}

/* What a client reads before any query: paths, config, every tag, the totals. */
static void put_store(FILE *out, notmuch_database_t *db)
{
    unsigned int messages = 0, threads = 0;
    notmuch_query_t *q = everything(db, NOTMUCH_SORT_UNSORTED);

    fprintf(out, "store\n  path: %s\n  mail_root: %s\n", or_null(notmuch_database_get_path(db)),
            or_null(notmuch_config_get(db, NOTMUCH_CONFIG_MAIL_ROOT)));
    put_config_values(out, db, "exclude_tags", NOTMUCH_CONFIG_EXCLUDE_TAGS);
    put_config_values(out, db, "new_tags", NOTMUCH_CONFIG_NEW_TAGS);
    put_config_values(out, db, "other_email", NOTMUCH_CONFIG_OTHER_EMAIL);
    fprintf(out, "  user: %s <%s>\n", or_null(notmuch_config_get(db, NOTMUCH_CONFIG_USER_NAME)),
            or_null(notmuch_config_get(db, NOTMUCH_CONFIG_PRIMARY_EMAIL)));
    put_tags(out, "all tags", notmuch_database_get_all_tags(db));
    CHECK(notmuch_query_count_messages(q, &messages));
    CHECK(notmuch_query_count_threads(q, &threads));
    fprintf(out, "  messages %u threads %u\n", messages, threads);
    notmuch_query_destroy(q);
}

static int cmd_read(const char *config, const char *queries)
{
    notmuch_database_t *db = open_db(config, NOTMUCH_DATABASE_MODE_READ_ONLY);
    const char *root = notmuch_config_get(db, NOTMUCH_CONFIG_MAIL_ROOT);
    FILE *in = fopen(queries, "r");
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;

    if (in == NULL) {
        perror(queries);
        return 2;
    }
    load_thread_names(db);
    put_store(stdout, db);
    while ((n = getline(&line, &cap, in)) > 0) {
        struct spec spec;
        notmuch_query_t *q;

        if (line[n - 1] == '\n')
            line[--n] = '\0';
        if (n == 0 || line[0] == '#')
            continue;
        printf("query %s\n", line);
        if (parse_spec(line, &spec) != 0) {
            printf("  malformed: SYNTAX SORT EXCLUDE QUERY\n");
            continue;
        }
        if ((q = make_query(stdout, db, &spec)) == NULL)
            continue;
        put_counts(stdout, q);
        search_threads(stdout, q);
        search_messages(stdout, q, root);
        notmuch_query_destroy(q);
    }
    free(line);
    fclose(in);
    CHECK(notmuch_database_destroy(db));
    return 0;
}

/* ---- walk write ------------------------------------------------------------------------------ */

typedef void change_fn(FILE *out, notmuch_message_t *m, const char *prefix, unsigned int n);

/* Runs change on the first limit messages of query (newest first, nothing excluded), printing the
 * query and how many it changed. */
static void change(FILE *out, notmuch_database_t *db, const char *query, unsigned int limit,
                   change_fn *fn, const char *prefix, const char *what)
{
    notmuch_query_t *q = notmuch_query_create(db, query);
    notmuch_messages_t *ms = NULL;
    unsigned int n = 0;
    struct strv ids = {0};

    notmuch_query_set_sort(q, NOTMUCH_SORT_NEWEST_FIRST);
    notmuch_query_set_omit_excluded(q, NOTMUCH_EXCLUDE_FALSE);
    CHECK(notmuch_query_search_messages(q, &ms));
    /* The ids first, then each message found again: a change may move a message out of the query,
     * and notmuch allows no writes while the query's iterator runs over them. */
    for (; notmuch_messages_valid(ms) && ids.n < limit; notmuch_messages_move_to_next(ms))
        strv_push(&ids, xstrdup(notmuch_message_get_message_id(notmuch_messages_get(ms))));
    notmuch_query_destroy(q);
    fprintf(out, "change %s: %s (%zu messages)\n", what, query, ids.n);
    for (size_t i = 0; i < ids.n; i++) {
        notmuch_message_t *m = NULL;
        CHECK(notmuch_database_find_message(db, ids.v[i], &m));
        if (m == NULL) {
            fprintf(out, "  %s: not found again\n", ids.v[i]);
            continue;
        }
        fn(out, m, prefix, n++);
        notmuch_message_destroy(m);
    }
    strv_free(&ids);
}

static void st_line(FILE *out, const char *what, notmuch_status_t st)
{
    if (st != NOTMUCH_STATUS_SUCCESS)
        fprintf(out, "  %s: %s\n", what, notmuch_status_to_string(st));
}

static char *tag_name(const char *prefix, const char *name)
{
    static char buf[256];
    snprintf(buf, sizeof buf, "%s-%s", prefix, name);
    return buf;
}

static void add_mine(FILE *out, notmuch_message_t *m, const char *prefix, unsigned int n)
{
    (void) n;
    st_line(out, "add_tag", notmuch_message_add_tag(m, tag_name(prefix, "mine")));
}

static void mark_read(FILE *out, notmuch_message_t *m, const char *prefix, unsigned int n)
{
    (void) n;
    st_line(out, "remove_tag", notmuch_message_remove_tag(m, "unread"));
    st_line(out, "add_tag", notmuch_message_add_tag(m, tag_name(prefix, "read")));
}

static void reset_tags(FILE *out, notmuch_message_t *m, const char *prefix, unsigned int n)
{
    (void) n;
    st_line(out, "freeze", notmuch_message_freeze(m));
    st_line(out, "remove_all_tags", notmuch_message_remove_all_tags(m));
    st_line(out, "add_tag", notmuch_message_add_tag(m, tag_name(prefix, "reset")));
    st_line(out, "add_tag", notmuch_message_add_tag(m, "inbox"));
    st_line(out, "thaw", notmuch_message_thaw(m));
}

/* Maildir flags while frozen: the flags give unread back; then alot's way of tagging, the flags synced
 * before the thaw ("flagged" renames the file). The renames come last: inside an atomic section
 * maildex makes them at its end (doc/notmuch-differences.md), notmuch at once. */
static void frozen_flags(FILE *out, notmuch_message_t *m, const char *prefix, unsigned int n)
{
    (void) n;
    st_line(out, "freeze", notmuch_message_freeze(m));
    st_line(out, "remove_tag", notmuch_message_remove_tag(m, "unread"));
    st_line(out, "maildir_flags_to_tags", notmuch_message_maildir_flags_to_tags(m));
    st_line(out, "add_tag", notmuch_message_add_tag(m, "flagged"));
    st_line(out, "add_tag", notmuch_message_add_tag(m, tag_name(prefix, "frozen")));
    st_line(out, "tags_to_maildir_flags", notmuch_message_tags_to_maildir_flags(m));
    st_line(out, "thaw", notmuch_message_thaw(m));
}

static void delete(FILE *out, notmuch_message_t *m, const char *prefix, unsigned int n)
{
    (void) prefix, (void) n;
    st_line(out, "add_tag", notmuch_message_add_tag(m, "deleted"));
}

/* Properties: two values of one key and a second key on each; then the first message loses one
 * value, the second a whole key, the third every key with the prefix. */
static void properties(FILE *out, notmuch_message_t *m, const char *prefix, unsigned int n)
{
    char key[64], other[64], value[32];

    snprintf(key, sizeof key, "%s.key", prefix);
    snprintf(other, sizeof other, "%s.other", prefix);
    snprintf(value, sizeof value, "v%u", n);
    st_line(out, "add_property", notmuch_message_add_property(m, key, "v1"));
    st_line(out, "add_property", notmuch_message_add_property(m, key, value));
    st_line(out, "add_property", notmuch_message_add_property(m, other, "x"));
    if (n == 0)
        st_line(out, "remove_property", notmuch_message_remove_property(m, key, "v1"));
    if (n == 1)
        st_line(out, "remove_all_properties", notmuch_message_remove_all_properties(m, other));
    if (n == 2) {
        snprintf(key, sizeof key, "%s.", prefix);
        st_line(out, "remove_all_properties_with_prefix",
                notmuch_message_remove_all_properties_with_prefix(m, key));
    }
}

/* What clients get wrong on purpose: each call must fail with notmuch's status. */
static void misuse(FILE *out, notmuch_message_t *m, const char *prefix, unsigned int n)
{
    char long_tag[300];
    const char *value = NULL;

    (void) prefix, (void) n;
    memset(long_tag, 'x', sizeof long_tag - 1);
    long_tag[sizeof long_tag - 1] = '\0';
    fprintf(out, "  add_tag(201 bytes) = %s\n", notmuch_status_to_string(notmuch_message_add_tag(m, long_tag + 98)));
    fprintf(out, "  add_tag(NULL) = %s\n", notmuch_status_to_string(notmuch_message_add_tag(m, NULL)));
    fprintf(out, "  remove_tag(NULL) = %s\n", notmuch_status_to_string(notmuch_message_remove_tag(m, NULL)));
    fprintf(out, "  thaw() unfrozen = %s\n", notmuch_status_to_string(notmuch_message_thaw(m)));
    fprintf(out, "  add_property(key=) = %s\n",
            notmuch_status_to_string(notmuch_message_add_property(m, "bad=key", "v")));
    fprintf(out, "  get_property(none) = %s %s\n",
            notmuch_status_to_string(notmuch_message_get_property(m, "no.such.key", &value)), or_null(value));
}

static void find_by_filename(FILE *out, notmuch_database_t *db, const char *root)
{
    notmuch_query_t *q = everything(db, NOTMUCH_SORT_OLDEST_FIRST);
    notmuch_messages_t *ms = NULL;
    notmuch_message_t *m = NULL;
    char *file = NULL, *missing;
    notmuch_status_t st;

    CHECK(notmuch_query_search_messages(q, &ms));
    if (notmuch_messages_valid(ms))
        file = xstrdup(notmuch_message_get_filename(notmuch_messages_get(ms)));
    notmuch_query_destroy(q);
    if (file == NULL)
        return;
    st = notmuch_database_find_message_by_filename(db, file, &m);
    fprintf(out, "find_message_by_filename(oldest's file) = %s %s\n", notmuch_status_to_string(st),
            m ? notmuch_message_get_message_id(m) : "(none)");
    if (m)
        notmuch_message_destroy(m);
    missing = xmalloc(strlen(or_null(root)) + 32);
    sprintf(missing, "%s/no/such/file", or_null(root));
    m = NULL;
    st = notmuch_database_find_message_by_filename(db, missing, &m);
    fprintf(out, "find_message_by_filename(missing) = %s %s\n", notmuch_status_to_string(st), m ? "found" : "(none)");
    free(missing);
    free(file);
}

static int cmd_write(const char *config, const char *prefix)
{
    notmuch_database_t *db = open_db(config, NOTMUCH_DATABASE_MODE_READ_WRITE);
    const char *root = notmuch_config_get(db, NOTMUCH_CONFIG_MAIL_ROOT), *uuid = NULL;
    unsigned long before = notmuch_database_get_revision(db, &uuid), after;
    notmuch_message_t *m = (notmuch_message_t *) 1;
    notmuch_status_t st;

    printf("begin_atomic = %s\n", notmuch_status_to_string(notmuch_database_begin_atomic(db)));
    change(stdout, db, "from:user@example.org", 1000, add_mine, prefix, "add a tag");
    change(stdout, db, "tag:unread and date:2022..2023", 1000, mark_read, prefix, "remove and add");
    change(stdout, db, "*", 5, properties, prefix, "properties");
    change(stdout, db, "tag:replied", 3, reset_tags, prefix, "freeze, remove all, add, thaw");
    change(stdout, db, "tag:unread and not tag:flagged", 3, frozen_flags, prefix, "freeze, add, sync flags, thaw");
    change(stdout, db, "to:user@work.example.com", 2, delete, prefix, "exclude");
    change(stdout, db, "*", 1, misuse, prefix, "misuse");
    printf("end_atomic = %s\n", notmuch_status_to_string(notmuch_database_end_atomic(db)));
    printf("end_atomic again = %s\n", notmuch_status_to_string(notmuch_database_end_atomic(db)));
    st = notmuch_database_find_message(db, "no-such-id@example.org", &m);
    printf("find_message(missing) = %s %s\n", notmuch_status_to_string(st), m ? "found" : "(none)");
    find_by_filename(stdout, db, root);
    after = notmuch_database_get_revision(db, &uuid);
    printf("revision grew: %s\n", after > before ? "yes" : "no");
    CHECK(notmuch_database_close(db));
    CHECK(notmuch_database_destroy(db));
    return 0;
}

/* ---- walk bench ------------------------------------------------------------------------------ */

/* What the benchmark walk read: counts and bytes, printed at the end so that two libraries' walks
 * can be seen to have read the same. */
struct totals {
    unsigned long threads, messages, tags, files, bytes;
};

static void read_str(struct totals *t, const char *s)
{
    t->bytes += s ? strlen(s) : 0;
}

static void read_tags(struct totals *t, notmuch_tags_t *tags)
{
    for (; notmuch_tags_valid(tags); notmuch_tags_move_to_next(tags)) {
        read_str(t, notmuch_tags_get(tags));
        t->tags++;
    }
    notmuch_tags_destroy(tags);
}

/* Every message of '*' with its tags, the headers a client's list shows, and its file names. */
static void bench_messages(notmuch_database_t *db, struct totals *t)
{
    static const char *const headers[] = {"From", "To", "Subject", "Date"};
    notmuch_query_t *q = everything(db, NOTMUCH_SORT_NEWEST_FIRST);
    notmuch_messages_t *ms;

    CHECK(notmuch_query_search_messages(q, &ms));
    for (; notmuch_messages_valid(ms); notmuch_messages_move_to_next(ms)) {
        notmuch_message_t *m = notmuch_messages_get(ms);
        notmuch_filenames_t *fs = notmuch_message_get_filenames(m);

        t->messages++;
        read_str(t, notmuch_message_get_message_id(m));
        read_str(t, notmuch_message_get_thread_id(m));
        t->bytes += notmuch_message_get_date(m) > 0;
        for (size_t i = 0; i < sizeof headers / sizeof headers[0]; i++)
            read_str(t, notmuch_message_get_header(m, headers[i]));
        read_tags(t, notmuch_message_get_tags(m));
        for (; notmuch_filenames_valid(fs); notmuch_filenames_move_to_next(fs)) {
            read_str(t, notmuch_filenames_get(fs));
            t->files++;
        }
        notmuch_filenames_destroy(fs);
        notmuch_message_destroy(m);
    }
    notmuch_query_destroy(q);
}

/* Every thread of '*' with what a thread list shows, and each of its messages with its tags. */
static void bench_threads(notmuch_database_t *db, struct totals *t)
{
    notmuch_query_t *q = everything(db, NOTMUCH_SORT_NEWEST_FIRST);
    notmuch_threads_t *threads;

    CHECK(notmuch_query_search_threads(q, &threads));
    for (; notmuch_threads_valid(threads); notmuch_threads_move_to_next(threads)) {
        notmuch_thread_t *th = notmuch_threads_get(threads);
        notmuch_messages_t *ms = notmuch_thread_get_messages(th);

        t->threads++;
        read_str(t, notmuch_thread_get_thread_id(th));
        read_str(t, notmuch_thread_get_authors(th));
        read_str(t, notmuch_thread_get_subject(th));
        t->bytes += notmuch_thread_get_oldest_date(th) <= notmuch_thread_get_newest_date(th);
        t->bytes += (unsigned long) notmuch_thread_get_total_messages(th) +
                    (unsigned long) notmuch_thread_get_matched_messages(th);
        read_tags(t, notmuch_thread_get_tags(th));
        for (; notmuch_messages_valid(ms); notmuch_messages_move_to_next(ms)) {
            notmuch_message_t *m = notmuch_messages_get(ms);
            t->messages++;
            read_str(t, notmuch_message_get_message_id(m));
            read_tags(t, notmuch_message_get_tags(m));
        }
        notmuch_thread_destroy(th);
    }
    notmuch_query_destroy(q);
}

static int cmd_bench(const char *config, const char *what)
{
    struct totals t = {0};
    notmuch_database_t *db;

    if (strcmp(what, "open") && strcmp(what, "messages") && strcmp(what, "threads")) {
        fprintf(stderr, "walk: bench walks open, messages or threads, not '%s'\n", what);
        return 2;
    }
    db = open_db(config, NOTMUCH_DATABASE_MODE_READ_ONLY);
    if (strcmp(what, "messages") == 0)
        bench_messages(db, &t);
    else if (strcmp(what, "threads") == 0)
        bench_threads(db, &t);
    CHECK(notmuch_database_destroy(db));
    printf("threads %lu messages %lu tags %lu files %lu bytes %lu\n", t.threads, t.messages, t.tags, t.files,
           t.bytes);
    return 0;
}

/* notmuch_database_open_with_config on a path that is no store, with no config file (T360-symbol-
 * hiding's first step, without its Xapian half): the status, whether a database came back, and
 * whether a message did (its words are each library's own). */
static int cmd_open(const char *path)
{
    notmuch_database_t *db = (notmuch_database_t *) 1;
    char *msg = NULL;
    notmuch_status_t st = notmuch_database_open_with_config(path, NOTMUCH_DATABASE_MODE_READ_ONLY, "", NULL,
                                                            &db, &msg);

    printf("open: %s, database %s, message %s\n", notmuch_status_to_string(st), db ? "set" : "NULL",
           msg && *msg ? "given" : "none");
    if (msg)
        fprintf(stderr, "%s\n", msg);
    free(msg);
    if (db && st == NOTMUCH_STATUS_SUCCESS)
        notmuch_database_destroy(db);
    return 0;
}

int main(int argc, char **argv)
{
    int rc = 2;

    if (argc == 4 && strcmp(argv[1], "read") == 0)
        rc = cmd_read(argv[2], argv[3]);
    else if (argc == 4 && strcmp(argv[1], "write") == 0)
        rc = cmd_write(argv[2], argv[3]);
    else if (argc == 4 && strcmp(argv[1], "bench") == 0)
        rc = cmd_bench(argv[2], argv[3]);
    else if (argc == 3 && strcmp(argv[1], "open") == 0)
        rc = cmd_open(argv[2]);
    else
        fprintf(stderr, "usage: walk read CONFIG QUERIES | walk write CONFIG PREFIX | "
                        "walk bench CONFIG open|messages|threads | walk open PATH\n");
    for (size_t i = 0; i < names.n; i++) {
        free(names.v[i].id);
        free(names.v[i].name);
    }
    free(names.v);
    return rc;
}
