/* The query planner: a parsed query (lib/query.h) becomes SQL that streams matching message ids in key
 * order (newest or oldest first) and stops when the caller stops stepping.
 *
 * The plan is built around one driving index chosen by selectivity (tags.messages,
 * threads.messages, fts5vocab document counts, and for folders, paths, properties and date ranges
 * counts that stop at a small cap, made only when an AND must choose); every other condition is a
 * per-row probe on primary keys (EXISTS), so `ORDER BY` is satisfied by the driving index and
 * SQLite never sorts or materialises the matches. An OR of drivable terms drives as a UNION whose
 * arms SQLite merges in key order. Every user value is a bound parameter (?10 and up; ?1..?9 are left to the
 * statements built from the plan). This file knows the schema and SQL; it must not print, read config
 * or know the public iterator types. Private to lib/. */
#ifndef MAILDEX_QUERY_PLAN_H
#define MAILDEX_QUERY_PLAN_H

#include "maildex-private.h"
#include "query.h"

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
};

struct maildex__bind {
    bool is_text;
    int64_t i;
    const char *s;
};

struct maildex__plan {
    /* "SELECT k FROM ... [UNION SELECT k FROM ...]": every matching (and, unless the mode is FLAG or
     * FALSE, not excluded) message id once, as column 1 named k, with no ORDER BY. */
    const char *stream;
    /* " ORDER BY 1 DESC" or " ORDER BY 1": appended to stream, it is satisfied by the driving index. */
    const char *order;
    /* stream with every arm's key limited to ?1..?2 (inclusive) and no de-duplication (a message may
     * come once per file): which messages of a key range match, read from the driving index. Thread
     * summaries ask it about the keys of one thread's messages, instead of evaluating match on each. */
    const char *ranged;
    /* A boolean SQL expression over the messages row aliased "m": does m match the query? (No
     * exclusion applied.) */
    const char *match;
    /* match holds a full-text probe: evaluating it costs an FTS5 query per message (a seek per index
     * segment per word), so reading ranged is cheaper than evaluating match on several messages. */
    bool match_costly;
    /* A boolean SQL expression over "m": does m carry an excluded tag the query does not name? "0"
     * when there is none (or the mode is FALSE). */
    const char *excluded;
    /* SQL whose one row is the number of messages stream returns, read from stored counts instead of
     * the stream (a single tag: tags.messages; everything: meta's message count; less the excluded
     * messages among them, read from the excluded tags' index entries); NULL
     * when the stream must be counted. Uses the plan's parameters. */
    const char *count;
    /* What drives the stream, for tests and debugging: "all", "tag", "fts", "folder", "path", "date",
     * "id", "thread", "property", "none", or "union" for several arms. */
    const char *driver;
    struct maildex__bind *binds;
    size_t nbinds;
};

/* Plans root for db. Returns MAILDEX_STATUS_OK and sets *out (allocated on ctx); or
 * MAILDEX_STATUS_QUERY_SYNTAX (a bad date, lastmod range or regex) or a database status, with *out
 * NULL and the message recorded on db. */
maildex_status_t maildex__plan_build(void *ctx, maildex_db_t *db, const struct maildex__qnode *root,
                                     const struct maildex__plan_options *opts,
                                     struct maildex__plan **out);

/* Binds the plan's values to stmt, skipping parameter numbers stmt does not have. Returns
 * MAILDEX_STATUS_OK or a database status recorded on db. */
maildex_status_t maildex__plan_bind(maildex_db_t *db, const struct maildex__plan *plan,
                                    sqlite3_stmt *stmt);

/* Registers regexp(pattern, value) (so `value REGEXP pattern` works) on the connection unless it is
 * there already: GLib's GRegex, case-sensitive, compiled once per statement. Returns SQLITE_OK or an
 * SQLite error code. */
int maildex__regexp_register(sqlite3 *sql);

/* Checks that pattern compiles as a regex; returns NULL or a message talloc'd on ctx. */
char *maildex__regexp_check(void *ctx, const char *pattern);

/* Creates (once per connection) the temp.maildex_vocab fts5vocab table over fts ("row" kind). */
maildex_status_t maildex__vocab_ensure(maildex_db_t *db);

#endif
