/* SPDX-License-Identifier: GPL-3.0-or-later */
/* SIGINT and SIGTERM for a long write in a process of its own (`new`, `purge`): the batch in hand is
 * committed and the run ends, through the handle's one cancellation token. Inside `server` a
 * request's cancel does that instead, so the commands call this only when cli->own_process. */
#ifndef CLI_CANCEL_SIGNALS_H
#define CLI_CANCEL_SIGNALS_H

#include "maildex.h"

/* From now on SIGINT and SIGTERM cancel db (MAILDEX_CANCEL_BATCH). */
void cancel_signals_start(maildex_db_t *db);

/* From its return on no handler touches db, which may then be closed. */
void cancel_signals_stop(void);

#endif
