/* SPDX-License-Identifier: GPL-3.0-or-later */
/* bench/work-counter: how much work a `--limit=50` query costs inside the library, without process
 * start-up, page-cache or scheduler noise. For each query and each database given it runs the query
 * through the public API (maildex.h) as `maildex search` does -- the newest 50 messages with their
 * tags, and the newest 50 thread summaries -- and reports the SQLite VM steps, the pages the query
 * asked the page cache for, and the wall time. Given two databases of different sizes it prints the
 * growth, which is the point: a query that streams an index in key order and stops at the limit does
 * the same work at 10k and 100k messages.
 *
 * VM steps are not in the public API and nothing is added to it for this: the program links the
 * internal library (as the unit tests do) only to reach the connection (struct maildex_db). Every
 * statement the query runs is counted: a SQLITE_TRACE_PROFILE hook collects a statement's steps when
 * it is reset or finalized (planner look-ups, FTS5's own statements), and a sweep of the connection's
 * statements collects the rest. FTS5 reads its index through blob handles, which run no VM steps;
 * the page count covers those. It must not write to the database (it opens it read-only). */
#include "store/maildex-private.h"
#include "store/vm-steps.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* The queries of bench/run's search phases, by the kind of index that answers them. */
static const char *const default_queries[] = {
    "*",
    "tag:unread",
    "folder:lists/dev",
    "date:2023-01-01..2023-06-30",
    "from:user@example.org",
    "meeting",
    "meeting and tag:unread",
    NULL,
};

/* search.exclude_tags of bench/run's config, as `maildex search` would pass them. */
static const char *const exclude_tags[] = {"deleted", "spam", NULL};

enum mode { MODE_MESSAGES, MODE_THREADS };
static const char *const mode_names[] = {"messages", "threads"};

struct options {
    int runs;
    int limit;
    int json;
    const char *const *queries; /* NULL-terminated */
    const char **dbs;     /* NULL-terminated */
};

struct measure {
    int64_t results;
    int64_t shown; /* messages the output describes: each thread summary covers all its messages */
    uint64_t vm_steps;
    uint64_t pages;
    double median_us, min_us, max_us;
};

struct opened {
    const char *name;
    maildex_db_t *db;
    uint64_t messages;
};

/* ---- counting -------------------------------------------------------------------------------------- */

/* Page-cache requests since the last call (hits + misses), zeroing the counters. */
static uint64_t take_pages(sqlite3 *sql)
{
    int hit = 0, miss = 0, hi = 0;

    sqlite3_db_status(sql, SQLITE_DBSTATUS_CACHE_HIT, &hit, &hi, 1);
    sqlite3_db_status(sql, SQLITE_DBSTATUS_CACHE_MISS, &miss, &hi, 1);
    return (uint64_t) hit + (uint64_t) miss;
}

static double now_us(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec * 1e6 + (double) ts.tv_nsec / 1e3;
}

/* ---- one query ------------------------------------------------------------------------------------- */

/* Runs text once as `maildex search` would (mode), reading every field it prints; sets *results and
 * *shown. */
static maildex_status_t run_once(maildex_db_t *db, const char *text, enum mode mode, int limit,
                                 int64_t *results, int64_t *shown)
{
    maildex_query_options_t opts = MAILDEX_QUERY_OPTIONS_INIT;
    maildex_query_t *q = NULL;
    maildex_status_t st;
    int64_t n = 0, members = 0;

    opts.limit = limit;
    opts.exclude_tags = exclude_tags;
    st = maildex_query_create(db, text, &opts, &q);
    if (st != MAILDEX_STATUS_OK)
        goto done;
    if (mode == MODE_MESSAGES) {
        maildex_messages_t *it = NULL;
        maildex_message_t *m = NULL;
        const char *const *tags;

        st = maildex_query_search_messages(q, &it);
        while (st == MAILDEX_STATUS_OK && (st = maildex_messages_next(it, &m)) == MAILDEX_STATUS_OK && m) {
            st = maildex_message_tags(m, &tags);
            n++;
        }
        members = n;
    } else {
        maildex_threads_t *it = NULL;
        maildex_thread_t *t = NULL;

        st = maildex_query_search_threads(q, &it);
        while (st == MAILDEX_STATUS_OK && (st = maildex_threads_next(it, &t)) == MAILDEX_STATUS_OK && t) {
            n++;
            members += maildex_thread_total(t);
        }
    }
done:
    maildex_query_destroy(q);
    *results = n;
    *shown = members;
    return st;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

/* One counted run (with the trace hook on), then opts->runs timed runs without it. */
static maildex_status_t measure_query(maildex_db_t *db, const struct options *opts, const char *text,
                                      enum mode mode, struct measure *out)
{
    sqlite3 *sql = db->sql;
    int64_t steps = 0;
    double *times = talloc_array(NULL, double, opts->runs);
    maildex_status_t st;

    memset(out, 0, sizeof *out);
    if (times == NULL)
        return MAILDEX_STATUS_NO_MEMORY;
    st = run_once(db, text, mode, opts->limit, &out->results, &out->shown); /* warm the cache */
    if (st != MAILDEX_STATUS_OK)
        goto done;
    maildex__vm_steps_sweep(sql);
    take_pages(sql);
    sqlite3_trace_v2(sql, SQLITE_TRACE_PROFILE, maildex__vm_steps_finished, &steps);
    st = run_once(db, text, mode, opts->limit, &out->results, &out->shown);
    sqlite3_trace_v2(sql, 0, NULL, NULL);
    out->vm_steps = (uint64_t) (steps + maildex__vm_steps_sweep(sql));
    out->pages = take_pages(sql);
    for (int i = 0; st == MAILDEX_STATUS_OK && i < opts->runs; i++) {
        int64_t ignored, ignored_too;
        const double t0 = now_us();
        st = run_once(db, text, mode, opts->limit, &ignored, &ignored_too);
        times[i] = now_us() - t0;
    }
    if (st == MAILDEX_STATUS_OK) {
        qsort(times, (size_t) opts->runs, sizeof *times, cmp_double);
        out->min_us = times[0];
        out->max_us = times[opts->runs - 1];
        out->median_us = opts->runs % 2 ? times[opts->runs / 2]
                                        : (times[opts->runs / 2 - 1] + times[opts->runs / 2]) / 2;
    }
done:
    talloc_free(times);
    return st;
}

/* ---- output ---------------------------------------------------------------------------------------- */

static void print_json_string(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        const unsigned char c = (unsigned char) *s;
        if (c == '"' || c == '\\')
            printf("\\%c", c);
        else if (c < 0x20)
            printf("\\u%04x", c);
        else
            putchar(c);
    }
    putchar('"');
}

static void print_json(const struct opened *o, const char *query, enum mode mode, const struct measure *m)
{
    printf("{\"db\": ");
    print_json_string(o->name);
    printf(", \"messages\": %llu, \"query\": ", (unsigned long long) o->messages);
    print_json_string(query);
    printf(", \"mode\": \"%s\", \"results\": %lld, \"shown\": %lld, \"vm_steps\": %llu, "
           "\"pages\": %llu, \"median_us\": %.1f, \"min_us\": %.1f, \"max_us\": %.1f}\n",
           mode_names[mode], (long long) m->results, (long long) m->shown,
           (unsigned long long) m->vm_steps,
           (unsigned long long) m->pages, m->median_us, m->min_us, m->max_us);
}

static void print_header(const struct opened *dbs, int ndbs)
{
    printf("%-32s %-8s", "query (limit 50)", "mode");
    for (int i = 0; i < ndbs; i++)
        printf(" | %7s %6s %9s %7s %9s", "results", "shown", "vm_steps", "pages", "median_us");
    if (ndbs == 2)
        printf(" | %6s %6s %6s %6s", "steps", "/shown", "pages", "time");
    printf("\n%-41s", "");
    for (int i = 0; i < ndbs; i++) {
        char scale[64];
        snprintf(scale, sizeof scale, "%llu messages", (unsigned long long) dbs[i].messages);
        printf(" | %-43s", scale);
    }
    if (ndbs == 2)
        printf(" | growth (second / first)");
    printf("\n");
}

static double ratio(double a, double b)
{
    return b > 0 ? a / b : 0;
}

/* VM steps per message the output describes: a thread summary's cost follows its thread's size. */
static double steps_per_shown(const struct measure *m)
{
    return ratio((double) m->vm_steps, (double) (m->shown > 0 ? m->shown : 1));
}

struct worst {
    double steps, per_shown;
    const char *steps_query, *per_shown_query;
    enum mode steps_mode, per_shown_mode;
};

static void print_row(const char *query, enum mode mode, const struct measure *m, int ndbs,
                      struct worst *w)
{
    printf("%-32.32s %-8s", query, mode_names[mode]);
    for (int i = 0; i < ndbs; i++)
        printf(" | %7lld %6lld %9llu %7llu %9.0f", (long long) m[i].results, (long long) m[i].shown,
               (unsigned long long) m[i].vm_steps, (unsigned long long) m[i].pages, m[i].median_us);
    if (ndbs == 2) {
        const double steps = ratio((double) m[1].vm_steps, (double) m[0].vm_steps);
        const double per_shown = ratio(steps_per_shown(&m[1]), steps_per_shown(&m[0]));
        printf(" | %5.2fx %5.2fx %5.2fx %5.2fx", steps, per_shown,
               ratio((double) m[1].pages, (double) m[0].pages), ratio(m[1].median_us, m[0].median_us));
        if (steps > w->steps) {
            w->steps = steps;
            w->steps_query = query;
            w->steps_mode = mode;
        }
        if (per_shown > w->per_shown) {
            w->per_shown = per_shown;
            w->per_shown_query = query;
            w->per_shown_mode = mode;
        }
    }
    printf("\n");
}

static void print_verdict(const struct worst *w)
{
    if (w->steps_query == NULL)
        return;
    printf("\nlargest growth of VM steps: %.2fx (%s, %s); of VM steps per message shown: %.2fx (%s, "
           "%s)\n",
           w->steps, w->steps_query, mode_names[w->steps_mode], w->per_shown, w->per_shown_query,
           mode_names[w->per_shown_mode]);
}

/* ---- main ------------------------------------------------------------------------------------------ */

static int usage(FILE *f, int code)
{
    fprintf(f, "Usage: work-counter [--runs=N] [--limit=N] [--json] [--query=TEXT]... DB...\n"
               "DB is a maildex.db file or the directory holding it. With two databases the table shows\n"
               "the growth from the first to the second. Default queries: the search phases of bench/run.\n");
    return code;
}

static int parse_int(const char *s, int min, int *out)
{
    char *end;
    long v;

    errno = 0;
    v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < min || v > 1000000)
        return -1;
    *out = (int) v;
    return 0;
}

static int parse_args(void *ctx, int argc, char **argv, struct options *o)
{
    const char **queries = talloc_zero_array(ctx, const char *, argc + 1);
    int nq = 0, ndb = 0;

    o->runs = 11;
    o->limit = 50;
    o->queries = queries;
    o->dbs = talloc_zero_array(ctx, const char *, argc + 1);
    if (queries == NULL || o->dbs == NULL)
        return -1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strncmp(a, "--runs=", 7) == 0) {
            if (parse_int(a + 7, 1, &o->runs) < 0)
                return -1;
        } else if (strncmp(a, "--limit=", 8) == 0) {
            if (parse_int(a + 8, 1, &o->limit) < 0)
                return -1;
        } else if (strncmp(a, "--query=", 8) == 0) {
            queries[nq++] = a + 8;
        } else if (strcmp(a, "--json") == 0) {
            o->json = 1;
        } else if (a[0] == '-') {
            return -1;
        } else {
            o->dbs[ndb++] = a;
        }
    }
    if (nq == 0)
        o->queries = default_queries;
    return ndb > 0 ? 0 : -1;
}

/* A directory means the maildex.db inside it (bench/run's db-N-seedS/maildex/). */
static maildex_status_t open_db(void *ctx, const char *arg, struct opened *o)
{
    struct stat sb;
    const char *path = arg;
    char *err = NULL;
    maildex_status_t st;
    maildex_query_t *all = NULL;

    o->name = arg;
    if (stat(arg, &sb) == 0 && S_ISDIR(sb.st_mode))
        path = talloc_asprintf(ctx, "%s/maildex.db", arg);
    /* The mail root only prefixes file names, which no query here asks for. */
    st = maildex_db_open(path, "/", MAILDEX_DB_READ_ONLY, &o->db, &err);
    if (st != MAILDEX_STATUS_OK) {
        fprintf(stderr, "work-counter: %s\n", err ? err : maildex_status_to_string(st));
        free(err);
        return st;
    }
    st = maildex_query_create(o->db, "*", NULL, &all);
    if (st == MAILDEX_STATUS_OK)
        st = maildex_query_count_messages(all, &o->messages);
    maildex_query_destroy(all);
    if (st != MAILDEX_STATUS_OK)
        fprintf(stderr, "work-counter: %s: %s\n", arg, maildex_db_errmsg(o->db));
    return st;
}

int main(int argc, char **argv)
{
    void *ctx = talloc_new(NULL);
    struct options opts = {0};
    struct opened *dbs = NULL;
    struct measure *m = NULL;
    struct worst worst = {0};
    int ndbs = 0, ret = EXIT_FAILURE;

    if (argc == 2 && strcmp(argv[1], "--help") == 0) {
        ret = usage(stdout, EXIT_SUCCESS);
        goto done;
    }
    if (parse_args(ctx, argc, argv, &opts) < 0) {
        ret = usage(stderr, EXIT_FAILURE);
        goto done;
    }
    while (opts.dbs[ndbs])
        ndbs++;
    dbs = talloc_zero_array(ctx, struct opened, ndbs);
    m = talloc_zero_array(ctx, struct measure, ndbs);
    if (dbs == NULL || m == NULL)
        goto done;
    for (int i = 0; i < ndbs; i++)
        if (open_db(ctx, opts.dbs[i], &dbs[i]) != MAILDEX_STATUS_OK)
            goto done;
    if (!opts.json)
        print_header(dbs, ndbs);
    for (const char *const *q = opts.queries; *q; q++) {
        for (int mode = MODE_MESSAGES; mode <= MODE_THREADS; mode++) {
            for (int i = 0; i < ndbs; i++) {
                if (measure_query(dbs[i].db, &opts, *q, (enum mode) mode, &m[i]) != MAILDEX_STATUS_OK) {
                    fprintf(stderr, "work-counter: %s: query '%s': %s\n", dbs[i].name, *q,
                            maildex_db_errmsg(dbs[i].db));
                    goto done;
                }
                if (opts.json)
                    print_json(&dbs[i], *q, (enum mode) mode, &m[i]);
            }
            if (!opts.json)
                print_row(*q, (enum mode) mode, m, ndbs, &worst);
        }
    }
    if (!opts.json)
        print_verdict(&worst);
    ret = EXIT_SUCCESS;
done:
    for (int i = 0; dbs && i < ndbs; i++)
        maildex_db_close(dbs[i].db);
    talloc_free(ctx);
    return ret;
}
