/* SPDX-License-Identifier: GPL-3.0-or-later */
/* `maildex search`: notmuch 0.37's search command (notmuch-search.c): --output=summary|threads|
 * messages|files|tags in text, text0, JSON or S-expressions, byte for byte as notmuch prints them
 * (notmuch-compat.md 2.3, 2.4). Results are printed as the library finds them. This file prints; the
 * query language, planning and thread summaries belong to lib/. */
#include "cli.h"
#include "print/relative-date.h"
#include "print/sprinter.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum output { OUTPUT_SUMMARY, OUTPUT_THREADS, OUTPUT_MESSAGES, OUTPUT_FILES, OUTPUT_TAGS };

struct search {
    struct cli *cli;
    struct sprinter *sp;
    maildex_query_t *q;
    enum output output;
    int sort, exclude, duplicate;
    int64_t found;
};

/* notmuch's sanitize_string for the text summary: tabs and newlines become spaces, other control
 * bytes '?'. */
static char *sanitize(void *ctx, const char *s)
{
    char *out = talloc_strdup(ctx, s ? s : "");

    for (char *p = out; p && *p; p++)
        if (*p == '\t' || *p == '\n')
            *p = ' ';
        else if ((unsigned char) *p < 32)
            *p = '?';
    return out;
}

static void print_summary(struct search *s, maildex_thread_t *t)
{
    struct sprinter *sp = s->sp;
    char id[17], date[64];
    const char *const *tags = maildex_thread_tags(t);
    const int matched = maildex_thread_matched(t), total = maildex_thread_total(t);
    const int files = maildex_thread_files(t);

    snprintf(id, sizeof id, "%016llx", (unsigned long long) maildex_thread_id(t));
    cli_relative_date(date, sizeof date, (time_t) maildex_thread_timestamp(t));
    sp->begin_map(sp);
    if (sp->is_text_printer) {
        void *local = talloc_new(s->cli->ctx);
        fprintf(s->cli->out, "thread:%s %12s ", id, date);
        if (files == total)
            fprintf(s->cli->out, "[%d/%d] %s; %s (", matched, total, sanitize(local, maildex_thread_authors(t)),
                   sanitize(local, maildex_thread_subject(t)));
        else
            fprintf(s->cli->out, "[%d/%d(%d)] %s; %s (", matched, total, files,
                   sanitize(local, maildex_thread_authors(t)), sanitize(local, maildex_thread_subject(t)));
        talloc_free(local);
    } else {
        sp->map_key(sp, "thread");
        sp->string(sp, id);
        sp->map_key(sp, "timestamp");
        sp->integer(sp, maildex_thread_timestamp(t));
        sp->map_key(sp, "date_relative");
        sp->string(sp, date);
        sp->map_key(sp, "matched");
        sp->integer(sp, matched);
        sp->map_key(sp, "total");
        sp->integer(sp, total);
        sp->map_key(sp, "authors");
        sp->string(sp, maildex_thread_authors(t));
        sp->map_key(sp, "subject");
        sp->string(sp, maildex_thread_subject(t));
        if (s->cli->format_version >= 2) {
            sp->map_key(sp, "query");
            sp->begin_list(sp);
            if (maildex_thread_matched_query(t))
                sp->string(sp, maildex_thread_matched_query(t));
            else
                sp->null(sp);
            if (maildex_thread_unmatched_query(t))
                sp->string(sp, maildex_thread_unmatched_query(t));
            else
                sp->null(sp);
            sp->end(sp);
        }
    }
    sp->map_key(sp, "tags");
    sp->begin_list(sp);
    for (const char *const *tag = tags; *tag; tag++) {
        if (sp->is_text_printer)
            fprintf(s->cli->out, "%s%s", tag == tags ? "" : " ", *tag);
        else
            sp->string(sp, *tag);
    }
    if (sp->is_text_printer)
        fprintf(s->cli->out, ")");
    sp->end(sp);
    sp->end(sp);
    sp->separator(sp);
}

static maildex_status_t search_threads(struct search *s)
{
    maildex_threads_t *it;
    maildex_thread_t *t;
    maildex_status_t st = maildex_query_search_threads(s->q, &it);

    while (st == MAILDEX_STATUS_OK && (st = maildex_threads_next(it, &t)) == MAILDEX_STATUS_OK && t) {
        s->found++;
        if (s->output == OUTPUT_THREADS) {
            char id[17];
            snprintf(id, sizeof id, "%016llx", (unsigned long long) maildex_thread_id(t));
            s->sp->set_prefix(s->sp, "thread");
            s->sp->string(s->sp, id);
            s->sp->separator(s->sp);
        } else {
            print_summary(s, t);
        }
    }
    return st;
}

static maildex_status_t print_message(struct search *s, maildex_message_t *m)
{
    const char *const *files;
    maildex_status_t st = maildex_message_files(m, &files);
    int n = 0;

    if (st != MAILDEX_STATUS_OK)
        return st;
    while (files[n])
        n++;
    if (s->output == OUTPUT_FILES) {
        for (int j = 1; j <= n; j++) {
            if (s->duplicate > 0 && s->duplicate != j)
                continue;
            s->sp->string(s->sp, files[j - 1]);
            s->sp->separator(s->sp);
        }
    } else if (s->duplicate <= 0 || n >= s->duplicate) {
        s->sp->set_prefix(s->sp, "id");
        s->sp->string(s->sp, maildex_message_id(m));
        s->sp->separator(s->sp);
    }
    return MAILDEX_STATUS_OK;
}

static maildex_status_t search_messages(struct search *s)
{
    maildex_messages_t *it;
    maildex_message_t *m;
    maildex_status_t st = maildex_query_search_messages(s->q, &it);

    while (st == MAILDEX_STATUS_OK && (st = maildex_messages_next(it, &m)) == MAILDEX_STATUS_OK && m) {
        s->found++;
        st = print_message(s, m);
    }
    return st;
}

static maildex_status_t search_tags(struct search *s)
{
    const char *const *tags;
    maildex_status_t st = maildex_query_tags(s->q, &tags);

    for (const char *const *t = tags; st == MAILDEX_STATUS_OK && *t; t++) {
        s->found++;
        s->sp->string(s->sp, *t);
        s->sp->separator(s->sp);
    }
    return st;
}

/* "Did you mean": only for a person at a terminal, never in structured output (notmuch.el treats any
 * stderr output as an error). */
static void suggest(struct search *s, const char *text, int format)
{
    char **words;

    if (s->found || format == SPRINTER_JSON || format == SPRINTER_SEXP || !isatty(fileno(s->cli->err)))
        return;
    char **tokens = g_strsplit(text, " ", -1);
    for (char **w = tokens; *w; w++) {
        bool plain = **w != '\0';
        for (const char *c = *w; *c; c++)
            plain &= g_ascii_isalpha(*c) || (unsigned char) *c >= 0x80;
        if (!plain || g_ascii_strcasecmp(*w, "and") == 0 || g_ascii_strcasecmp(*w, "or") == 0 ||
            g_ascii_strcasecmp(*w, "not") == 0 || g_ascii_strcasecmp(*w, "xor") == 0)
            continue;
        if (maildex_db_suggest(s->cli->db, *w, 3, &words) == MAILDEX_STATUS_OK && words && words[0]) {
            char *joined = g_strjoinv(", ", words);
            fprintf(s->cli->err, "maildex: no message contains '%s'; did you mean: %s?\n", *w, joined);
            g_free(joined);
        }
        maildex_strings_free(words);
    }
    g_strfreev(tokens);
}

/* A negative offset counts from the end (notmuch). */
static int resolve_offset(struct search *s, int offset, maildex_query_options_t *opts)
{
    uint64_t n = 0;
    maildex_status_t st;

    if (offset >= 0) {
        opts->offset = (uint64_t) offset;
        return 0;
    }
    st = s->output == OUTPUT_SUMMARY || s->output == OUTPUT_THREADS
             ? maildex_query_count_threads(s->q, &n)
             : maildex_query_count_messages(s->q, &n);
    if (st != MAILDEX_STATUS_OK)
        return cli_error(s->cli, "%s", maildex_db_errmsg(s->cli->db));
    opts->offset = (int64_t) n + offset < 0 ? 0 : (uint64_t) ((int64_t) n + offset);
    return 0;
}

int cmd_search(struct cli *cli, int argc, char **argv)
{
    static const struct keyword outputs[] = {{"summary", OUTPUT_SUMMARY}, {"threads", OUTPUT_THREADS},
                                             {"messages", OUTPUT_MESSAGES}, {"files", OUTPUT_FILES},
                                             {"tags", OUTPUT_TAGS}, {NULL, 0}};
    static const struct keyword sorts[] = {{"newest-first", MAILDEX_SORT_NEWEST_FIRST},
                                           {"oldest-first", MAILDEX_SORT_OLDEST_FIRST}, {NULL, 0}};
    static const struct keyword excludes[] = {{"true", MAILDEX_EXCLUDE_TRUE}, {"false", MAILDEX_EXCLUDE_FALSE},
                                              {"flag", MAILDEX_EXCLUDE_FLAG}, {"all", MAILDEX_EXCLUDE_ALL},
                                              {NULL, 0}};
    struct search s = {.cli = cli, .duplicate = -1};
    int format = SPRINTER_TEXT, limit = -1, offset = 0, rc;
    const struct option opts[] = {
        {OPT_KEYWORD, "output", &s.output, outputs, NULL, NULL},
        {OPT_KEYWORD, "format", &format, sprinter_format_keywords, NULL, NULL},
        {OPT_KEYWORD, "sort", &s.sort, sorts, NULL, NULL},
        {OPT_KEYWORD, "exclude", &s.exclude, excludes, NULL, NULL},
        {OPT_COUNT, "limit", &limit, NULL, NULL, NULL},
        {OPT_INT, "offset", &offset, NULL, NULL, NULL},
        {OPT_COUNT, "duplicate", &s.duplicate, NULL, NULL, NULL},
        {OPT_END, NULL, NULL, NULL, NULL, NULL},
    };
    maildex_query_options_t qopts = MAILDEX_QUERY_OPTIONS_INIT;
    maildex_status_t st = MAILDEX_STATUS_OK;
    int first = cli_start(cli, argc, argv, opts);
    char *text;

    if (first < 0)
        return -first;
    if ((text = cli_query_required(cli, argc - first, argv + first)) == NULL)
        return EXIT_FAILURE;
    if (s.exclude == MAILDEX_EXCLUDE_FLAG && s.output != OUTPUT_SUMMARY) {
        fprintf(cli->err, "Warning: this output format cannot flag excluded messages.\n");
        s.exclude = MAILDEX_EXCLUDE_FALSE;
    }
    qopts.sort = (maildex_sort_t) s.sort;
    qopts.exclude = (maildex_exclude_t) s.exclude;
    qopts.limit = limit;
    qopts.offset = offset > 0 ? (uint64_t) offset : 0;
    if ((rc = cli_query_create(cli, text, &qopts, &s.q)) != 0)
        return rc;
    if (offset < 0) { /* the query must be counted before it knows where to start */
        if ((rc = resolve_offset(&s, offset, &qopts)) != 0)
            return rc;
        maildex_query_destroy(s.q);
        if ((rc = cli_query_create(cli, text, &qopts, &s.q)) != 0)
            return rc;
    }
    s.sp = sprinter_create(cli->ctx, cli->out, (enum sprinter_format) format);
    s.sp->begin_list(s.sp);
    switch (s.output) {
    case OUTPUT_SUMMARY:
    case OUTPUT_THREADS: st = search_threads(&s); break;
    case OUTPUT_TAGS: st = search_tags(&s); break;
    default: st = search_messages(&s); break;
    }
    s.sp->end(s.sp);
    if (st != MAILDEX_STATUS_OK)
        return cli_error(cli, "%s", maildex_db_errmsg(cli->db));
    if (s.sp->error)
        return cli_error(cli, "%s", s.sp->error);
    suggest(&s, text, format);
    maildex_query_destroy(s.q);
    return EXIT_SUCCESS;
}
