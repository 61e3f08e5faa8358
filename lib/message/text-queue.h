/* SPDX-License-Identifier: GPL-3.0-or-later */
/* text-queue.h: a message's stored text and full-text row, written now or held for the end of the
 * batch. FTS5 writes its pending terms out as a new segment whenever a rowid arrives below the last
 * one (fts5_index.c, fts5IndexBeginWrite); messages are keyed by date but arrive in directory order, so
 * a first index inserted one at a time made a segment every message or two and spent its time
 * merging them. Held rows are written sorted by key, one segment a batch. The queue takes part in
 * the handle's transactions (store/maildex-private.h): every commit writes what is held first, a
 * rollback drops it; whatever reads or deletes a message's stored text writes the held rows before. */
#ifndef MAILDEX_TEXT_QUEUE_H
#define MAILDEX_TEXT_QUEUE_H

#include "store/maildex-private.h"
#include "text.h"

/* Writes a message's texts row and full-text row now. */
maildex_status_t maildex__text_write(maildex_db_t *db, int64_t key,
                                     const struct maildex__store_text *text);

/* Holds text (taken over: talloc_steal) for key until the batch ends; may write the held rows when
 * the queue is full. */
maildex_status_t maildex__text_hold(maildex_db_t *db, int64_t key, struct maildex__store_text *text);

/* The held text of key, or NULL. The caller may change its columns (maildex__text_changed). */
struct maildex__store_text *maildex__text_held(maildex_db_t *db, int64_t key);

/* Writes every held row, in key order. */
maildex_status_t maildex__text_write_held(maildex_db_t *db);

#endif
