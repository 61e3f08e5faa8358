/* stmt.h: the per-handle prepared-statement cache, the FTS5 way. Every SQL statement the library runs
 * more than once is listed here with an id; maildex__stmt() prepares it on first use with
 * SQLITE_PREPARE_PERSISTENT and hands it out reset with its bindings cleared. All of them are finalized
 * when the database closes. Statements whose text depends on the query (the planner's) are not cached
 * here. Values are always bound; no statement text is ever built from user input. */
#ifndef MAILDEX_STMT_H
#define MAILDEX_STMT_H

#include "maildex.h"

#include <sqlite3.h>

#define MAILDEX__STMT_LIST(X)                                                                 \
    X(META_GET, "SELECT value FROM meta WHERE key = ?1")                                      \
    X(META_SET, "INSERT INTO meta(key, value) VALUES (?1, ?2) "                               \
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value")                      \
    X(REVISION_BUMP, "UPDATE meta SET value = value + 1 WHERE key = 'revision' "              \
                     "RETURNING value")                                                       \
    X(CONFIG_GET, "SELECT value FROM config WHERE key = ?1")                                  \
    X(CONFIG_SET, "INSERT INTO config(key, value) VALUES (?1, ?2) "                           \
                  "ON CONFLICT(key) DO UPDATE SET value = excluded.value")                    \
    X(CONFIG_DELETE, "DELETE FROM config WHERE key = ?1")                                     \
    X(BEGIN, "BEGIN IMMEDIATE")                                                               \
    X(COMMIT, "COMMIT")                                                                       \
    X(ROLLBACK, "ROLLBACK")

typedef enum {
#define MAILDEX__STMT_ENUM(name, sql) MAILDEX__STMT_##name,
    MAILDEX__STMT_LIST(MAILDEX__STMT_ENUM)
#undef MAILDEX__STMT_ENUM
    MAILDEX__STMT_COUNT
} maildex__stmt_id_t;

struct maildex_db;

/* Sets *out to the cached statement id, prepared if needed, reset and with bindings cleared. On
 * failure *out is NULL and the error is recorded on db. */
maildex_status_t maildex__stmt(struct maildex_db *db, maildex__stmt_id_t id, sqlite3_stmt **out);

/* The SQL text of a statement id (tests, EXPLAIN QUERY PLAN). */
const char *maildex__stmt_sql(maildex__stmt_id_t id);

/* Finalizes every cached statement; the database destructor calls it before sqlite3_close. */
void maildex__stmt_finalize_all(struct maildex_db *db);

#endif
