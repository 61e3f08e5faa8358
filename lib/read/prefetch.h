/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prefetch.h: what show.c asks of a thread's read-ahead (maildex.h,
 * maildex_parts_prefetch_start): the tree of a message parsed ahead. */
#ifndef MAILDEX_PARTS_PREFETCH_H
#define MAILDEX_PARTS_PREFETCH_H

#include "store/maildex-private.h"

/* When m's query has a read-ahead begun with the same duplicate and opts (the same pointer) that holds
 * m: waits for m's parse if the other thread is at it, and returns true with *st its status and *root
 * the tree (a child of m) on OK. Returns false when m is to be parsed by the caller: not read ahead,
 * or not reached yet (the other thread then leaves it). */
bool maildex__parts_prefetched(maildex_message_t *m, int duplicate, const maildex_parts_options_t *opts,
                               struct maildex_part **root, maildex_status_t *st);

/* How many of the other thread's parses p handed to the caller so far (for the tests). */
size_t maildex__parts_prefetch_handed(const maildex_parts_prefetch_t *p);

#endif
