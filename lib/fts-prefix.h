/* fts-prefix.h: a lone prefix's matches (`a*`, `subject:pro*`) read word by word, on two cores.
 *
 * Why: FTS5 answers a prefix by merging all its words' doclists with their positions before the
 * first row; the planner needs only the keys. Each word read alone as an exact term costs about half
 * as much in all (at 100k messages `a*`: 165 words, 530,000 entries), and the words, weighed by the
 * size of their doclists, split into two halves read on two connections and cores (side-read.c), so
 * a prefix costs about a quarter of FTS5's merge. The words come from fts-words.c.
 *
 * Exactly FTS5's answer or nothing: only a prefix of ASCII letters, digits and '_' (which the
 * tokenizer folds to lower case and nothing else) whose words are all of those characters (each then
 * tokenizes back to itself as an exact term) is read this way; for any other, or when the words
 * cannot be listed or a read fails, NULL tells the caller to ask FTS5 for the prefix itself. Not
 * inside a write transaction (fts-words.h). */
#ifndef MAILDEX_FTS_PREFIX_H
#define MAILDEX_FTS_PREFIX_H

#include "maildex-private.h"
#include "query-sets.h"

/* The keys of the messages with a word that starts with prefix, in column (an FTS5 column name from
 * the planner's own table, NULL for every column), as a set on ctx; NULL when the caller must ask
 * FTS5 (see above). */
struct maildex__set *maildex__fts_prefix_keys(void *ctx, maildex_db_t *db, const char *column,
                                              const char *prefix);

#endif
