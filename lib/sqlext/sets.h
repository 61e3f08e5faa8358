/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sets.h: what a plan's probes call instead of re-reading an index per candidate row.
 *
 * A set is an immutable sorted array of integers (thread ids, tag ids, directory ids) or strings
 * (Message-IDs), built once per query and looked up by binary search: `maildex_in(?N, m.thread)`.
 * A match is a full-text expression whose matching keys a statement reads once, in key order,
 * merged with the candidate rows as the driving index hands them out: `maildex_match(?N, m.id)`
 * steps the expression's own FTS5 stream up to m.id instead of starting a full-text query for each
 * row (which read the term's whole index entry every time: `tag:inbox and a*` took over a minute on
 * 20,000 messages). Each statement gets its own cursor; a cursor asked for keys out of order starts
 * again at the key (a seek), and an expression that is costly to start (a prefix term) or a cursor
 * that had to start again too often reads every match once into a sorted array shared by the query.
 *
 * A set also drives a join as the rows of maildex_set(?N): a set of message keys streams in key order,
 * and a set of any size needs no parameter per value.
 *
 * Both are handed to SQL only as bound pointers (sqlite3_bind_pointer), which SQL text cannot forge.
 * Nothing here knows the query language. */
#ifndef MAILDEX_QUERY_SETS_H
#define MAILDEX_QUERY_SETS_H

#include <glib.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

struct maildex__set;
struct maildex__match;

/* A set of the integers in values (any order, duplicates allowed), talloc'd on ctx; NULL when out of
 * memory. */
struct maildex__set *maildex__set_of_ints(void *ctx, const int64_t *values, size_t n);

/* A set of the strings (copied), talloc'd on ctx; NULL when out of memory. */
struct maildex__set *maildex__set_of_texts(void *ctx, const char *const *values, size_t n);
/* The integers of column 0 of every row stmt steps through, as a set on ctx. NULL with *rc the
 * SQLite result code (SQLITE_NOMEM when out of memory) when a step fails; *rc is SQLITE_DONE after a
 * set. */
struct maildex__set *maildex__set_of_column(void *ctx, sqlite3_stmt *stmt, int *rc);
/* The integers of a or b (in_one_only: of exactly one of them), in one linear pass. */
struct maildex__set *maildex__set_merge(void *ctx, const struct maildex__set *a,
                                       const struct maildex__set *b, bool in_one_only);

/* The integers of any of the n sets: what merging them pairwise gives, without the sets in between
 * (the keys the largest set lacks, found by walking it once per set, merged into it once). NULL when
 * out of memory. */
struct maildex__set *maildex__set_union(void *ctx, struct maildex__set *const *sets, size_t n);

size_t maildex__set_size(const struct maildex__set *s);
bool maildex__set_has_int(const struct maildex__set *s, int64_t value);
int64_t maildex__set_int(const struct maildex__set *s, size_t i); /* ascending */

/* A full-text MATCH expression (FTS5 syntax, built by the planner) over the table fts. costly:
 * starting it costs about as much as reading all of it (FTS5 merges a prefix term's whole doclist
 * first), so a cursor reads it whole at its first jump backwards. descending: the order most
 * statements ask in (newest first). Talloc'd on ctx; NULL when out of memory. */
struct maildex__match *maildex__match_new(void *ctx, const char *expression, bool costly,
                                          bool descending);

/* Binds set, or a new cursor of match, to parameter k of stmt. Returns an SQLite result code. */
int maildex__set_bind(const struct maildex__set *set, sqlite3_stmt *stmt, int k);
int maildex__match_bind(struct maildex__match *match, sqlite3_stmt *stmt, int k);

/* Registers maildex_in(set, value), maildex_match(cursor, key) and the table-valued function
 * maildex_set(set) (the set as rows of one column, value, in the order an ORDER BY value asks) on a
 * connection. */
int maildex__sets_register(sqlite3 *sql);

#endif
