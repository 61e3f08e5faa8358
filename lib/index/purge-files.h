/* SPDX-License-Identifier: GPL-3.0-or-later */
/* purge-files.h: the file-system half of maildex_purge (purge.c), which must never reach outside the
 * mail root. Every directory is opened from a descriptor of the root one component at a time with
 * O_NOFOLLOW: a symbolic link on the way is taken only when its target, resolved, is inside the root
 * (and then the resolved path is walked the same way), so no link leads out of it; files are removed
 * and moved relative to those descriptors (unlinkat, renameat2), which act on the name itself and
 * never follow it. Nothing here knows the database. */
#ifndef MAILDEX_PURGE_FILES_H
#define MAILDEX_PURGE_FILES_H

#include <stdbool.h>
#include <stdint.h>

struct maildex__purge_fs;

/* Opens the mail root; a talloc child of ctx whose destructor closes every descriptor. Returns NULL
 * with errno set when the root cannot be opened as a directory. */
struct maildex__purge_fs *maildex__purge_fs_open(void *ctx, const char *root);

/* The directory dir (relative to the root, "" for it), opened once and cached: a descriptor, or -1
 * with *err set: ELOOP when a symbolic link on the way leads out of the root (or nowhere), ENOENT
 * when it is gone, another errno when it could not be opened. */
int maildex__purge_fs_dir(struct maildex__purge_fs *fs, const char *dir, int *err);

/* The size of name in dirfd, not following a link: 0 with *size set, or an errno value. */
int maildex__purge_fs_size(int dirfd, const char *name, uint64_t *size);

/* Removes name from the directory dir (from maildex__purge_fs_dir): 0 or an errno value. The
 * directory is synced by maildex__purge_fs_sync. */
int maildex__purge_fs_remove(struct maildex__purge_fs *fs, const char *dir, const char *name);

/* The Maildir folder (relative to the root, normalised, not "") made ready as purge's target: it and
 * its cur/, new/ and tmp/ created when missing (0700), each new directory synced in its parent.
 * Returns 0 or an errno value (ELOOP: it would lie out of the root). */
int maildex__purge_fs_target(struct maildex__purge_fs *fs, const char *folder);

/* The name a file gets in the target folder: name without an mbsync UID (",U=123", which would tell
 * mbsync it is the message of that UID in the folder it came from), talloc'd on ctx. */
char *maildex__purge_target_name(void *ctx, const char *name);

/* Moves name from dir into the target's new/ (to_new) or cur/, as maildex__purge_target_name(name),
 * or, when that name is taken there, with ".1", ".2" ... added to its unique part; never replacing
 * a file. Sets *to_name (talloc'd on ctx) to the name it got. Returns 0 or an errno value. */
int maildex__purge_fs_move(struct maildex__purge_fs *fs, void *ctx, const char *dir, const char *name,
                           bool to_new, char **to_name);

/* fsyncs every directory a removal or move changed since the last call, so that no index row goes
 * before its file is gone for good. Returns 0 or the first errno value. */
int maildex__purge_fs_sync(struct maildex__purge_fs *fs);

#endif
