/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A hook's process group: started, given the terminal, waited for, ended (see hook-process.h).
 * Hooks run from the main thread (new, insert), from request threads (server) and from the
 * thread pool (watch's post-new), so the handlers that end the groups on SIGTERM and SIGINT are
 * installed while any hook runs and the previous ones put back after the last. */
#include "hook-process.h"

#include <errno.h>
#include <glib.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/pidfd.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#define MAX_GROUPS 64
#define GRACE_MS 2000 /* between SIGTERM and SIGKILL */
#define SLICE_MS 100  /* how often cancels and signals are looked at */

static const int stop_signals[] = {SIGTERM, SIGINT};

/* The groups running, for the signal handler: lock-free atomics are async-signal-safe. */
static atomic_int groups[MAX_GROUPS];
static atomic_int caught; /* the stop signal that came while hooks ran, or 0 */

static GMutex handlers_lock;
static int handlers_users;
static struct sigaction saved[G_N_ELEMENTS(stop_signals)];

static void on_stop_signal(int sig)
{
    int saved_errno = errno;

    atomic_store(&caught, sig);
    for (int i = 0; i < MAX_GROUPS; i++) {
        int pgid = atomic_load(&groups[i]);
        if (pgid > 0)
            killpg(pgid, SIGTERM);
    }
    errno = saved_errno;
}

static void handlers_take(void)
{
    g_mutex_lock(&handlers_lock);
    if (handlers_users++ == 0) {
        struct sigaction sa = {.sa_handler = on_stop_signal};
        sigemptyset(&sa.sa_mask);
        atomic_store(&caught, 0);
        for (size_t i = 0; i < G_N_ELEMENTS(stop_signals); i++)
            sigaction(stop_signals[i], &sa, &saved[i]);
    }
    g_mutex_unlock(&handlers_lock);
}

/* The last hook out puts the program's handlers back and hands it the signal that came meanwhile. */
static void handlers_give_back(void)
{
    int sig = 0;

    g_mutex_lock(&handlers_lock);
    if (--handlers_users == 0) {
        for (size_t i = 0; i < G_N_ELEMENTS(stop_signals); i++)
            sigaction(stop_signals[i], &saved[i], NULL);
        sig = atomic_exchange(&caught, 0);
    }
    g_mutex_unlock(&handlers_lock);
    if (sig)
        raise(sig);
}

static int group_register(pid_t pgid)
{
    for (int i = 0; i < MAX_GROUPS; i++) {
        int none = 0;
        if (atomic_compare_exchange_strong(&groups[i], &none, (int) pgid))
            return i;
    }
    return -1; /* more hooks at once than slots: still waited for and timed, not signalled */
}

static int64_t now_ms(void)
{
    return g_get_monotonic_time() / 1000;
}

/* Waits up to ms for pid to end (pidfd: woken at once; without one, in small steps). */
static bool reaped(pid_t pid, int pidfd, int ms, int *wait_status)
{
    if (ms > 0) {
        if (pidfd >= 0) {
            struct pollfd p = {.fd = pidfd, .events = POLLIN};
            poll(&p, 1, ms);
        } else {
            g_usleep((gulong) (ms < 10 ? ms : 10) * 1000);
        }
    }
    return waitpid(pid, wait_status, WNOHANG) == pid;
}

/* SIGTERM to the whole group, SIGKILL after the grace, and the leader reaped. */
static void end_group(pid_t pid, int pidfd, int *wait_status)
{
    int64_t until = now_ms() + GRACE_MS;
    bool gone = false;

    killpg(pid, SIGTERM);
    killpg(pid, SIGCONT); /* a stopped member would never see the SIGTERM */
    while (!gone && now_ms() < until)
        gone = reaped(pid, pidfd, (int) (until - now_ms()), wait_status);
    killpg(pid, SIGKILL); /* the leader's children, whether or not it went */
    while (!gone && waitpid(pid, wait_status, 0) != pid && errno == EINTR)
        ;
}

/* The terminal goes to the hook's group when the program is in the foreground of one, so a hook
 * that asks for a passphrase still can; it comes back after (SIGTTOU blocked: by then the program
 * is a background group). */
static bool terminal_give(int fd, pid_t pgid)
{
    if (fd < 0 || !isatty(fd) || tcgetpgrp(fd) != getpgrp())
        return false;
    setpgid(pgid, pgid); /* done in the child already; repeated as shells do */
    if (tcsetpgrp(fd, pgid) != 0)
        return false;
    killpg(pgid, SIGCONT); /* it may have read the terminal before it was its own */
    return true;
}

static void terminal_take_back(int fd)
{
    sigset_t ttou, old;

    sigemptyset(&ttou);
    sigaddset(&ttou, SIGTTOU);
    pthread_sigmask(SIG_BLOCK, &ttou, &old);
    tcsetpgrp(fd, getpgrp());
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static int spawn(pid_t *pid, char *path, char **env, const int fds[3])
{
    char *argv[] = {path, NULL};
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attr;
    sigset_t none, defaults;
    int err;

    posix_spawn_file_actions_init(&actions);
    for (int fd = 0; fd < 3; fd++)
        if (fds[fd] >= 0 && fds[fd] != fd)
            posix_spawn_file_actions_adddup2(&actions, fds[fd], fd);
    /* Its own group, the signals the program ignores or blocks (SIGPIPE, a thread's mask) reset. */
    posix_spawnattr_init(&attr);
    sigemptyset(&none);
    sigemptyset(&defaults);
    for (int s = 1; s < NSIG; s++)
        if (s != SIGKILL && s != SIGSTOP)
            sigaddset(&defaults, s);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setpgroup(&attr, 0);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    err = posix_spawn(pid, path, &actions, &attr, argv, env);
    posix_spawnattr_destroy(&attr);
    posix_spawn_file_actions_destroy(&actions);
    return err;
}

/* Until it ends, its time runs out, the caller cancels, or a stop signal came. */
static enum hook_end wait_for(pid_t pid, int pidfd, const struct hook_wait *how, int *wait_status)
{
    int64_t deadline = how->timeout_s ? now_ms() + (int64_t) how->timeout_s * 1000 : INT64_MAX;

    for (;;) {
        int64_t left = deadline - now_ms();
        if (reaped(pid, pidfd, left < SLICE_MS ? (int) (left > 0 ? left : 0) : SLICE_MS, wait_status))
            return HOOK_EXITED;
        if (atomic_load(&caught))
            return HOOK_SIGNALLED;
        if (how->cancelled && how->cancelled(how->data))
            return HOOK_CANCELLED;
        if (now_ms() >= deadline)
            return HOOK_TIMED_OUT;
    }
}

int hook_process_run(char *path, char **env, const int fds[3], const struct hook_wait *how,
                     enum hook_end *end, int *wait_status)
{
    pid_t pid;
    int err, slot, pidfd;
    bool terminal;

    handlers_take();
    if ((err = spawn(&pid, path, env, fds)) != 0) {
        handlers_give_back();
        return err;
    }
    slot = group_register(pid);
    if (atomic_load(&caught)) /* the signal came between the spawn and the registration */
        killpg(pid, SIGTERM);
    terminal = terminal_give(fds[0] >= 0 ? fds[0] : 0, pid);
    pidfd = pidfd_open(pid, 0);
    *end = wait_for(pid, pidfd, how, wait_status);
    if (*end != HOOK_EXITED)
        end_group(pid, pidfd, wait_status);
    if (pidfd >= 0)
        close(pidfd);
    if (terminal)
        terminal_take_back(fds[0] >= 0 ? fds[0] : 0);
    if (slot >= 0)
        atomic_store(&groups[slot], 0);
    handlers_give_back();
    return 0;
}
