/* SPDX-License-Identifier: GPL-3.0-or-later */
/* hook-process.h: one hook run as a process group of its own, waited for with a deadline. A hook
 * that never returns must not stop every write (server) or every round (watch), nor outlive the
 * program: past its time, when the caller cancels, or when SIGTERM or SIGINT reach the program, its
 * whole group (the hook and whatever it started) gets SIGTERM, then SIGKILL two seconds later. It
 * knows nothing of config files or hook names (hooks.c does). */
#ifndef MAILDEX_CLI_HOOK_PROCESS_H
#define MAILDEX_CLI_HOOK_PROCESS_H

#include <stdbool.h>

enum hook_end {
    HOOK_EXITED,    /* it ended by itself: see the wait status */
    HOOK_TIMED_OUT, /* its time ran out and its group was ended */
    HOOK_CANCELLED, /* the caller cancelled it and its group was ended */
    HOOK_SIGNALLED, /* SIGTERM or SIGINT reached the program and its group was ended */
};

struct hook_wait {
    unsigned timeout_s;               /* 0: no limit */
    bool (*cancelled)(void *data);    /* asked about ten times a second; NULL: never */
    void *data;
};

/* Starts path with no arguments and env, its fds 0-2 dup'ed from fds (-1: the program's own),
 * in a new process group that gets the terminal while it runs when the program has it; waits as
 * `how` says. Returns 0 with *end and *wait_status set, or an errno value when it did not start.
 * A SIGTERM or SIGINT that ended the hook is raised again once the hook is gone, so the program
 * then does what it would have done with it (its own handler, or the default). */
int hook_process_run(char *path, char **env, const int fds[3], const struct hook_wait *how,
                     enum hook_end *end, int *wait_status);

#endif
