/* SPDX-License-Identifier: GPL-3.0-or-later */
/* relist.h: the regular, not ignored files of a fresh directory, listed again when its files are
 * indexed (index.c) so that the walk (scan.c) never holds every name of a first index in memory, and
 * given a slice at a time so that indexing a huge directory does not either: inode order in a
 * directory new to the database (as notmuch walks it), read in slices of inode ranges; name order in
 * one the database knew empty, in one slice. Entries that vanished or are not regular files are
 * skipped silently: the walk already warned about them. It reads directories only, never the
 * database. */
#ifndef MAILDEX_INDEX_RELIST_H
#define MAILDEX_INDEX_RELIST_H

#include "scan.h"

struct maildex__relist;
struct maildex__relist *maildex__relist_new(const struct maildex__scan *scan, const char *mail_root,
                                            const struct maildex__scan_dir *dir);
/* Appends the next slice's names (strings in chunk) to names; false once every slice was given. */
bool maildex__relist_next(struct maildex__relist *rl, GStringChunk *chunk, GPtrArray *names);
/* Whether a pass could not open the directory (since the walk listed it): some of its files may
 * not have been given, so its mtime must not be recorded. */
bool maildex__relist_failed(const struct maildex__relist *rl);
void maildex__relist_free(struct maildex__relist *rl);


#endif
