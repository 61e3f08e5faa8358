/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The prepared-statement cache (see stmt.h). Preparing is lazy so that opening the database stays
 * cheap for a one-shot command that runs three statements. */
#include "maildex-private.h"

static const char *const stmt_sql[MAILDEX__STMT_COUNT] = {
#define MAILDEX__STMT_TEXT(name, sql) sql,
    MAILDEX__STMT_LIST(MAILDEX__STMT_TEXT)
#undef MAILDEX__STMT_TEXT
};

const char *maildex__stmt_sql(maildex__stmt_id_t id)
{
    return id < MAILDEX__STMT_COUNT ? stmt_sql[id] : NULL;
}

maildex_status_t maildex__stmt(struct maildex_db *db, maildex__stmt_id_t id, sqlite3_stmt **out)
{
    sqlite3_stmt *stmt = db->stmts[id];

    *out = NULL;
    /* The progress handler stops long statements of a handle cancelled outright; a short one
     * started after the cancel would run to its end. */
    if (maildex__cancelled(db) >= MAILDEX_CANCEL_ALL)
        return maildex__sql_error(db, SQLITE_INTERRUPT, "cannot start a statement");
    if (stmt == NULL) {
        int rc = sqlite3_prepare_v3(db->sql, stmt_sql[id], -1, SQLITE_PREPARE_PERSISTENT, &stmt,
                                    NULL);
        if (rc != SQLITE_OK)
            return maildex__sql_error(db, rc, "cannot prepare statement");
        db->stmts[id] = stmt;
    } else {
        sqlite3_reset(stmt);
        sqlite3_clear_bindings(stmt);
    }
    *out = stmt;
    return MAILDEX_STATUS_OK;
}

void maildex__stmt_finalize_all(struct maildex_db *db)
{
    for (int i = 0; i < MAILDEX__STMT_COUNT; i++) {
        sqlite3_finalize(db->stmts[i]);
        db->stmts[i] = NULL;
    }
}
