/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A deferred watch following the store's running one (watch-follow.h): its rounds passed on, the
 * lock taken once it ends. */
#include "watch-follow.h"

#include <talloc.h>

#define FOLLOW_TICK_MS 1000 /* a holder killed with -9 changes no file: looked at this often too */

static void stop_following(struct watch_follow *f)
{
    uv_fs_event_stop(&f->changed);
    uv_timer_stop(&f->tick);
}

/* The record's last round to the host, when it is one not passed on yet. */
static void pass_on(struct watch_follow *f, const struct watch_holder *h)
{
    struct watch_round round = h->last;
    bool next = h->pid == f->pid && h->seq == f->seq + 1;

    if (h->pid == 0 || h->seq == 0 || (h->pid == f->pid && h->seq == f->seq))
        return;
    f->pid = h->pid;
    f->seq = h->seq;
    /* A round missed in between, or one recorded without its threads: everything may have changed. */
    if (!next || h->threads_dropped) {
        round.full = true;
        if (h->threads_dropped)
            round.n_threads = 0;
    }
    if (f->round)
        f->round(f, &round);
}

/* Takes the lock when it is free; else passes on what the other watch has done since the last look. */
static void look(struct watch_follow *f)
{
    void *local = talloc_new(f->ctx);
    struct watch_lock *lock;
    struct watch_holder h;
    char *error = NULL;

    switch (watch_lock_take(f->ctx, f->db_path, f->host, f->log, &lock, NULL, &error)) {
    case WATCH_LOCK_TAKEN:
        stop_following(f);
        f->taken(f, lock);
        break;
    case WATCH_LOCK_FAILED:
        stop_following(f);
        f->failed(f, error);
        break;
    default:
        if (watch_lock_peek(local, f->db_path, &h)) /* else caught mid-rewrite: its event comes next */
            pass_on(f, &h);
        break;
    }
    talloc_free(error);
    talloc_free(local);
}

static void on_changed(uv_fs_event_t *handle, const char *filename, int events, int status)
{
    (void) filename;
    (void) events;
    (void) status;
    look(handle->data);
}

static void on_tick(uv_timer_t *t)
{
    look(t->data);
}

void watch_follow_init(struct watch_follow *f, uv_loop_t *loop, const char *db_path, const char *host,
                       const char *log, void *ctx)
{
    f->db_path = db_path;
    f->host = host;
    f->log = log;
    f->ctx = ctx;
    uv_fs_event_init(loop, &f->changed);
    uv_timer_init(loop, &f->tick);
    f->changed.data = f;
    f->tick.data = f;
}

int watch_follow_start(struct watch_follow *f)
{
    void *local = talloc_new(f->ctx);
    char *path = watch_lock_path(local, f->db_path);
    struct watch_holder h;
    int rc;

    if (watch_lock_peek(local, f->db_path, &h)) { /* what came before the host's clients asked */
        f->pid = h.pid;
        f->seq = h.seq;
    }
    uv_timer_start(&f->tick, on_tick, FOLLOW_TICK_MS, FOLLOW_TICK_MS);
    rc = uv_fs_event_start(&f->changed, on_changed, path, 0);
    talloc_free(local);
    return rc;
}
