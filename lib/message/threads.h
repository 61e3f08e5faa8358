/* SPDX-License-Identifier: GPL-3.0-or-later */
/* threads.h: incremental threading. A new message joins the thread of every message it references or
 * that references it (found through ghosts: rows for referenced Message-IDs not in the store); two
 * threads it links are merged by moving the smaller into the larger. Nothing ever rebuilds all threads.
 * Callers hold the write transaction. */
#ifndef MAILDEX_THREAD_H
#define MAILDEX_THREAD_H

#include "store/maildex-private.h"

/* Picks (creating or merging as needed) the thread of a message about to be inserted with this
 * Message-ID and these references (NULL-terminated), leaves ghosts for references not in the store,
 * and counts the message in the thread. */
maildex_status_t maildex__thread_for_new_message(maildex_db_t *db, const char *message_id,
                                                 char *const *references, int64_t *thread);

/* Joins the thread of a message being re-indexed with the threads of its (new) references. */
maildex_status_t maildex__thread_relink(maildex_db_t *db, int64_t thread, char *const *references);

/* Notes that thread changed, for a host that asked which did (maildex_index_options_t's
 * thread_changed): adds it to db->changed_threads when that is set, else does nothing. */
void maildex__thread_changed(maildex_db_t *db, int64_t thread);

/* Notes the thread of the message with this key as changed (maildex__thread_changed). */
maildex_status_t maildex__thread_changed_message(maildex_db_t *db, int64_t key);

/* Accounts for a message that left the store: the thread keeps a ghost in its place while it has
 * other messages (so a later reply or re-delivery rejoins it), and disappears with its ghosts when it
 * had no other. */
maildex_status_t maildex__thread_message_removed(maildex_db_t *db, int64_t thread,
                                                 const char *message_id);

#endif
