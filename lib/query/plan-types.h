/* SPDX-License-Identifier: GPL-3.0-or-later */
/* plan-types.h: what a plan is (the statements a query becomes, and the values bound to them) and its
 * options, for the planner that makes one (plan.h), the files below it that read one (side-read.c
 * binds a plan's values on its own connection) and lib/read, which runs one. The binding itself is
 * planner.c's. Nothing here builds a plan. Private to lib/. */
#ifndef MAILDEX_QUERY_PLAN_TYPES_H
#define MAILDEX_QUERY_PLAN_TYPES_H

#include "store/maildex-private.h"

#include <stdbool.h>
#include <stdint.h>

/* The first parameter number the plan's own values use. */
#define MAILDEX__PLAN_FIRST_PARAM 10

enum maildex__exclude_mode {
    MAILDEX__EXCLUDE_TRUE = 0, /* excluded messages are not matches */
    MAILDEX__EXCLUDE_FALSE,    /* exclude_tags are ignored */
    MAILDEX__EXCLUDE_FLAG,     /* excluded messages match and are flagged */
    MAILDEX__EXCLUDE_ALL,      /* as TRUE, and excluded messages vanish from threads too */
};

struct maildex__plan_options {
    bool oldest_first;
    enum maildex__exclude_mode exclude;
    const char *const *exclude_tags; /* NULL-terminated; may be NULL */
    int64_t now;                     /* the "now" of relative dates; 0 means time(NULL) */
    bool bare_errors;                /* errors are the message alone, as notmuch's sexp parser gives
                                      * them (no "syntax error at position N:") */
    bool every_match;                /* the caller reads every match (no limit: a count, a tag): a
                                      * part's matches may be read whole at once, which a limit's
                                      * early stop would not repay */
};

/* What drives a plan's stream (for tests, debugging and the thread iterator's choices). */
enum maildex__driver {
    MAILDEX__DRIVER_ALL,      /* every message, by key */
    MAILDEX__DRIVER_NONE,     /* nothing can match */
    MAILDEX__DRIVER_SCAN,     /* every message, each probed */
    MAILDEX__DRIVER_TAG,
    MAILDEX__DRIVER_FTS,
    MAILDEX__DRIVER_FOLDER,
    MAILDEX__DRIVER_PATH,
    MAILDEX__DRIVER_DATE,
    MAILDEX__DRIVER_ID,
    MAILDEX__DRIVER_THREAD,
    MAILDEX__DRIVER_PROPERTY,
    MAILDEX__DRIVER_UNION,    /* several arms merged in key order */
};

enum maildex__bind_kind {
    MAILDEX__BIND_INT,
    MAILDEX__BIND_TEXT,
    MAILDEX__BIND_SET,   /* a struct maildex__set (sqlext/sets.h), bound as a pointer */
    MAILDEX__BIND_MATCH, /* a struct maildex__match: each statement gets its own cursor */
};

struct maildex__bind {
    enum maildex__bind_kind kind;
    int64_t i;
    const char *s;
    void *ptr;
};

struct maildex__plan {
    /* "SELECT k FROM ... [UNION SELECT k FROM ...]": every matching (and, unless the mode is FLAG or
     * FALSE, not excluded) message id once, as column 1 named k, with no ORDER BY. */
    const char *stream;
    /* " ORDER BY 1 DESC" or " ORDER BY 1": appended to stream, it is satisfied by the driving index
     * (unless an arm joins a set's rows, maildex_set, which SQLite then sorts). */
    const char *order;
    /* stream with every arm's key limited to ?1..?2 (inclusive) and no de-duplication (a message may
     * come once per file): which messages of a key range match, read from the driving index. Thread
     * summaries ask it about the keys of one thread's messages, instead of evaluating match on each. */
    const char *ranged;
    /* A boolean SQL expression over the messages row aliased "m": does m match the query? (No
     * exclusion applied.) */
    const char *match;
    /* match reads a full-text cursor: evaluating it on a few messages of one thread costs a seek in
     * the full-text index, so reading ranged is cheaper than evaluating match on each. */
    bool match_costly;
    /* A boolean SQL expression over "m": does m carry an excluded tag the query does not name? "0"
     * when there is none (or the mode is FALSE). */
    const char *excluded;
    /* Whether excluded hides messages (modes TRUE and ALL, and something to exclude). */
    bool hides;
    /* SQL whose one row is the number of messages stream returns, read from stored counts instead of
     * the stream (a single tag: tags.messages; everything: meta's message count; less the excluded
     * messages among them, read from the excluded tags' index entries); NULL when the stream must be
     * counted. Uses the plan's parameters. */
    const char *count;
    enum maildex__driver driver;
    struct maildex__bind *binds;
    size_t nbinds;
};

/* Binds the plan's values to stmt (a fresh full-text cursor per statement), skipping parameter
 * numbers stmt does not have. Returns MAILDEX_STATUS_OK or a database status recorded on db. */
maildex_status_t maildex__plan_bind(maildex_db_t *db, const struct maildex__plan *plan,
                                    sqlite3_stmt *stmt);

/* The same, returning an SQLite result code. Without cursors (on another thread than the query's,
 * which owns them), a statement that uses a full-text cursor gets SQLITE_MISUSE and nothing bound. */
int maildex__plan_bind_values(const struct maildex__plan *plan, sqlite3_stmt *stmt, bool cursors);

#endif
