/* SPDX-License-Identifier: GPL-3.0-or-later */
/* SIGINT and SIGTERM cancelling a write (cancel-signals.h). maildex_db_cancel is async-signal-safe.
 * A handler may run on any thread (the parse pool's too), so the handle it cancels is an atomic
 * pointer, and the command closes the handle only once no handler is using it (cancel_signals_stop).
 * Lock-free atomics are async-signal-safe, and these are. */
#include "cancel-signals.h"

#include <sched.h>
#include <signal.h>
#include <stdatomic.h>

_Static_assert(ATOMIC_POINTER_LOCK_FREE == 2 && ATOMIC_INT_LOCK_FREE == 2, "lock-free atomics");
static maildex_db_t *_Atomic signalled_db;
static atomic_int signals_running;

static void on_signal(int sig)
{
    maildex_db_t *db;

    (void) sig;
    atomic_fetch_add(&signals_running, 1);
    if ((db = atomic_load(&signalled_db)) != NULL)
        maildex_db_cancel(db, MAILDEX_CANCEL_BATCH);
    atomic_fetch_sub(&signals_running, 1);
}

void cancel_signals_start(maildex_db_t *db)
{
    struct sigaction sa = {0};

    atomic_store(&signalled_db, db);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

/* A later signal finds no handle, and one that found it has returned (its count went up before it
 * looked). */
void cancel_signals_stop(void)
{
    atomic_store(&signalled_db, NULL);
    while (atomic_load(&signals_running) > 0)
        sched_yield();
}
