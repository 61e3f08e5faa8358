/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fts-prefix.h: a lone prefix's matches (`a*`, `subject:pro*`) without FTS5's prefix merge, and a
 * word's without its position lists.
 *
 * Why: FTS5 answers a prefix by merging all its words' doclists with their positions before the
 * first row; the planner needs only the keys. In every column, the words' keys are read from the
 * index's pages (fts-words.c: `count 'not a*'` at 100k took 84 ms of CPU instead of 194). Every
 * word of a prefix in one column (the pages' keys are of every column) is read through FTS5 as an
 * exact term, in ORs of up to 16, heaviest first, half of them on a second connection and core
 * (side-read.c) when they are heavy.
 *
 * Exactly FTS5's answer or nothing: only a prefix of ASCII letters, digits and '_' (which the
 * tokenizer folds to lower case and nothing else) whose words are all of those characters (each then
 * tokenizes back to itself as an exact term) is read this way; for any other, or when the words
 * cannot be listed or a read fails, NULL tells the caller to ask FTS5 for the prefix itself. Not
 * inside a write transaction (fts-words.h). */
#ifndef MAILDEX_FTS_PREFIX_H
#define MAILDEX_FTS_PREFIX_H

#include "store/maildex-private.h"
#include "sqlext/sets.h"

/* The keys of the messages with a word that starts with prefix, in column (an FTS5 column name from
 * the planner's own table, NULL for every column), as a set on ctx; NULL when the caller must ask
 * FTS5 (see above). */
struct maildex__set *maildex__fts_prefix_keys(void *ctx, maildex_db_t *db, const char *column,
                                              const char *prefix);

/* The keys of the messages holding the one word (or stemmed word) of MATCH literal (sqlext/tokenizer.h)
 * in any column, read from the pages token by token, as a set on ctx; NULL when the caller must ask
 * FTS5: a phrase, a read that fails, inside a write transaction. For a caller that reads every match
 * anyway (a count, an XOR): `the xor to` at 100k reads 2 doclists' keys instead of FTS5 walking 4
 * doclists' positions twice. */
struct maildex__set *maildex__fts_term_keys(void *ctx, maildex_db_t *db, const char *literal);

#endif
