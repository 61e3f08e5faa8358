/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fts-words.h: the words of the full-text index that start with a prefix, and their keys, read from
 * the index's own segment pages.
 *
 * Why: FTS5 answers a prefix (`a*`) by merging the doclists of all its words, positions included,
 * before the first row (SQLite 3.40's fts5SetupPrefixIter), and even a word read alone goes through
 * its segment iterator entry by entry: at 100k messages `count 'not a*'` spent ~130 ms of CPU there.
 * The planner needs only which messages hold a word. A doclist on the pages is a run of key deltas,
 * each followed by the size of its position list, which can be passed over unread: reading the keys
 * so costs a few milliseconds. The word list of fts5vocab cannot help: it reads every word's whole
 * doclist to count it. The layout read is the file format described at the top of SQLite's
 * ext/fts5/fts5_index.c, which FTS5 keeps stable across versions (databases move between them).
 *
 * What it must not do: guess. Anything not laid out as expected (an unknown structure record, a page
 * that does not parse) makes it return NULL and the caller asks FTS5 for the prefix as before. A
 * deletion (a message removed or its text rewritten, until FTS5 merges it away) is applied as FTS5
 * applies it: for each key the newest segment's entry decides. A word listed may have no matches
 * left; a word that has one is never missing. It reads the committed index only: inside a write
 * transaction FTS5 may hold words not yet on any page, so the caller must not use it there. */
#ifndef MAILDEX_FTS_WORDS_H
#define MAILDEX_FTS_WORDS_H

#include "store/maildex-private.h"
#include "sqlext/sets.h"

#include <stddef.h>
#include <stdint.h>

struct maildex__fts_word {
    const char *text; /* NUL-terminated (words hold no NUL) */
    int64_t bytes;    /* how many bytes its doclists take, over every segment: a weight */
    /* Its keys in any column, read from its doclists on the pages: what FTS5 finds for the word. */
    struct maildex__set *keys;
};

/* The distinct words of the table fts that start with the len bytes of prefix, sorted bytewise, in
 * an array of *n on ctx. NULL when the index cannot be read this way (the caller falls back to FTS5);
 * an empty array when no word starts so. */
struct maildex__fts_word *maildex__fts_words(void *ctx, maildex_db_t *db, const char *prefix, size_t len,
                                             size_t *n);

/* The keys of one index token (a word as the tokenizer emits it: folded, or a stem with its marker;
 * len bytes), in any column, on ctx: an empty set when no document holds it. NULL when the index
 * cannot be read this way. */
struct maildex__set *maildex__fts_word_keys(void *ctx, maildex_db_t *db, const char *word, size_t len);

#endif
