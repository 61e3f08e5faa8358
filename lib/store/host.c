/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What the handle tells its host: that a write waits for another writer (maildex_db_set_waiting).
 * Called from the writer lock and the busy handler; knows nothing of either. */
#include "maildex-private.h"

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
