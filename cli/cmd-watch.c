/* SPDX-License-Identifier: GPL-3.0-or-later */
/* `maildex watch`: index mail as it lands (cli/loop/watch.c does the watching) until SIGTERM or SIGINT,
 * which end the round in hand, commit and exit 0. Without --foreground it detaches once the watch has
 * started, so a failure to start is still reported with its exit status, and logs to a file (--log,
 * or the default one) rather than the terminal it left. One watch per store (watch-lock.h): a second
 * one says which runs and exits 0, as `systemctl start` does for a unit that runs. --status and
 * --stop ask about and stop the one that runs. */
#include "cli.h"
#include "loop/watch-lock.h"
#include "loop/watch-log.h"
#include "loop/watch.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* --stop waits this long for the watch to end: its last batch commits first (as systemd's unit
 * allows it, TimeoutStopSec). */
#define STOP_WAIT_MS 60000
#define STOP_POLL_MS 20

struct stopped {
    int status;
};

static void on_stopped(void *data, int status)
{
    ((struct stopped *) data)->status = status;
}

/* Forks; the parent waits until the child says whether the watch started (one byte through a pipe:
 * its exit status) and exits with it; the child leaves the terminal's session. Returns the write end
 * of the pipe in the child, or -1 with the parent's exit status in *status. */
static int detach(int *status)
{
    int fds[2];
    pid_t pid;
    unsigned char byte = EXIT_FAILURE;

    if (pipe(fds) != 0 || (pid = fork()) < 0) {
        perror("maildex watch: cannot detach");
        *status = EXIT_FAILURE;
        return -1;
    }
    if (pid > 0) {
        close(fds[1]);
        *status = read(fds[0], &byte, 1) == 1 ? byte : EXIT_FAILURE;
        close(fds[0]);
        if (*status != 0)
            waitpid(pid, NULL, 0);
        return -1;
    }
    close(fds[0]);
    setsid();
    return fds[1];
}

/* The child tells the parent how the start went; stdin and stdout leave the terminal, and stderr
 * goes to the log file, so what a hook prints lands there too. (A log on stderr is the journal's
 * stream: it stays.) */
static void detached(int fd, int status, struct watch_log *log)
{
    unsigned char byte = (unsigned char) status;
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);

    if (write(fd, &byte, 1) != 1) /* the parent is gone: nobody to tell */
        perror("maildex watch: cannot tell the starting process");
    close(fd);
    if (null >= 0) {
        dup2(null, STDIN_FILENO);
        dup2(null, STDOUT_FILENO);
        close(null);
    }
    if (log)
        watch_log_capture_stderr(log);
}

/* Who holds the store's watch lock, into *h: -1 when a watch runs; else, after saying that none
 * does, none (or 1 after saying why the lock could not be read). */
static int running_watch(struct cli *cli, const char *db, struct watch_holder *h, int none)
{
    char *error = NULL;

    switch (watch_lock_read(cli->ctx, db, h, &error)) {
    case WATCH_LOCK_FAILED:
        return cli_error(cli, "%s", error);
    case WATCH_LOCK_FREE:
        fprintf(cli->out, "no watch runs for '%s'\n", db);
        return none;
    default:
        return -1;
    }
}

/* --status: what the lock's record says; 0 when a watch runs, 1 when none (`systemctl is-active`). */
static int show_status(struct cli *cli)
{
    char *db = config_database_file(cli->ctx, cli->config);
    struct watch_holder h;
    int rc;

    if ((rc = running_watch(cli, db, &h, 1)) >= 0)
        return rc;
    fprintf(cli->out, "a watch runs for %s\n", watch_holder_text(cli->ctx, db, &h));
    if (h.since)
        fprintf(cli->out, "since: %s\n", h.since);
    if (h.log)
        fprintf(cli->out, "log: %s\n", h.log);
    fprintf(cli->out, "last round: %s\n", h.round ? h.round : "none yet (the first pass is running)");
    return 0;
}

/* Whether the watch of pid has let go of the lock (ended; another one may hold it now). */
static bool let_go(struct cli *cli, const char *db, long pid)
{
    void *local = talloc_new(cli->ctx); /* polled for up to a minute: nothing piles up */
    struct watch_holder h;
    char *error = NULL;
    bool gone = false;

    switch (watch_lock_read(local, db, &h, &error)) {
    case WATCH_LOCK_FREE:
        gone = true;
        break;
    case WATCH_LOCK_HELD:
        gone = h.pid != 0 && h.pid != pid;
        break;
    default:
        break;
    }
    talloc_free(local);
    return gone;
}

/* --stop: SIGTERM to the watch that holds the lock, then waits until it has let go of it. 0 once it
 * has (or when none ran), 1 when it could not be stopped. */
static int stop_watch(struct cli *cli)
{
    char *db = config_database_file(cli->ctx, cli->config), *who;
    struct watch_holder h;
    int rc;

    if ((rc = running_watch(cli, db, &h, 0)) >= 0)
        return rc;
    who = watch_holder_text(cli->ctx, db, &h);
    if (h.pid == 0)
        return cli_error(cli, "a watch runs for %s, and its pid is not known: not stopped", who);
    /* The server's watch is a part of the editor's server: stopping it would end the server. */
    if (h.host && strcmp(h.host, "watch") != 0)
        return cli_error(cli, "the watch for %s is the server's: stop that server to stop it", who);
    if (kill((pid_t) h.pid, SIGTERM) != 0 && errno != ESRCH)
        return cli_error(cli, "cannot stop the watch for %s: %s", who, strerror(errno));
    for (int waited = 0; !let_go(cli, db, h.pid); waited += STOP_POLL_MS) {
        if (waited >= STOP_WAIT_MS)
            return cli_error(cli, "the watch for %s has not stopped after %d s", who, STOP_WAIT_MS / 1000);
        g_usleep(STOP_POLL_MS * 1000);
    }
    fprintf(cli->out, "stopped the watch for %s\n", who);
    return 0;
}

/* Where the log goes: --log; else stderr in the foreground or when stderr is the journal; else (a
 * detached watch) the default file, not the terminal it leaves. 0, or 1 after saying why. */
static int open_log(struct cli *cli, const char *path, bool foreground, struct watch_log **out)
{
    char *error = NULL;

    if (path == NULL && (foreground || watch_log_stderr_is_journal())) {
        *out = watch_log_stderr(cli->ctx);
        return 0;
    }
    if (path == NULL && (path = watch_log_default_path(cli->ctx, &error)) == NULL)
        return cli_error(cli, "%s", error);
    if ((*out = watch_log_file(cli->ctx, path, &error)) == NULL)
        return cli_error(cli, "%s", error);
    return 0;
}

/* The watch on a loop of its own until it stops; notify >= 0: the pipe of a detached start. */
static int run(struct cli *cli, struct watch_options *wo, int notify)
{
    struct stopped stopped = {0};
    struct watch *w;
    uv_loop_t loop;
    bool already;
    int rc;

    wo->stopped = on_stopped;
    wo->data = &stopped;
    if ((rc = uv_loop_init(&loop)) != 0) {
        fprintf(stderr, "maildex watch: cannot start an event loop: %s\n", uv_strerror(rc));
        if (notify >= 0)
            detached(notify, 1, NULL);
        return 1;
    }
    rc = watch_start(cli, &loop, wo, &w);
    already = rc == WATCH_ALREADY_RUNS;
    if (already) /* the store is watched, as asked: said on stderr */
        rc = 0;
    if (notify >= 0)
        detached(notify, rc, wo->log);
    if (rc == 0 && !already)
        uv_run(&loop, UV_RUN_DEFAULT);
    uv_loop_close(&loop);
    return rc ? rc : stopped.status;
}

int cmd_watch(struct cli *cli, int argc, char **argv)
{
    bool foreground = false, no_hooks = false, quiet = false, status = false, stop = false;
    const char *log_path = NULL;
    int debounce = WATCH_DEBOUNCE_MS, notify = -1;
    const struct option opts[] = {
        {OPT_BOOL, "foreground", &foreground, NULL, NULL, NULL},
        {OPT_COUNT, "debounce", &debounce, NULL, NULL, NULL},
        {OPT_BOOL, "no-hooks", &no_hooks, NULL, NULL, NULL},
        {OPT_BOOL, "quiet", &quiet, NULL, NULL, NULL},
        {OPT_STRING, "log", &log_path, NULL, NULL, NULL},
        {OPT_BOOL, "status", &status, NULL, NULL, NULL},
        {OPT_BOOL, "stop", &stop, NULL, NULL, NULL},
        {OPT_END, NULL, NULL, NULL, NULL, NULL},
    };
    struct watch_options wo = {0};
    int first = cli_start(cli, argc, argv, opts), rc = 0;

    if (first < 0)
        return -first;
    if (first < argc)
        return cli_error(cli, "unexpected argument '%s'", argv[first]);
    if (status && stop)
        return cli_error(cli, "--status and --stop: give one of them");
    if (status || stop)
        return status ? show_status(cli) : stop_watch(cli);
    if ((rc = watch_check_debounce(cli, debounce)) != 0 || (rc = open_log(cli, log_path, foreground, &wo.log)) != 0)
        return rc;
    if (!foreground && (notify = detach(&rc)) < 0)
        return rc;
    wo.debounce_ms = (unsigned) debounce;
    wo.hooks = !no_hooks;
    wo.signals = true;
    wo.quiet = quiet;
    return run(cli, &wo, notify);
}
