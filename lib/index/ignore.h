/* SPDX-License-Identifier: GPL-3.0-or-later */
/* ignore.h: what the walk of the mail root (scan.c) and the relisting of a new directory (relist.c)
 * skip: the entries new.ignore names (notmuch's rules: a plain name anywhere, a /regex/ on the path
 * from the mail root), and what is never mail (notmuch's and maildex's database directories at the
 * top of the root, the database's own files wherever they lie below it). It reads no directory and
 * writes nothing. */
#ifndef MAILDEX_INDEX_IGNORE_H
#define MAILDEX_INDEX_IGNORE_H

#include "store/maildex-private.h"

#include <glib.h>

struct maildex__ignore {
    GPtrArray *names;      /* new.ignore plain names */
    GPtrArray *regexes;    /* new.ignore /regex/ entries, compiled */
    const char *self_dir;  /* when the database file lies below the mail root: its directory, relative
                            * to the root ("" at the top), and its name, which its -wal, -shm and
                            * -writer files start with too; NULL otherwise */
    const char *self_name;
};

/* Fills ig from new.ignore (the config's list, NULL-terminated, or NULL) and from where db's file
 * lies, the strings it keeps in chunk. A pattern that is malformed or does not compile fails the run
 * before anything is read, as in notmuch: returns MAILDEX_STATUS_INVALID_ARGUMENT (the reason on db),
 * or MAILDEX_STATUS_NO_MEMORY; ig is then still to be cleared. */
maildex_status_t maildex__ignore_init(struct maildex__ignore *ig, maildex_db_t *db, const char *const *ignore,
                                      GStringChunk *chunk);
void maildex__ignore_clear(struct maildex__ignore *ig);

/* Whether new.ignore names dir/name (dir relative to the mail root, "" for the root). */
bool maildex__ignored(const struct maildex__ignore *ig, const char *dir, const char *name);

/* Whether dir/name is the database's own (its directory at the top, its files anywhere): not mail. */
bool maildex__ignore_internal(const struct maildex__ignore *ig, const char *dir, const char *name);

#endif
