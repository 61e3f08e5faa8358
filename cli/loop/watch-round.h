/* SPDX-License-Identifier: GPL-3.0-or-later */
/* watch-round.h: what one indexing round of a watch did, the type its host hears of (watch.h), the
 * store's watch lock records (watch-lock.h) and a watch that defers to another one passes on
 * (watch-follow.h). Types only: nothing here is called. */
#ifndef MAILDEX_CLI_WATCH_ROUND_H
#define MAILDEX_CLI_WATCH_ROUND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What one indexing round did; valid during the round callback only. */
struct watch_round {
    uint64_t added;      /* messages new to the store (maildex_index_stats_t.messages_added) */
    uint64_t removed;    /* messages whose last file went */
    uint64_t renamed;    /* files moved or renamed, or added to or taken from a message that kept
                            another (notmuch's "file renames") */
    const uint64_t *threads; /* the threads whose messages changed in the round (a message added,
                                removed, or a file of it moved; a thread merged into another is
                                listed too), n_threads of them, as maildex_thread_id() gives them:
                                print with "%016" PRIx64 for a thread: query */
    size_t n_threads;
    bool full;           /* a pass over the whole mail root: the first, and after a lost event */
    int status;          /* 0; else the exit status `new` would give for this round (1: an error,
                            75: files vanished); error says why */
    const char *error;   /* NULL, or a message without a trailing newline */
};

#endif
