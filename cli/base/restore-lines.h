/* SPDX-License-Identifier: GPL-3.0-or-later */
/* restore-lines.h: a dump's lines applied to the store as notmuch 0.37's restore applies them, for
 * `restore` and for the tags `new` and `import-notmuch` carry over from notmuch (notmuch-import.c).
 * What a line means is the library's (maildex_batch_line_parse); this reads lines and applies them. */
#ifndef MAILDEX_CLI_RESTORE_LINES_H
#define MAILDEX_CLI_RESTORE_LINES_H

#include "base.h"

#include <zlib.h>

enum { RESTORE_FORMAT_AUTO, RESTORE_FORMAT_BATCH_TAG, RESTORE_FORMAT_SUP };

struct restore {
    struct cli *cli;
    int format;         /* RESTORE_FORMAT_*: auto is decided by the first tag line */
    int include;        /* INCLUDE_*: the parts applied; the others' lines are not even parsed */
    unsigned tag_flags; /* MAILDEX_TAG_REMOVE_ALL (not --accumulate), MAILDEX_TAG_SYNC_FLAGS */
    /* After a message's tags, its files' Maildir flags decide its draft, flagged, passed, replied
     * and unread tags, as notmuch's next `new` would decide them for files it has not seen. */
    bool flags_from_files;
    /* A line for a message the store does not have is counted in missing, not warned about. */
    bool count_missing;
    /* What was applied: tag lines, property lines, config lines; the tag lines of messages not in
     * the store (a dump has one for every message). */
    uint64_t tagged, properties, config, missing;
    bool bad_line; /* a line was skipped with a warning */
};

/* Applies every line of in (plain or gzip; name names it in messages) in atomic sections of 5,000
 * lines, each a transaction of its own unless the caller holds an atomic section around the call.
 * A bad line is warned about and skipped (r->bad_line tells). Returns 0, or an exit status after
 * reporting why the restore stopped (the input could not be read, the database failed). */
int restore_lines(struct restore *r, gzFile in, const char *name);

#endif
