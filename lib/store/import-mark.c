/* SPDX-License-Identifier: GPL-3.0-or-later */
/* import-mark.c: the store's record of whether notmuch's tags were carried over into it, the row
 * meta('notmuch_import') that sql/0011-notmuch-import.sql starts. The library keeps the word the host
 * writes and gives it back; what the words mean, and running notmuch, are the host's
 * (cli/base/notmuch-import.c). */
#include "maildex-private.h"

maildex_status_t maildex_db_notmuch_import_get(maildex_db_t *db, const char **state)
{
    sqlite3_stmt *stmt;
    maildex_status_t st = maildex__stmt(db, MAILDEX__STMT_META_GET, &stmt);
    bool row = false;

    *state = NULL;
    if (st)
        return st;
    sqlite3_bind_text(stmt, 1, "notmuch_import", -1, SQLITE_STATIC);
    st = maildex__step_row(db, stmt, &row, "cannot read whether notmuch's tags were imported");
    if (st == MAILDEX_STATUS_OK) {
        talloc_free(db->config_value);
        /* No row: a database this version did not migrate cannot be open, but never hand out NULL. */
        db->config_value = talloc_strdup(db, row ? (const char *) sqlite3_column_text(stmt, 0) : "before");
        *state = db->config_value;
    }
    sqlite3_reset(stmt);
    return st;
}

maildex_status_t maildex_db_notmuch_import_set(maildex_db_t *db, const char *state)
{
    sqlite3_stmt *stmt;
    maildex_status_t st;

    if (state == NULL)
        return maildex__error(db, MAILDEX_STATUS_INVALID_ARGUMENT, "no import state given");
    if (db->mode == MAILDEX_DB_READ_ONLY)
        return maildex__error(db, MAILDEX_STATUS_READ_ONLY, "database '%s' was opened read-only", db->path);
    if ((st = maildex__begin(db)) != MAILDEX_STATUS_OK)
        return st;
    st = maildex__stmt(db, MAILDEX__STMT_META_SET, &stmt);
    if (st == MAILDEX_STATUS_OK) {
        sqlite3_bind_text(stmt, 1, "notmuch_import", -1, SQLITE_STATIC);
        sqlite3_bind_text(stmt, 2, state, -1, SQLITE_STATIC);
        st = maildex__step_done(db, stmt, "cannot record whether notmuch's tags were imported");
        sqlite3_clear_bindings(stmt);
    }
    if (st) {
        maildex__rollback(db);
        return st;
    }
    return maildex__commit(db);
}
