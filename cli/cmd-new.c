/* `maildex new`: run the pre-new hook, index the mail root (maildex_index), report as notmuch does,
 * run the post-new hook. The database is open for writing only between the two hooks. */
#include "cli.h"
#include "hooks.h"

#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define EXIT_TEMPFAIL 75 /* sysexits.h's EX_TEMPFAIL: files vanished or could not be read */

static volatile int interrupted;

static void on_signal(int sig)
{
    (void) sig;
    interrupted = 1;
}

struct reporter {
    bool verbose, quiet, tty;
    gint64 started, last_progress;
};

static void on_warning(void *data, const char *path, const char *reason)
{
    (void) data;
    fprintf(stderr, "maildex new: '%s': %s\n", path, reason);
}

static void on_not_mail(void *data, const char *path)
{
    struct reporter *rep = data;
    if (!rep->quiet)
        fprintf(stderr, "Note: Ignoring non-mail file: %s\n", path);
}

static void on_progress(void *data, const maildex_index_stats_t *stats, uint64_t done,
                        uint64_t total, const char *path)
{
    struct reporter *rep = data;
    gint64 now;
    double secs, rate;

    (void) stats;
    if (rep->verbose) {
        printf("%s%" PRIu64 "/%" PRIu64 ": %s\n", rep->tty ? "\r\033[K" : "", done, total, path);
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
    fprintf(stderr, "\r\033[K%" PRIu64 "/%" PRIu64 " files (%.0f files/s, %.0fs left)", done, total,
            rate, rate > 0 && total > done ? (total - done) / rate : 0.0);
}

static void print_elapsed(double seconds)
{
    int hours, minutes;

    if (seconds < 1) {
        printf("almost no time");
        return;
    }
    if (seconds > 3600) {
        hours = (int) seconds / 3600;
        printf("%dh ", hours);
        seconds -= hours * 3600;
    }
    if (seconds > 60) {
        minutes = (int) seconds / 60;
        printf("%dm ", minutes);
        seconds -= minutes * 60;
    }
    printf("%ds", (int) seconds);
}

static void report(const maildex_index_stats_t *s, bool first_run, double elapsed)
{
    if (first_run)
        printf("Found %" PRIu64 " total files (that's not much mail).\n", s->files_found);
    if (s->files_processed) {
        printf("Processed %" PRIu64 " %s in ", s->files_processed,
               s->files_processed == 1 ? "file" : "total files");
        print_elapsed(elapsed);
        if (elapsed > 1)
            printf(" (%d files/sec.)", (int) (s->files_processed / elapsed));
        printf(".\n");
    }
    if (s->messages_added)
        printf("Added %" PRIu64 " new %s to the database.", s->messages_added,
               s->messages_added == 1 ? "message" : "messages");
    else
        printf("No new mail.");
    if (s->messages_removed)
        printf(" Removed %" PRIu64 " %s.", s->messages_removed,
               s->messages_removed == 1 ? "message" : "messages");
    if (s->renames)
        printf(" Detected %" PRIu64 " file %s.", s->renames, s->renames == 1 ? "rename" : "renames");
    printf("\n");
}

int cmd_new(struct cli *cli, int argc, char **argv)
{
    bool quiet = false, verbose = false, no_hooks = false, full_scan = false, decrypt = false;
    const struct option opts[] = {
        {OPT_BOOL, "quiet", &quiet, NULL, NULL, NULL},
        {OPT_BOOL, "verbose", &verbose, NULL, NULL, NULL},
        {OPT_BOOL, "no-hooks", &no_hooks, NULL, NULL, NULL},
        {OPT_BOOL, "full-scan", &full_scan, NULL, NULL, NULL},
        {OPT_BOOL, "decrypt", &decrypt, NULL, NULL, NULL},
        {OPT_END, NULL, NULL, NULL, NULL, NULL},
    };
    struct reporter rep = {0};
    maildex_index_options_t io = {0};
    maildex_index_stats_t stats;
    maildex_status_t st;
    struct sigaction sa = {0};
    char *error;
    int first = cli_start(cli, argc, argv, opts), rc;

    if (first < 0)
        return -first;
    if (first < argc)
        return cli_error(cli, "unexpected argument '%s'", argv[first]);
    if (config_get_bool(cli->ctx, cli->config, "maildir.synchronize_flags", true,
                        &io.synchronize_flags, &error) != 0)
        return cli_error(cli, "%s", error);
    if (!no_hooks && (rc = hook_run(cli, "pre-new")) != 0)
        return rc;
    if ((rc = cli_open_db(cli, MAILDEX_DB_CREATE)) != 0)
        return rc;

    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    rep.quiet = quiet;
    rep.verbose = verbose && !quiet;
    if (rep.verbose) /* one line per file, seen as it happens even through a pipe */
        setvbuf(stdout, NULL, _IOLBF, 0);
    rep.tty = isatty(STDERR_FILENO);
    rep.started = rep.last_progress = g_get_monotonic_time();
    io.new_tags = (const char *const *) config_get_list(cli->ctx, cli->config, "new.tags");
    io.ignore = (const char *const *) config_get_list(cli->ctx, cli->config, "new.ignore");
    io.full_scan = full_scan;
    io.warning = on_warning;
    io.not_mail = on_not_mail;
    io.progress = on_progress;
    io.data = &rep;
    io.interrupted = &interrupted;
    st = maildex_index(cli->db, &io, &stats);
    if (rep.tty && !quiet && !verbose && rep.last_progress != rep.started)
        fprintf(stderr, "\r\033[K");
    if (st != MAILDEX_STATUS_OK) {
        cli_error(cli, "%s", maildex_db_errmsg(cli->db));
        maildex_db_close(cli->db);
        cli->db = NULL;
        return EXIT_FAILURE;
    }
    maildex_db_close(cli->db);
    cli->db = NULL;
    if (!quiet)
        report(&stats, stats.first_run, (g_get_monotonic_time() - rep.started) / 1e6);
    if (stats.removals_held)
        fprintf(stderr,
                "maildex new: kept %" PRIu64 " %s whose files are gone: some mail could not be "
                "read, and %s may have moved there\n",
                stats.removals_held, stats.removals_held == 1 ? "message" : "messages",
                stats.removals_held == 1 ? "it" : "they");
    /* notmuch gives up on a directory it cannot read (exit 1, no post-new hook), and exits 75
     * (EX_TEMPFAIL) when files could not be read or vanished. */
    if (stats.directories_unreadable)
        return EXIT_FAILURE;
    if (!no_hooks && (rc = hook_run(cli, "post-new")) != 0)
        return rc;
    return stats.files_vanished || stats.files_unreadable ? EXIT_TEMPFAIL : EXIT_SUCCESS;
}
