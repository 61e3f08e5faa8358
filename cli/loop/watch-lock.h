/* SPDX-License-Identifier: GPL-3.0-or-later */
/* watch-lock.h: one watch per store. A watch (`maildex watch`, or `server --watch`) holds a lock on
 * "<database>-watch" for as long as it runs: an open file description lock (fcntl F_OFD_SETLK) on
 * the whole file, which the kernel drops when the process ends however it ends, so a watch killed
 * with -9 leaves nothing to clean up; the descriptor is close-on-exec, so a hook it spawns never
 * keeps it. The file holds what `watch --status` shows: the holder's pid, which command it is,
 * since when it watches, where it logs and how its last round went, rewritten after each round;
 * the last round in full too, for a watch that defers to this one to pass on (watch-follow.h).
 * A reader asks whether the lock is held with F_OFD_GETLK, which takes nothing, so `--status` and
 * `--stop` never make a watch that starts just then believe another one runs.
 *
 * The file is the lock and never replaced (a new file at the path would be a second lock), so a
 * record is rewritten in place, opens with "seq=N" and ends with "end=N": a reader that catches it
 * half rewritten (two numbers, or no end) reads it again.
 *
 * Usage (watch.c):
 *
 *     struct watch_lock *lock;
 *     struct watch_holder other;
 *     switch (watch_lock_take(ctx, db_path, "watch", log_where, &lock, &other, &error)) { ... }
 *     watch_lock_round(lock, "2024-05-01T10:00:00.000+02:00 1 added, ...", &round); // each round
 *     talloc_free(lock);                                                       // when stopping
 */
#ifndef MAILDEX_CLI_WATCH_LOCK_H
#define MAILDEX_CLI_WATCH_LOCK_H

#include "watch-round.h"

#include <stdbool.h>

/* A round that changed more threads than this is recorded without them (a first pass, a full pass
 * after a lost event): a follower passes it on as a full pass. */
#define WATCH_LOCK_THREADS_MAX 1000

/* Who holds the lock, as its record says. Strings and threads are talloc'd; NULL when the record
 * does not say (a holder that has just taken the lock and not written yet). */
struct watch_holder {
    long pid;      /* 0 when not known */
    unsigned long seq; /* how many rounds it has recorded: last is the seq-th */
    char *host;    /* "watch" or "server" */
    char *since;   /* when it started, as watch_log_time writes it */
    char *log;     /* where it logs: a file, "the journal", "stderr" */
    char *round;   /* its last round: a time and what the log said of it; NULL before the first ends */
    struct watch_round last; /* its last round as its host heard of it (seq > 0) */
    bool threads_dropped;    /* last changed more than WATCH_LOCK_THREADS_MAX threads: none listed */
};

struct watch_lock;

enum watch_lock_result {
    WATCH_LOCK_TAKEN = 0,  /* *out is the lock, a talloc child of ctx; freeing it releases it */
    WATCH_LOCK_HELD = 1,   /* another process holds it: *holder says who */
    WATCH_LOCK_FREE = 2,   /* (watch_lock_read) nothing holds it */
    WATCH_LOCK_FAILED = -1 /* *error (talloc'd on ctx) says why */
};

/* "'DB' (pid N)", "'DB' (pid N, in maildex server)", or "'DB'" for a holder whose pid is not known
 * yet: the words every message about another watch uses. Talloc'd on ctx. */
char *watch_holder_text(void *ctx, const char *db_path, const struct watch_holder *holder);

/* "<database>-watch", talloc'd on ctx. */
char *watch_lock_path(void *ctx, const char *db_path);

/* Takes the lock of the store whose database is db_path, without waiting, and records host ("watch"
 * or "server"), the time and log (where the holder logs). holder may be NULL (who holds it is not
 * read: the server's look every second). */
enum watch_lock_result watch_lock_take(void *ctx, const char *db_path, const char *host, const char *log,
                                       struct watch_lock **out, struct watch_holder *holder, char **error);

/* Records the last round: text (one line, for --status) and round (for a follower, watch-follow.h);
 * lock may be NULL. Best effort: a record that cannot be written costs --status its line and a
 * follower the round, never the watch. */
void watch_lock_round(struct watch_lock *lock, const char *text, const struct watch_round *round);

/* The record as it is now, read once, without testing the lock and without waiting: true when it
 * was whole (not caught half rewritten), with *holder filled. For a follower that reads it each
 * time it changes; --status and --stop use watch_lock_read. */
bool watch_lock_peek(void *ctx, const char *db_path, struct watch_holder *holder);

/* Whether a watch holds the lock of the store at db_path, taking nothing: WATCH_LOCK_HELD with
 * *holder filled, WATCH_LOCK_FREE, or WATCH_LOCK_FAILED with *error. */
enum watch_lock_result watch_lock_read(void *ctx, const char *db_path, struct watch_holder *holder, char **error);

#endif
