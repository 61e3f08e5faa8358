/* SPDX-License-Identifier: GPL-3.0-or-later */
/* store-fixture.h: the generated stores the unit tests measure work on: n messages, one every 10 minutes
 * going back from 2024-06-01 (so a bigger store reaches further back and its newest messages are the
 * same), in threads of 8 interleaved 16 at a time, 20 Zipf-distributed words of a 5,000-word
 * vocabulary each ("w" + syllables: wlo is the commonest, wsa next...), ten senders, inbox 30%, unread
 * 20%, flagged 5%, spam 2%, three folders, the property k=ten on every tenth message (k=hundred on
 * every hundredth instead). Built through the library's writer, as `new` would index
 * that mail, once per program and size; and how to count the work a piece of code costs on one. */
#ifndef MAILDEX_STORE_FIXTURE_H
#define MAILDEX_STORE_FIXTURE_H

#include "store/maildex-private.h"

/* The store of n messages, opened read-only (built on first use, then reopened). Close it with
 * maildex_db_close. */
maildex_db_t *fixture_big_store(int n);

/* The work done on db since the last call: VM steps of every statement (reset, finalized or still
 * alive) and pages the pager handed out (hits and misses: FTS5 reads its index as blobs, whose work
 * VM steps do not show). Call once before the work to start counting. */
struct work {
    int64_t steps, pages;
};
void fixture_work_start(maildex_db_t *db);
struct work fixture_work_done(maildex_db_t *db);

#endif
