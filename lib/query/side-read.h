/* SPDX-License-Identifier: GPL-3.0-or-later */
/* side-read.h: parts of one query read on a second connection, on a thread of their own, while the
 * query's connection reads the other parts.
 *
 * Why: an XOR (or a long OR) of prefixes is the sum of its parts' costs, and a prefix's part is FTS5
 * merging every word's doclist on one core (`a*` and `th*` at 100k: ~90 and ~110 ms each). Two parts
 * on two cores cost the slower one. A lone prefix read word by word (fts-prefix.c) puts half of its
 * words here the same way. SQLite connections are not shared between threads here: the side
 * opens its own read-only connection on the same database, so nothing of the query's connection (its
 * statement cache, its tokenizer state) is touched from the thread.
 *
 * Isolation: as each of the planner's pre-reads already is, a side read is one statement in its own
 * read snapshot (searches run in autocommit mode; maildex_db_begin_read's transaction is dump's).
 *
 * A side read never fails the query: when the side cannot open the database, or a part's statement
 * binds a value a thread may not touch (a full-text cursor, maildex_match), the caller is told to read
 * that part itself, which gives the same keys and reports any error as a sequential read would. */
#ifndef MAILDEX_SIDE_READ_H
#define MAILDEX_SIDE_READ_H

#include "plan-types.h"
#include "sqlext/sets.h"

#include <stddef.h>

struct maildex__side_read;

/* Starts reading, on a new thread and connection to db's file, the integers of column 0 of each of
 * the n statements sqls[], each run with plan's values (copied: the caller may add values after).
 * Returns NULL when no thread could be started (the caller reads every part itself). */
struct maildex__side_read *maildex__side_read_start(void *ctx, maildex_db_t *db, const char *const *sqls,
                                                    size_t n, const struct maildex__plan *plan);

/* Waits for the thread. Fills out[i] (a set talloc'd on ctx) for each part read, NULL for a part the
 * caller must read itself, and adds the side's VM steps and pages to db's side_steps and side_pages.
 * Frees r. */
void maildex__side_read_finish(struct maildex__side_read *r, maildex_db_t *db, void *ctx,
                               struct maildex__set **out);

#endif
