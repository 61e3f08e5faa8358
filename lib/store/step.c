/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Stepping statements the library's way: done or a row, the real error read from sqlite3_reset and
 * recorded with its context; the cached one-value look-ups built on them; SQL run without results
 * (schema, pragmas, the word list). What the statements mean belongs to their callers. */
#include "maildex-private.h"

maildex_status_t maildex__step_done(maildex_db_t *db, sqlite3_stmt *stmt, const char *context)
{
    int rc = sqlite3_step(stmt);

    if (rc == SQLITE_DONE || rc == SQLITE_ROW) {
        sqlite3_reset(stmt);
        return MAILDEX_STATUS_OK;
    }
    return maildex__sql_error(db, sqlite3_reset(stmt), context);
}

maildex_status_t maildex__step_row(maildex_db_t *db, sqlite3_stmt *stmt, bool *has_row,
                                   const char *context)
{
    int rc = sqlite3_step(stmt);

    *has_row = rc == SQLITE_ROW;
    if (rc == SQLITE_DONE || rc == SQLITE_ROW)
        return MAILDEX_STATUS_OK;
    return maildex__sql_error(db, sqlite3_reset(stmt), context);
}

maildex_status_t maildex__run_ids(maildex_db_t *db, maildex__stmt_id_t id, int64_t a, int64_t b,
                                  const char *context)
{
    sqlite3_stmt *stmt;
    maildex_status_t st = maildex__stmt(db, id, &stmt);

    if (st)
        return st;
    sqlite3_bind_int64(stmt, 1, a);
    if (sqlite3_bind_parameter_count(stmt) >= 2)
        sqlite3_bind_int64(stmt, 2, b);
    return maildex__step_done(db, stmt, context);
}

/* The one row, one column look-up behind maildex__lookup_id and maildex__lookup_int: stmt is cached
 * and bound. */
static maildex_status_t lookup_first(maildex_db_t *db, sqlite3_stmt *stmt, int64_t *value)
{
    bool row;
    maildex_status_t st = maildex__step_row(db, stmt, &row, "cannot look up a row");

    if (st == MAILDEX_STATUS_OK && row)
        *value = sqlite3_column_int64(stmt, 0);
    sqlite3_reset(stmt);
    return st;
}

maildex_status_t maildex__lookup_id(maildex_db_t *db, maildex__stmt_id_t id, const char *text,
                                    int64_t *value)
{
    sqlite3_stmt *stmt;
    maildex_status_t st = maildex__stmt(db, id, &stmt);

    *value = 0;
    if (st)
        return st;
    sqlite3_bind_text(stmt, 1, text, -1, SQLITE_STATIC);
    return lookup_first(db, stmt, value);
}

maildex_status_t maildex__lookup_int(maildex_db_t *db, maildex__stmt_id_t id, int64_t key,
                                     int64_t *value)
{
    sqlite3_stmt *stmt;
    maildex_status_t st = maildex__stmt(db, id, &stmt);

    *value = 0;
    if (st)
        return st;
    sqlite3_bind_int64(stmt, 1, key);
    return lookup_first(db, stmt, value);
}

maildex_status_t maildex__find_or_create(maildex_db_t *db, maildex__stmt_id_t find,
                                         maildex__stmt_id_t create, const char *text, int64_t *id)
{
    sqlite3_stmt *stmt;
    maildex_status_t st = maildex__lookup_id(db, find, text, id);

    if (st != MAILDEX_STATUS_OK || *id != 0)
        return st;
    st = maildex__stmt(db, create, &stmt);
    if (st)
        return st;
    sqlite3_bind_text(stmt, 1, text, -1, SQLITE_STATIC);
    st = maildex__step_done(db, stmt, "cannot create a row");
    if (st == MAILDEX_STATUS_OK)
        *id = sqlite3_last_insert_rowid(db->sql);
    return st;
}

maildex_status_t maildex__exec(maildex_db_t *db, const char *sql)
{
    int rc = sqlite3_exec(db->sql, sql, NULL, NULL, NULL);
    return rc == SQLITE_OK ? MAILDEX_STATUS_OK : maildex__sql_error(db, rc, "database error");
}

int maildex__pragma_int(sqlite3 *sql, const char *pragma, int64_t *value)
{
    sqlite3_stmt *stmt = NULL;
    int rc = sqlite3_prepare_v2(sql, pragma, -1, &stmt, NULL);

    if (rc == SQLITE_OK && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        *value = sqlite3_column_int64(stmt, 0);
        rc = SQLITE_OK;
    }
    sqlite3_finalize(stmt);
    return rc;
}

maildex_status_t maildex__vocab_ensure(maildex_db_t *db)
{
    sqlite3_stmt *probe = NULL;
    int rc;

    if (sqlite3_prepare_v2(db->sql, "SELECT 1 FROM temp.maildex_vocab LIMIT 0", -1, &probe, NULL) ==
        SQLITE_OK) {
        sqlite3_finalize(probe);
        return MAILDEX_STATUS_OK;
    }
    rc = sqlite3_exec(db->sql,
                      "CREATE VIRTUAL TABLE IF NOT EXISTS temp.maildex_vocab "
                      "USING fts5vocab(main, 'fts', 'row')",
                      NULL, NULL, NULL);
    return rc == SQLITE_OK ? MAILDEX_STATUS_OK
                           : maildex__sql_error(db, rc, "cannot open the word list");
}
