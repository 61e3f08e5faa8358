/* SPDX-License-Identifier: GPL-3.0-or-later */
/* key-order.h: a query's matches in notmuch's order, read from a statement that streams their keys.
 * notmuch (Xapian) sorts by date and lists the messages of one date in the order it indexed them, in
 * both directions. A key is its date's second times 2^20 plus a tie-break handed out downwards
 * (maildex__store_allocate_key), so keys descending are notmuch's newest first as they come, and keys
 * ascending list each second's messages backwards: the iterator here turns each such run around,
 * holding one second's keys at a time, and applies the offset and limit after, so that they cut
 * notmuch's list. (A second with more than 2^20 messages spills into the next key range, where its
 * overflow is a run of its own.) It must not hold more than one run, nor read further than the key
 * after it. */
#ifndef MAILDEX_KEY_ORDER_H
#define MAILDEX_KEY_ORDER_H

#include "store/maildex-private.h"

#include <stdbool.h>
#include <stdint.h>

struct maildex__key_order;

/* The second a key belongs to. */
static inline int64_t maildex__key_second(int64_t key)
{
    return key >> MAILDEX__KEY_SHIFT;
}

/* Whether key a comes before key b in notmuch's order, newest or oldest first: by date, then in the
 * order they were indexed (descending keys within a second). */
static inline bool maildex__key_before(int64_t a, int64_t b, bool oldest_first)
{
    if (oldest_first && maildex__key_second(a) != maildex__key_second(b))
        return a < b;
    return a > b;
}

/* An iterator over stmt's keys (column 0), which stmt streams ascending when oldest_first, else
 * descending; a talloc child of ctx, which also owns stmt. NULL when out of memory. */
struct maildex__key_order *maildex__key_order_new(void *ctx, sqlite3_stmt *stmt, bool oldest_first);

/* Offset and limit (negative: none) for a stream that ends in "LIMIT ?limit_param OFFSET
 * ?offset_param": bound there when the stream is in notmuch's order already, so that SQLite stops
 * where notmuch would; otherwise the stream is bound unlimited and the iterator applies them after
 * reordering. */
void maildex__key_order_limit(struct maildex__key_order *ko, int limit_param, int offset_param,
                              uint64_t offset, int64_t limit);

/* Sets *key to the next key in notmuch's order and *got to true, or *got to false at the end.
 * Returns MAILDEX_STATUS_OK or the statement's error, recorded on db. */
maildex_status_t maildex__key_order_next(maildex_db_t *db, struct maildex__key_order *ko, int64_t *key,
                                         bool *got);

#endif
