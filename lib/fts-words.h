/* fts-words.h: the words of the full-text index that start with a prefix, read from the index's own
 * segment pages.
 *
 * Why: FTS5 answers a prefix (`a*`) by merging the doclists of all its words, positions included,
 * before the first row (SQLite 3.40's fts5SetupPrefixIter): at 100k messages that merge is two thirds
 * of `count a*`. Asked one at a time, the same words cost half as much, and they can be split over
 * two cores (fts-prefix.c). The word list of fts5vocab cannot give them cheaply: it reads every
 * word's whole doclist to count it. The segment pages can: FTS5's page footer lists the offset of
 * every word that starts on a page, and the fts_idx table names the pages where words start, so the
 * words of a prefix are found by reading only the pages where they begin (the file format described
 * at the top of SQLite's ext/fts5/fts5_index.c, which FTS5 keeps stable across versions).
 *
 * What it must not do: guess. Anything not laid out as expected (an unknown structure record, a page
 * that does not parse) makes it return NULL and the caller asks FTS5 for the prefix as before. A
 * word listed here may have no matches left (its doclist holds only deletions); a word that has one
 * is never missing. It reads the committed index only: inside a write transaction FTS5 may hold
 * words not yet on any page, so the caller must not use it there. */
#ifndef MAILDEX_FTS_WORDS_H
#define MAILDEX_FTS_WORDS_H

#include "maildex-private.h"

#include <stddef.h>
#include <stdint.h>

struct maildex__fts_word {
    const char *text; /* NUL-terminated (words hold no NUL) */
    int64_t bytes;    /* about how many bytes its doclists take, over every segment: a weight */
};

/* The distinct words of the table fts that start with the len bytes of prefix, sorted bytewise, in
 * an array of *n on ctx. NULL when the index cannot be read this way (the caller falls back to FTS5);
 * an empty array when no word starts so. */
struct maildex__fts_word *maildex__fts_words(void *ctx, maildex_db_t *db, const char *prefix, size_t len,
                                             size_t *n);

#endif
