/* SPDX-License-Identifier: GPL-3.0-or-later */
/* renames.h: the Maildir renames a tag change owes (sql/0005-file-renames.sql). A write that changes
 * a message's flags records each rename in its own transaction instead of renaming; once that
 * transaction commits (this file takes part in the handle's transactions), the files are renamed and
 * their rows follow in the next one. So a kill at any moment leaves either the old tags and names,
 * or the new tags with renames still owed, which the next writer finishes before it reads a file
 * row. Nothing here decides a file's new name (util/maildir.c and tag/tag-query.c do). */
#ifndef MAILDEX_RENAMES_H
#define MAILDEX_RENAMES_H

#include "store/maildex-private.h"

/* In the caller's write transaction: file_id, now in directory from_dir as from_name, is to become
 * to_name in to_dir once the transaction commits. A later record for the same file replaces this
 * one; maildex__renames_forget drops it (the file's name is right after all). */
maildex_status_t maildex__renames_record(maildex_db_t *db, int64_t file_id, int64_t from_dir,
                                         const char *from_name, int64_t to_dir, const char *to_name);
maildex_status_t maildex__renames_forget(maildex_db_t *db, int64_t file_id);

/* Whether the caller's write transaction has recorded a rename. */
bool maildex__renames_owed(maildex_db_t *db);

/* Sets *owed to whether a committed tag change still owes file_id a rename: its file may be at
 * either name, and is not gone whatever a listing made meanwhile says. */
maildex_status_t maildex__renames_owed_to(maildex_db_t *db, int64_t file_id, bool *owed);

/* Makes every rename still owed, in a write transaction of its own (or in the caller's): a file
 * still where its record says is renamed unless the new name is taken, a file already at its new
 * name only has its row follow, and a file that is gone or has moved since is left to `new`. The
 * records are deleted as they are done. Reads at most a few hundred records at a time. Returns
 * MAILDEX_STATUS_OK or a database status (the records that were not done stay). */
maildex_status_t maildex__renames_finish(maildex_db_t *db);

#endif
