/* SPDX-License-Identifier: GPL-3.0-or-later */
/* `maildex show`: notmuch 0.37's show command (notmuch-show.c): threads, or messages, of a query in
 * JSON, S-expressions, text, raw or mbox, nested as notmuch nests them (notmuch-compat.md 2.5). This
 * file reads the options, picks the mode (one message for --part, --duplicate and raw; threads; or
 * --unthreaded), walks the messages and hands each to its format's printer (show.h). One thread is in
 * memory at a time, freed before the next. --verify (implied by --decrypt=true) verifies signed
 * parts, --decrypt=true decrypts with the user's gpg-agent, --decrypt=auto with the session keys the
 * database keeps, and stash keeps the keys it finds and re-indexes those messages with their cleartext,
 * opening the database for writing only then. */
#include "cli.h"
#include "print/show.h"

#include <stdlib.h>
#include <string.h>

enum { FORMAT_UNSET, FORMAT_JSON, FORMAT_SEXP, FORMAT_TEXT, FORMAT_MBOX, FORMAT_RAW };

struct show_run {
    struct show s;
    show_message_fn *print;
    bool entire_thread, omit_excluded, unthreaded;
    int failed;
};

static int show_one(struct show_run *r, maildex_message_t *m, int indent)
{
    int rc = r->print(&r->s, m, indent);

    r->failed |= rc;
    return rc;
}

/* Whether show_messages prints m, or null in its place. */
static bool printed(const struct show_run *r, maildex_message_t *m)
{
    return (maildex_message_matched(m) && (!maildex_message_excluded(m) || !r->omit_excluded)) || r->entire_thread;
}

/* notmuch's show_messages: each message, or null where a non-matching one is left out, then its
 * replies one level deeper (when it was printed). */
static void show_messages(struct show_run *r, maildex_message_t *const *list, int indent)
{
    struct sprinter *sp = r->s.sp;

    sp->begin_list(sp);
    for (; *list; list++) {
        maildex_message_t *m = *list;
        int next = indent;
        sp->begin_list(sp);
        if (printed(r, m)) {
            show_one(r, m, indent);
            next = indent + 1;
        } else {
            sp->null(sp);
        }
        show_messages(r, maildex_message_replies(m), next);
        sp->end(sp);
    }
    sp->end(sp);
}

/* The messages show_messages will print, in its order (depth first), appended to order. */
static void printing_order(const struct show_run *r, maildex_message_t *const *list, GPtrArray *order)
{
    for (; *list; list++) {
        if (printed(r, *list))
            g_ptr_array_add(order, *list);
        printing_order(r, maildex_message_replies(*list), order);
    }
}

/* A thread's messages are parsed a few ahead on the second core while this one prints (maildex.h,
 * maildex_parts_prefetch_start); raw and mbox print single messages' bytes and parse nothing. A
 * read-ahead that cannot start leaves each message to be parsed as it is printed, which reports the
 * same failure where notmuch reports it. */
static void show_thread(struct show_run *r, maildex_message_t *const *top)
{
    maildex_parts_prefetch_t *ahead = NULL;

    if (r->print == show_structured_message || r->print == show_text_message) {
        GPtrArray *order = g_ptr_array_new();
        printing_order(r, top, order);
        (void) maildex_parts_prefetch_start((maildex_message_t *const *) order->pdata, order->len,
                                            r->s.duplicate, &r->s.popts, &ahead);
        g_ptr_array_free(order, TRUE);
    }
    show_messages(r, top, 0);
    maildex_parts_prefetch_free(ahead);
}

static maildex_status_t show_threads(struct show_run *r, maildex_query_t *q)
{
    maildex_threads_t *it;
    maildex_thread_t *t;
    maildex_message_t *const *top;
    maildex_status_t st = maildex_query_search_threads(q, &it);

    r->s.sp->begin_list(r->s.sp);
    while (st == MAILDEX_STATUS_OK && (st = maildex_threads_next(it, &t)) == MAILDEX_STATUS_OK && t)
        if ((st = maildex_thread_toplevel_messages(t, &top)) == MAILDEX_STATUS_OK)
            show_thread(r, top);
    r->s.sp->end(r->s.sp);
    return st;
}

static maildex_status_t show_unthreaded(struct show_run *r, maildex_query_t *q)
{
    struct sprinter *sp = r->s.sp;
    maildex_messages_t *it;
    maildex_message_t *m;
    maildex_status_t st = maildex_query_search_messages(q, &it);

    sp->begin_list(sp);
    while (st == MAILDEX_STATUS_OK && (st = maildex_messages_next(it, &m)) == MAILDEX_STATUS_OK && m) {
        sp->begin_list(sp);
        sp->begin_list(sp);
        if (!maildex_message_excluded(m) || !r->omit_excluded)
            show_one(r, m, 0);
        else
            sp->null(sp);
        sp->end(sp);
        sp->end(sp);
    }
    sp->end(sp);
    return st;
}

/* One message: the query must match exactly one (exclusions do not apply). */
static int show_single(struct show_run *r, maildex_query_t *q)
{
    struct cli *cli = r->s.cli;
    maildex_messages_t *it;
    maildex_message_t *m = NULL;
    uint64_t count = 0;

    if (maildex_query_count_messages(q, &count) != MAILDEX_STATUS_OK)
        return cli_error(cli, "%s", maildex_db_errmsg(cli->db));
    if (count != 1) {
        fprintf(cli->err, "Error: search term did not match precisely one message (matched %llu messages).\n",
                (unsigned long long) count);
        return EXIT_FAILURE;
    }
    if (maildex_query_search_messages(q, &it) != MAILDEX_STATUS_OK ||
        maildex_messages_next(it, &m) != MAILDEX_STATUS_OK)
        return cli_error(cli, "%s", maildex_db_errmsg(cli->db));
    if (m == NULL) {
        fprintf(cli->err, "Error: Cannot find matching message.\n");
        return EXIT_FAILURE;
    }
    return show_one(r, m, 0) ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* The printer of each format, and the structured printer beside it. */
static show_message_fn *format_printer(int format)
{
    switch (format) {
    case FORMAT_JSON:
    case FORMAT_SEXP: return show_structured_message;
    case FORMAT_RAW: return show_raw_message;
    case FORMAT_MBOX: return show_mbox_message;
    default: return show_text_message;
    }
}

/* notmuch's checks and defaults between the options, in its order; returns 0 or an exit status. */
static int settle_options(struct show_run *r, int *format, bool *single, bool entire_thread_set)
{
    bool structured;

    *single = r->s.part >= 0 || r->s.duplicate > 0;
    if (*format == FORMAT_UNSET)
        *format = r->s.part >= 0 ? FORMAT_RAW : FORMAT_TEXT;
    if (*format == FORMAT_MBOX && r->s.part > 0) {
        fprintf(r->s.cli->err, "Error: specifying parts is incompatible with mbox output format.\n");
        return EXIT_FAILURE;
    }
    *single |= *format == FORMAT_RAW;
    structured = *format == FORMAT_JSON || *format == FORMAT_SEXP;
    if (!entire_thread_set && structured)
        r->entire_thread = true;
    if (!r->s.body && r->s.part > 0) {
        fprintf(r->s.cli->err, "Warning: --body=false is incompatible with --part > 0. Disabling.\n");
        r->s.body = true;
    } else if (!r->s.body && !structured && *format != FORMAT_TEXT) {
        fprintf(r->s.cli->err, "Warning: --body=false only implemented for format=text, format=json and format=sexp\n");
    }
    if (r->s.include_html && !structured && *format != FORMAT_TEXT)
        fprintf(r->s.cli->err, "Warning: --include-html only implemented for format=text, format=json and format=sexp\n");
    return 0;
}

/* --decrypt=stash, after the output as notmuch does it after each message: the session keys found are
 * kept as "session-key" properties and each message they opened is re-indexed with its cleartext
 * (decrypt auto: with the keys just kept). Only now is the database opened for writing, so a show
 * that found no key never waits for a writer. Returns 0 or an exit status. */
static int stash_session_keys(struct cli *cli, GPtrArray *stashed)
{
    maildex_status_t st = MAILDEX_STATUS_OK;
    int rc;

    if (stashed->len == 0)
        return 0;
    cli_close_db(cli);
    if ((rc = cli_open_db(cli, MAILDEX_DB_READ_WRITE)) != 0)
        return rc;
    for (guint i = 0; i + 1 < stashed->len && st == MAILDEX_STATUS_OK; i += 2) {
        maildex_pair_t pair = {"session-key", stashed->pdata[i + 1]};
        st = maildex_db_set_properties(cli->db, stashed->pdata[i], &pair, 1, false);
        if (st == MAILDEX_STATUS_OK)
            st = maildex_db_reindex_message(cli->db, stashed->pdata[i], MAILDEX_DECRYPT_AUTO, NULL);
    }
    if (st != MAILDEX_STATUS_OK)
        return cli_error(cli, "cannot stash a session key: %s", maildex_db_errmsg(cli->db));
    return 0;
}

static struct sprinter *make_printer(void *ctx, FILE *out, int format)
{
    if (format == FORMAT_JSON)
        return sprinter_json_create(ctx, out);
    if (format == FORMAT_SEXP)
        return sprinter_sexp_create(ctx, out);
    return sprinter_text_create(ctx, out);
}

int cmd_show(struct cli *cli, int argc, char **argv)
{
    static const struct keyword formats[] = {{"json", FORMAT_JSON}, {"text", FORMAT_TEXT}, {"sexp", FORMAT_SEXP},
                                             {"mbox", FORMAT_MBOX}, {"raw", FORMAT_RAW}, {NULL, 0}};
    static const struct keyword sorts[] = {{"newest-first", MAILDEX_SORT_NEWEST_FIRST},
                                           {"oldest-first", MAILDEX_SORT_OLDEST_FIRST}, {NULL, 0}};
    /* A bare --decrypt means true: the first keyword. */
    static const struct keyword decrypts[] = {{"true", MAILDEX_DECRYPT_TRUE}, {"false", MAILDEX_DECRYPT_FALSE},
                                              {"auto", MAILDEX_DECRYPT_AUTO}, {"stash", MAILDEX_DECRYPT_STASH},
                                              {NULL, 0}};
    struct show_run r = {.s = {.cli = cli, .out = cli->out, .part = -1, .body = true}, .omit_excluded = true};
    int format = FORMAT_UNSET, sort = MAILDEX_SORT_NEWEST_FIRST, decrypt = MAILDEX_DECRYPT_AUTO, rc;
    bool exclude = true, entire_thread_set = false, single, verify = false;
    const struct option opts[] = {
        {OPT_KEYWORD, "format", &format, formats, NULL, NULL},
        {OPT_KEYWORD, "sort", &sort, sorts, NULL, NULL},
        {OPT_BOOL, "exclude", &exclude, NULL, NULL, NULL},
        {OPT_BOOL, "entire-thread", &r.entire_thread, NULL, NULL, &entire_thread_set},
        {OPT_BOOL, "unthreaded", &r.unthreaded, NULL, NULL, NULL},
        {OPT_COUNT, "part", &r.s.part, NULL, NULL, NULL},
        {OPT_KEYWORD, "decrypt", &decrypt, decrypts, NULL, NULL},
        {OPT_BOOL, "verify", &verify, NULL, NULL, NULL},
        {OPT_BOOL, "body", &r.s.body, NULL, NULL, NULL},
        {OPT_BOOL, "include-html", &r.s.include_html, NULL, NULL, NULL},
        {OPT_COUNT, "duplicate", &r.s.duplicate, NULL, NULL, NULL},
        {OPT_END, NULL, NULL, NULL, NULL, NULL},
    };
    maildex_query_options_t qopts = MAILDEX_QUERY_OPTIONS_INIT;
    maildex_query_t *q;
    maildex_status_t st = MAILDEX_STATUS_OK;
    int first = cli_start(cli, argc, argv, opts);
    char *text;

    if (first < 0)
        return -first;
    if ((rc = settle_options(&r, &format, &single, entire_thread_set)) != 0)
        return rc;
    if ((text = cli_query_required(cli, argc - first, argv + first)) == NULL)
        return EXIT_FAILURE;
    r.s.popts = (maildex_parts_options_t){
        .body = r.s.body, .include_html = r.s.include_html,
        .extra_headers = (const char *const *) config_get_list(cli->ctx, cli->config, "show.extra_headers"),
        .verify = verify || decrypt == MAILDEX_DECRYPT_TRUE || decrypt == MAILDEX_DECRYPT_STASH,
        .decrypt = (maildex_decrypt_t) decrypt};
    if (decrypt == MAILDEX_DECRYPT_STASH)
        r.s.stashed = g_ptr_array_new();
    r.print = format_printer(format);
    r.omit_excluded = exclude;
    qopts.sort = (maildex_sort_t) sort;
    /* A single message ignores search.exclude_tags; otherwise excluded messages are always flagged
     * and --exclude=false only stops them from hiding their threads. */
    qopts.exclude = single ? MAILDEX_EXCLUDE_FALSE : exclude ? MAILDEX_EXCLUDE_TRUE : MAILDEX_EXCLUDE_FLAG;
    if ((rc = cli_query_create(cli, text, &qopts, &q)) != 0)
        return rc;
    r.s.sp = make_printer(cli->ctx, cli->out, format);
    if (single)
        rc = show_single(&r, q);
    else if (r.unthreaded)
        st = show_unthreaded(&r, q);
    else
        st = show_threads(&r, q);
    if (st != MAILDEX_STATUS_OK)
        rc = cli_error(cli, "%s", maildex_db_errmsg(cli->db));
    else if (r.s.sp->error)
        rc = cli_error(cli, "%s", r.s.sp->error);
    maildex_query_destroy(q);
    if (rc == 0 && r.s.stashed)
        rc = stash_session_keys(cli, r.s.stashed);
    if (r.s.stashed)
        g_ptr_array_free(r.s.stashed, TRUE);
    return rc ? rc : r.failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
