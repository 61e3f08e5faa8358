/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What the handle tells its host and hears from it: that a write waits for another writer
 * (maildex_db_set_waiting), and that the host cancels the handle's work (maildex_db_cancel, the
 * token the progress handler, the busy handler, the writer lock and maildex_index read). Knows
 * none of its readers. */
#include "maildex-private.h"

/* maildex_db_cancel runs in signal handlers: only a lock-free atomic is async-signal-safe there. */
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "maildex_db_cancel needs a lock-free atomic int");

void maildex_db_cancel(maildex_db_t *db, maildex_cancel_t how)
{
    int was = atomic_load(&db->cancel);

    /* Only upwards: a weaker cancellation after a stronger one changes nothing. A compare and
     * exchange on a lock-free atomic is as async-signal-safe as a store. */
    while (was < (int) how && !atomic_compare_exchange_weak(&db->cancel, &was, (int) how))
        ;
}

void maildex_db_set_waiting(maildex_db_t *db, void (*waiting)(void *data, const char *what),
                            void *data)
{
    db->waiting = waiting;
    db->waiting_data = data;
}

void maildex__waiting(maildex_db_t *db, const char *what)
{
    if (db->waiting)
        db->waiting(db->waiting_data, what);
}
