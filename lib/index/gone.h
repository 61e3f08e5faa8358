/* SPDX-License-Identifier: GPL-3.0-or-later */
/* gone.h: what the walk found gone, asked again just before `new` acts on it. The walk (scan.c)
 * reads a directory's listing and its rows at two moments, while `tag`, a sync tool or the user
 * rename files and a running `watch` may see its whole mail root moved away; so what the walk found
 * is a question, answered under the write transaction, when no other maildex writer can rename a
 * file (a tag change renames its files holding the write lock: message/renames.c):
 *   - the mail root is the directory the run opened (its device and inode); every check looks from
 *     a descriptor of it, so a root moved away during the run is looked into where it went;
 *   - a file is gone when its row still has the directory and name the walk read, no tag change
 *     owes it a rename, and nothing is at that name (ENOENT or ENOTDIR; any other error keeps it);
 *   - a new name that vanished before it was read, with the Maildir unique name of a file the walk
 *     found gone, is that file renamed again (by `tag` or a sync tool): not an error, and its
 *     message keeps its last file until a run lists the name it has now; so is a new name whose
 *     unique name is in its directory or Maildir sibling under another name now (new mail a sync
 *     tool moved from new/ to cur/ before it was read): the next run reads it there;
 *   - a file gone from a directory that holds (or whose cur/ or new/ sibling holds) the same unique
 *     name under a name the index does not know was renamed while the walk listed it: it stays
 *     until the next listing finds the rename;
 *   - a message's last file gone while some directory changed after the walk looked at it may
 *     have moved there (another folder, another name): it stays until a run reads that directory.
 * Also the rename index: a new name with the unique name and size of a removal is that file moved.
 * Reads the database and stats files; writes nothing. */
#ifndef MAILDEX_GONE_H
#define MAILDEX_GONE_H

#include "scan.h"

struct maildex__gone;

/* Opens the mail root for one run. opts's mail_root_device and mail_root_inode, when not both 0,
 * are the directory it must be; its changes_since, when earlier than now, is since when a directory
 * outside the walk that changed counts as changed (maildex__gone_tree_changed). Returns OK;
 * FILE_NOT_FOUND when no directory is there, or another one (nothing may be removed then);
 * IO_ERROR when it cannot be looked at; or NO_MEMORY. */
maildex_status_t maildex__gone_open(maildex_db_t *db, const maildex_index_options_t *opts,
                                    struct maildex__gone **out);
void maildex__gone_free(struct maildex__gone *g);

/* Learns the walk's removals (scan outlives g's use of them). */
void maildex__gone_learn(struct maildex__gone *g, struct maildex__scan *scan);

/* The removal, not yet done, that the new file at path (named name) is the renamed file of: the
 * same unique name and size. NULL for none (or when path cannot be stat'ed). */
struct maildex__scan_removal *maildex__gone_renamed(struct maildex__gone *g, const char *path,
                                                    const char *name);

/* Sets *gone to whether the file of rm is still gone now (see above). */
maildex_status_t maildex__gone_still(struct maildex__gone *g, const struct maildex__scan_removal *rm,
                                     bool *gone);

/* Whether a removal stands: the file is still gone (maildex__gone_still), and, for a file gone from
 * a directory that is still there, neither that directory nor its Maildir sibling holds the same
 * unique name under a name the index does not know (a rename readdir missed: the row stays, the
 * next listing finds the rename). Lists each such directory once a run. */
maildex_status_t maildex__gone_stands(struct maildex__gone *g, const struct maildex__scan_removal *rm,
                                      bool *gone);

/* A new name of directory dir_id (dir_path) vanished before it was read: remembered, and true when
 * it is the unique name of a file the walk found gone or of a file the directory has a row for
 * (that file renamed again), or when the directory or its Maildir sibling holds that unique name
 * now under another name (new mail renamed from new/ to cur/ before it was read): not an error. */
bool maildex__gone_vanished(struct maildex__gone *g, int64_t dir_id, const char *dir_path,
                            const char *name);

/* Whether rm's unique name is that of a new name that vanished: its file is being renamed, and
 * its message must not lose its last file in this run. */
bool maildex__gone_moving(const struct maildex__gone *g, const struct maildex__scan_removal *rm);

/* Whether a directory of the mail root changed after the walk looked at it: mail renamed into
 * it since (a sync tool moving a message to another folder under a new name) is not in this run,
 * so a message whose last file the walk found gone may live on there and must keep its rows (and
 * tags) until a run reads that directory. A directory outside the walk (a `watch` round walks only
 * some) counts when it changed after the run began, or its mtime is not the one recorded. Stats
 * every directory once a run, at the first call. */
bool maildex__gone_tree_changed(struct maildex__gone *g);

/* Whether the mail root's path no longer names the directory the run opened (moved away,
 * replaced, unmounted). */
bool maildex__gone_root_moved(const struct maildex__gone *g);

#endif
