/* SPDX-License-Identifier: GPL-3.0-or-later */
/* `maildex purge`: the mail a query matches (default: the config's purge.query, else tag:deleted;
 * excluded tags do not apply) removed from the disk and the store, or moved into a folder, by
 * maildex_purge(), which keeps it safe (lib/maildex.h). This file plans first on a read-only handle
 * (a dry run of the library) and says what would go; --dry-run stops there, listing the files; a
 * purge happens only with --yes or a "y" typed at a terminal (never asked when stdin or stdout is
 * not one: inside `server` it never is), after the pre-purge hook, on a handle opened for writing
 * only then. What it prints goes through the printer (cli/print/purge-report.c). */
#include "cli.h"
#include "base/cancel-signals.h"
#include "base/hooks.h"
#include "print/purge-report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* AGE as seconds: a number and a unit (s, min, h, d, w, mo, y, or their English names; a number
 * alone counts days), e.g. 30d, 2w, 6months. -1 when it is none of these. */
static int64_t parse_age(const char *age)
{
    static const struct {
        const char *const names[4];
        int64_t seconds;
    } units[] = {
        {{"s", "sec", "second", "seconds"}, 1},  {{"min", "mins", "minute", "minutes"}, 60},
        {{"h", "hour", "hours", NULL}, 3600},     {{"d", "", "day", "days"}, 86400},
        {{"w", "week", "weeks", NULL}, 604800},  {{"mo", "month", "months", NULL}, 2629746},
        {{"y", "year", "years", NULL}, 31556952},
    };
    char *end;
    long long n = strtoll(age, &end, 10);

    if (end == age || n < 0 || n > 1000000)
        return -1;
    for (size_t i = 0; i < G_N_ELEMENTS(units); i++)
        for (size_t k = 0; k < 4 && units[i].names[k]; k++)
            if (strcmp(end, units[i].names[k]) == 0)
                return n * units[i].seconds;
    return -1;
}

/* A "y" typed at the terminal, when both ends of the command are one. */
static bool confirmed(struct cli *cli, const char *what)
{
    char answer[16] = "";

    if (!cli->own_process || !isatty(fileno(cli->in)) || !isatty(fileno(cli->out)))
        return false;
    fprintf(cli->out, "%s them? [y/N] ", what);
    fflush(cli->out);
    return fgets(answer, sizeof answer, cli->in) && (answer[0] == 'y' || answer[0] == 'Y');
}

/* Runs the library's purge (a dry run or the real one) of pc's query on cli->db. */
static int run(struct purge_report *pr, maildex_purge_options_t *o, maildex_purge_stats_t *stats)
{
    maildex_query_options_t qo = MAILDEX_QUERY_OPTIONS_INIT;
    maildex_query_t *q;
    maildex_status_t st;
    int rc;

    qo.exclude = MAILDEX_EXCLUDE_FALSE; /* a purge does what it was told: tag:deleted is excluded */
    if ((rc = cli_query_create(pr->cli, pr->query, &qo, &q)) != 0)
        return rc;
    o->file = purge_report_file;
    o->data = pr;
    st = maildex_purge(q, o, stats);
    maildex_query_destroy(q);
    if (st != MAILDEX_STATUS_OK && st != MAILDEX_STATUS_INTERRUPTED)
        return cli_error(pr->cli, "%s", maildex_db_errmsg(pr->cli->db));
    if (st == MAILDEX_STATUS_INTERRUPTED)
        cli_error(pr->cli, "%s", maildex_db_errmsg(pr->cli->db));
    return st == MAILDEX_STATUS_OK ? 0 : 1;
}

/* The purge itself: the hook, the database for writing, the library, the report. */
static int purge(struct purge_report *pr, maildex_purge_options_t *o, bool hooks)
{
    struct cli *cli = pr->cli;
    maildex_purge_stats_t stats;
    int rc;

    cli_close_db(cli);
    if (hooks && (rc = hook_run(cli, "pre-purge")) != 0)
        return rc;
    if ((rc = cli_open_db(cli, MAILDEX_DB_READ_WRITE)) != 0)
        return rc;
    if (cli->own_process) /* in `server`, a request's cancel does it */
        cancel_signals_start(cli->db);
    o->dry_run = false;
    pr->done = true;
    rc = run(pr, o, &stats);
    if (cli->own_process)
        cancel_signals_stop();
    if (rc == 0 || stats.messages + stats.messages_kept > 0)
        purge_report_print(pr, &stats);
    return rc ? rc : stats.files_failed > 0;
}

int cmd_purge(struct cli *cli, int argc, char **argv)
{
    struct purge_report pr = {.cli = cli};
    const char *older_than = NULL;
    bool yes = false, no_hooks = false;
    const struct option opts[] = {
        {OPT_BOOL, "dry-run", &pr.dry_run, NULL, NULL, NULL},
        {OPT_BOOL, "yes", &yes, NULL, NULL, NULL},
        {OPT_STRING, "older-than", &older_than, NULL, NULL, NULL},
        {OPT_STRING, "to-folder", &pr.to_folder, NULL, NULL, NULL},
        {OPT_KEYWORD, "format", &pr.format, purge_report_formats, NULL, NULL},
        {OPT_BOOL, "no-hooks", &no_hooks, NULL, NULL, NULL},
        {OPT_END, NULL, NULL, NULL, NULL, NULL},
    };
    maildex_purge_options_t o = {0};
    maildex_purge_stats_t plan;
    int first = cli_start(cli, argc, argv, opts), rc;

    if (first < 0)
        return -first;
    if (older_than && (o.older_than = parse_age(older_than)) < 0)
        return cli_error(cli, "cannot read --older-than='%s': give a number and a unit, e.g. 30d, "
                              "2w, 6months", older_than);
    pr.query = cli_query_string(cli->ctx, argc - first, argv + first);
    if (*pr.query == '\0') { /* the config's query is infix, whatever --query says */
        pr.query = config_get(cli->ctx, cli->config, "purge.query");
        pr.query = pr.query && *pr.query ? pr.query : "tag:deleted";
        cli->query_syntax = MAILDEX_QUERY_INFIX;
    }
    o.to_folder = pr.to_folder;
    o.dry_run = true;
    if ((rc = purge_report_start(&pr)) != 0 || (rc = cli_open_db(cli, MAILDEX_DB_READ_ONLY)) != 0 ||
        (rc = run(&pr, &o, &plan)) != 0)
        return rc;
    /* Text says what it will do, then what it did; JSON and sexp print one map, the last. */
    if (pr.format == SPRINTER_TEXT || pr.dry_run || plan.messages + plan.messages_kept == 0 || !yes)
        purge_report_print(&pr, &plan);
    if (pr.dry_run || plan.messages + plan.messages_kept == 0)
        return 0;
    if (plan.messages == 0) { /* nothing can go: the plan is the report */
        purge_report_held(&pr);
        return 1;
    }
    if (!yes && !confirmed(cli, pr.to_folder ? "Move" : "Remove"))
        return cli_error(cli, "nothing was %s: run it with --yes to purge (--dry-run lists the files)",
                         pr.to_folder ? "moved" : "removed");
    return purge(&pr, &o, !no_hooks);
}
