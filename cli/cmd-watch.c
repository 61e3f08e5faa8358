/* SPDX-License-Identifier: GPL-3.0-or-later */
/* `maildex watch`: index mail as it lands (cli/loop/watch.c does the watching) until SIGTERM or SIGINT,
 * which end the round in hand, commit and exit 0. Without --foreground it detaches once the watch has
 * started, so a failure to start is still reported with its exit status. */
#include "cli.h"
#include "loop/watch.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

struct run {
    int status;
};

static void on_stopped(void *data, int status)
{
    ((struct run *) data)->status = status;
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

/* The child tells the parent how the start went; stdin and stdout leave the terminal (stderr, the
 * log, stays where it was sent). */
static void detached(int fd, int status)
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
}

int cmd_watch(struct cli *cli, int argc, char **argv)
{
    bool foreground = false, no_hooks = false, quiet = false;
    int debounce = WATCH_DEBOUNCE_MS, notify = -1;
    const struct option opts[] = {
        {OPT_BOOL, "foreground", &foreground, NULL, NULL, NULL},
        {OPT_COUNT, "debounce", &debounce, NULL, NULL, NULL},
        {OPT_BOOL, "no-hooks", &no_hooks, NULL, NULL, NULL},
        {OPT_BOOL, "quiet", &quiet, NULL, NULL, NULL},
        {OPT_END, NULL, NULL, NULL, NULL, NULL},
    };
    struct run run = {0};
    struct watch_options wo = {0};
    struct watch *w;
    uv_loop_t loop;
    int first = cli_start(cli, argc, argv, opts), rc = 0;

    if (first < 0)
        return -first;
    if (first < argc)
        return cli_error(cli, "unexpected argument '%s'", argv[first]);
    if ((rc = watch_check_debounce(cli, debounce)) != 0)
        return rc;
    if (!foreground && (notify = detach(&rc)) < 0)
        return rc;
    wo.debounce_ms = (unsigned) debounce;
    wo.hooks = !no_hooks;
    wo.signals = true;
    wo.quiet = quiet;
    wo.stopped = on_stopped;
    wo.data = &run;
    if ((rc = uv_loop_init(&loop)) != 0) {
        fprintf(stderr, "maildex watch: cannot start an event loop: %s\n", uv_strerror(rc));
        if (notify >= 0)
            detached(notify, 1);
        return 1;
    }
    rc = watch_start(cli, &loop, &wo, &w);
    if (notify >= 0)
        detached(notify, rc);
    if (rc == 0)
        uv_run(&loop, UV_RUN_DEFAULT);
    uv_loop_close(&loop);
    return rc ? rc : run.status;
}
