/* SPDX-License-Identifier: GPL-3.0-or-later */
/* `maildex new`: run the pre-new hook, index the mail root (maildex_index), carry a notmuch user's
 * tags over on a store's first run (base/notmuch-import.c), report as notmuch does (--debug: the
 * run's decisions, in notmuch's words), run the post-new hook. The database is open for writing only
 * between the two hooks, so post-new sees the imported tags. */
#include "cli.h"
#include "base/cancel-signals.h"
#include "base/hooks.h"
#include "base/notmuch-import.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define EXIT_TEMPFAIL 75 /* sysexits.h's EX_TEMPFAIL: files vanished or could not be read */

struct reporter {
    struct cli *cli;
    bool verbose, quiet, tty, debug;
    bool counting; /* notmuch counts the files of a database that has no message yet, and says so */
    gint64 started, last_progress;
};

static void on_warning(void *data, const char *path, const char *reason)
{
    struct reporter *rep = data;

    fprintf(rep->cli->err, "maildex new: '%s': %s\n", path, reason);
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* A directory or file gone: notmuch "passed" its name in its merge of the listing with the database,
 * or it was "leftover" after the listing's last name. */
static void print_gone(FILE *out, const maildex_index_event_t *e, const char *what)
{
    fprintf(out, "(D) add_files, pass %d: queuing %s %s %s for deletion from database\n",
           e->sorts_last ? 3 : 2, e->sorts_last ? "leftover" : "passed", what, e->path);
}

static void on_event(void *data, const maildex_index_event_t *e)
{
    struct reporter *rep = data;

    switch (e->kind) {
    case MAILDEX_INDEX_IGNORED:
        /* notmuch passes over a changed directory twice (descending, then diffing) and reports an
         * ignored entry in each pass; maildex lists it once and prints both lines. Its first count
         * passes over every .notmuch before it looks at new.ignore. */
        if (rep->debug && rep->counting && strcmp(base_name(e->path), ".notmuch") != 0)
            fprintf(rep->cli->out, "(D) count_files: explicitly ignoring %s\n", e->path);
        if (rep->debug)
            fprintf(rep->cli->out, "(D) add_files, pass 1: explicitly ignoring %s\n", e->path);
        if (rep->debug && e->listed)
            fprintf(rep->cli->out, "(D) add_files, pass 2: explicitly ignoring %s\n", e->path);
        break;
    case MAILDEX_INDEX_FILE_GONE:
        if (rep->debug)
            print_gone(rep->cli->out, e, "file");
        break;
    case MAILDEX_INDEX_DIR_GONE:
        if (rep->debug)
            print_gone(rep->cli->out, e, "directory");
        break;
    case MAILDEX_INDEX_DANGLING:
        fprintf(rep->cli->err, "Error reading file %s: %s\n", e->path, strerror(ENOENT));
        break;
    case MAILDEX_INDEX_VANISHED:
        fprintf(rep->cli->err,
                "Unexpected error with file %s\n"
                "add_file: Something went wrong trying to read or write a file\n"
                "Error opening %s: %s\n",
                e->path, e->path, strerror(ENOENT));
        break;
    }
}

static void on_not_mail(void *data, const char *path)
{
    struct reporter *rep = data;
    if (!rep->quiet)
        fprintf(rep->cli->err, "Note: Ignoring non-mail file: %s\n", path);
}

static void on_progress(void *data, const maildex_index_stats_t *stats, uint64_t done,
                        uint64_t total, const char *path)
{
    struct reporter *rep = data;
    gint64 now;
    double secs, rate;

    (void) stats;
    if (rep->verbose) {
        fprintf(rep->cli->out, "%s%" PRIu64 "/%" PRIu64 ": %s\n", rep->tty ? "\r\033[K" : "", done, total, path);
        return;
    }
    if (!rep->tty || rep->quiet)
        return;
    now = g_get_monotonic_time();
    if (now - rep->last_progress < 500000)
        return;
    rep->last_progress = now;
    secs = (now - rep->started) / 1e6;
    rate = secs > 0 ? done / secs : 0;
    fprintf(rep->cli->err, "\r\033[K%" PRIu64 "/%" PRIu64 " files (%.0f files/s, %.0fs left)", done, total,
            rate, rate > 0 && total > done ? (total - done) / rate : 0.0);
}

static void print_elapsed(FILE *out, double seconds)
{
    int hours, minutes;

    if (seconds < 1) {
        fprintf(out, "almost no time");
        return;
    }
    if (seconds > 3600) {
        hours = (int) seconds / 3600;
        fprintf(out, "%dh ", hours);
        seconds -= hours * 3600;
    }
    if (seconds > 60) {
        minutes = (int) seconds / 60;
        fprintf(out, "%dm ", minutes);
        seconds -= minutes * 60;
    }
    fprintf(out, "%ds", (int) seconds);
}

static void report(FILE *out, const maildex_index_stats_t *s, bool first_run, double elapsed)
{
    if (first_run)
        fprintf(out, "Found %" PRIu64 " total files (that's not much mail).\n", s->files_found);
    if (s->files_processed) {
        fprintf(out, "Processed %" PRIu64 " %s in ", s->files_processed,
               s->files_processed == 1 ? "file" : "total files");
        print_elapsed(out, elapsed);
        if (elapsed > 1)
            fprintf(out, " (%d files/sec.)", (int) (s->files_processed / elapsed));
        fprintf(out, ".\n");
    }
    if (s->messages_added)
        fprintf(out, "Added %" PRIu64 " new %s to the database.", s->messages_added,
               s->messages_added == 1 ? "message" : "messages");
    else
        fprintf(out, "No new mail.");
    if (s->messages_removed)
        fprintf(out, " Removed %" PRIu64 " %s.", s->messages_removed,
               s->messages_removed == 1 ? "message" : "messages");
    if (s->renames)
        fprintf(out, " Detected %" PRIu64 " file %s.", s->renames, s->renames == 1 ? "rename" : "renames");
    fprintf(out, "\n");
}

/* After the report: what could not be done, and notmuch's status for a run that finished: 1 when
 * something that may hold mail could not be read (an unreadable directory, a symlink to nothing:
 * post-new does not run), else the post-new hook's, else 75 (EX_TEMPFAIL) when files vanished or
 * could not be read. */
static int finish(struct cli *cli, const maildex_index_stats_t *stats, bool hooks)
{
    int rc;

    if (stats->dangling_symlinks)
        fprintf(cli->err, "Note: A fatal error was encountered: "
                        "Something went wrong trying to read or write a file\n");
    if (stats->removals_held)
        fprintf(cli->err,
                "maildex new: kept %" PRIu64 " %s whose files are gone: some mail could not be "
                "read, and %s may have moved there\n",
                stats->removals_held, stats->removals_held == 1 ? "message" : "messages",
                stats->removals_held == 1 ? "it" : "they");
    if (stats->directories_unreadable || stats->dangling_symlinks)
        return EXIT_FAILURE;
    if (hooks && (rc = hook_run(cli, "post-new")) != 0)
        return rc;
    return stats->files_vanished || stats->files_unreadable ? EXIT_TEMPFAIL : EXIT_SUCCESS;
}

int cmd_new(struct cli *cli, int argc, char **argv)
{
    bool quiet = false, verbose = false, no_hooks = false, full_scan = false, decrypt_given = false;
    bool debug = false;
    int decrypt = MAILDEX_DECRYPT_AUTO;
    const struct option opts[] = {
        {OPT_BOOL, "quiet", &quiet, NULL, NULL, NULL},
        {OPT_BOOL, "verbose", &verbose, NULL, NULL, NULL},
        {OPT_BOOL, "debug", &debug, NULL, NULL, NULL},
        {OPT_BOOL, "no-hooks", &no_hooks, NULL, NULL, NULL},
        {OPT_BOOL, "full-scan", &full_scan, NULL, NULL, NULL},
        {OPT_KEYWORD, "decrypt", &decrypt, cli_index_decrypt_keywords, NULL, &decrypt_given},
        {OPT_END, NULL, NULL, NULL, NULL, NULL},
    };
    struct reporter rep = {0};
    struct notmuch_import imp = {0};
    maildex_index_options_t io = {0};
    maildex_index_stats_t stats;
    maildex_status_t st;
    uint64_t revision = 1;
    char *error;
    int first = cli_start(cli, argc, argv, opts), rc;

    if (first < 0)
        return -first;
    if (first < argc)
        return cli_error(cli, "unexpected argument '%s'", argv[first]);
    if (config_get_bool(cli->ctx, cli->config, "maildir.synchronize_flags", true,
                        &io.synchronize_flags, &error) != 0)
        return cli_error(cli, "%s", error);
    io.new_tags = (const char *const *) config_get_list(cli->ctx, cli->config, "new.tags");
    if ((rc = cli_check_new_tags(cli, io.new_tags)) != 0)
        return rc;
    if (!no_hooks && (rc = hook_run(cli, "pre-new")) != 0)
        return rc;
    if ((rc = cli_open_db(cli, MAILDEX_DB_CREATE)) != 0)
        return rc;

    if (cli->own_process) /* in `server`, a request's cancel does it */
        cancel_signals_start(cli->db);
    rep.cli = cli;
    rep.quiet = quiet;
    rep.verbose = verbose && !quiet;
    rep.debug = debug;
    /* notmuch's test for its first count: a database no message was ever written to */
    rep.counting = debug && maildex_db_revision(cli->db, NULL, &revision) == MAILDEX_STATUS_OK &&
                   revision == 0;
    if (rep.verbose) /* one line per file, seen as it happens even through a pipe */
        setvbuf(cli->out, NULL, _IOLBF, 0);
    rep.tty = isatty(fileno(cli->err));
    rep.started = rep.last_progress = g_get_monotonic_time();
    io.ignore = (const char *const *) config_get_list(cli->ctx, cli->config, "new.ignore");
    io.full_scan = full_scan;
    io.warning = on_warning;
    io.event = on_event;
    io.not_mail = on_not_mail;
    io.progress = on_progress;
    io.data = &rep;
    io.decrypt = cli_index_decrypt(cli, decrypt, decrypt_given);
    st = maildex_index(cli->db, &io, &stats);
    cancel_signals_stop();
    if (rep.tty && !quiet && !verbose && rep.last_progress != rep.started)
        fprintf(cli->err, "\r\033[K");
    if (st != MAILDEX_STATUS_OK) {
        cli_error(cli, "%s", maildex_db_errmsg(cli->db));
        cli_close_db(cli);
        return EXIT_FAILURE;
    }
    notmuch_import_first_run(cli, &imp, quiet);
    cli_close_db(cli);
    if (!quiet)
        report(cli->out, &stats, stats.first_run, (g_get_monotonic_time() - rep.started) / 1e6);
    if (!quiet)
        notmuch_import_print(cli, &imp);
    return finish(cli, &stats, !no_hooks);
}
