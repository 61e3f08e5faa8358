/* SPDX-License-Identifier: GPL-3.0-or-later */
/* stemmer.h: Snowball's English stemmer, its library loaded on first use.
 *
 * Why: Debian's libstemmer holds every language's tables, and loading it relocates ~10,800 pointers
 * into them (~90 page faults, a third of a millisecond: `maildex --version` took 1.45 ms against 0.84
 * for /bin/true, and a program linked to libstemmer alone and doing nothing 1.13 ms). Only stemming
 * needs it: `count '*'`, tag, sender and date searches, --version and most commands never do. When
 * configure found the library's soname it is dlopen'ed here the first time a stemmer is made;
 * otherwise it is linked as usual. */
#ifndef MAILDEX_STEMMER_H
#define MAILDEX_STEMMER_H

struct maildex__stemmer;

/* A new English UTF-8 stemmer, or NULL (out of memory, or the library cannot be loaded: a message
 * naming it went to stderr once). Not thread-safe: one thread at a time per stemmer. */
struct maildex__stemmer *maildex__stemmer_new(void);

/* The stem of the n bytes at word, valid until the next call on st; *len its length. NULL when out of
 * memory. */
const char *maildex__stemmer_stem(struct maildex__stemmer *st, const char *word, int n, int *len);

void maildex__stemmer_free(struct maildex__stemmer *st);

#endif
