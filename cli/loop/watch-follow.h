/* SPDX-License-Identifier: GPL-3.0-or-later */
/* watch-follow.h: a watch that defers to another process's watch of the same store (`server --watch`
 * beside a running `maildex watch`) follows that one through the store's watch lock (watch-lock.h).
 * As soon as the other rewrites its record (inotify on the lock file), and every second besides (a
 * holder killed with -9 writes nothing), it tries to take the lock. While it cannot, each round the
 * record names that it has not passed on yet goes to round(), so the host's clients hear of the
 * other's rounds as of their own watch's; once it has the lock, taken() is called and following
 * stops. Nothing here indexes, logs or runs hooks: the other watch has done all that.
 *
 * A round it did not see (two rounds recorded between two looks, or the other watch replaced by a
 * third) and a round recorded without its threads (WATCH_LOCK_THREADS_MAX) are passed on as a full
 * pass: the host's clients cannot know which threads changed, so they take everything as changed.
 *
 * Usage (watch.c):
 *
 *     watch_follow_init(&w->follow, loop, db_path, "server", log_where, w);  // with the watch's handles
 *     w->follow.round = on_relayed; w->follow.taken = on_taken; w->follow.failed = on_failed;
 *     watch_follow_start(&w->follow);         // when the lock is held by another process
 *     uv_close((uv_handle_t *) &w->follow.changed, ...); uv_close(... &w->follow.tick ...);
 */
#ifndef MAILDEX_CLI_WATCH_FOLLOW_H
#define MAILDEX_CLI_WATCH_FOLLOW_H

#include "watch-lock.h"
#include "watch-round.h"

#include <stdbool.h>
#include <uv.h>

struct watch_follow {
    uv_fs_event_t changed;  /* the lock file rewritten */
    uv_timer_t tick;        /* every second */
    const char *db_path, *host, *log; /* for watch_lock_take; not copied */
    long pid;               /* the last round passed on (or there at the start): its holder, */
    unsigned long seq;      /* and its number */
    void (*round)(struct watch_follow *f, const struct watch_round *round);
    /* The lock is this process's now: lock is a talloc child of ctx, which frees it to let go. */
    void (*taken)(struct watch_follow *f, struct watch_lock *lock);
    /* The lock file cannot be opened or locked (error says why): following has stopped. */
    void (*failed)(struct watch_follow *f, const char *error);
    void *ctx;              /* talloc parent of the lock, and of what a look reads */
};

/* Sets f up, its handles initialised on loop (their data is f until the host closes them). */
void watch_follow_init(struct watch_follow *f, uv_loop_t *loop, const char *db_path, const char *host,
                       const char *log, void *ctx);

/* Starts following: the round the record names now is taken as passed on already. The callbacks are
 * called on the loop's thread. 0, or a libuv error when the lock file cannot be watched (the
 * second's look still runs). */
int watch_follow_start(struct watch_follow *f);

#endif
