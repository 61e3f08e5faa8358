/* parts-prefetch.h: reading a thread's files ahead (maildex.h, maildex_parts_prefetch_start) and the
 * pieces of show.c it shares: reading a message's files without the database, and the status of a
 * read that failed. */
#ifndef MAILDEX_PARTS_PREFETCH_H
#define MAILDEX_PARTS_PREFETCH_H

#include "maildex-private.h"
#include "mime.h"

/* Parses files[0..n) as maildex_message_parts picks among a message's files (file number duplicate,
 * or for 0 the first that can be read), on ctx; touches no database, so any thread may run it.
 * Returns the last MAILDEX__PARSE_* code, *tried the file it was for, *error (on ctx) why it failed;
 * *root is the tree on MAILDEX__PARSE_OK. n must be at least 1 and duplicate at most n. (show.c) */
int maildex__parts_read(void *ctx, const struct maildex__mime_ops *ops, const maildex_parts_options_t *opts,
                        const char *const *files, size_t n, int duplicate, struct maildex_part **root,
                        size_t *tried, char **error);

/* The status of a read that ended with code rc on file (OK for MAILDEX__PARSE_OK), the reason on db.
 * (show.c) */
maildex_status_t maildex__parts_status(maildex_db_t *db, int rc, const char *file, const char *error);

/* When m's query has a read-ahead begun with the same duplicate and opts (the same pointer) that holds
 * m: waits for m's parse if the other thread is at it, and returns true with *st its status and *root
 * the tree (a child of m) on OK. Returns false when m is to be parsed by the caller: not read ahead,
 * or not reached yet (the other thread then leaves it). */
bool maildex__parts_prefetched(maildex_message_t *m, int duplicate, const maildex_parts_options_t *opts,
                               struct maildex_part **root, maildex_status_t *st);

/* How many of the other thread's parses p handed to the caller so far (for the tests). */
size_t maildex__parts_prefetch_handed(const maildex_parts_prefetch_t *p);

#endif
