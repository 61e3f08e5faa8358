/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The migration runner: brings a database's schema to the newest version this library knows by
 * applying the compiled-in sql/NNNN-name.sql files in order, each in its own transaction together with
 * its PRAGMA user_version, so a crash leaves the database at one version or the next, never between; a
 * new database gets them all in one transaction, so it is either made whole or not at all.
 * A database from a newer maildex is refused untouched. */
#include "maildex-private.h"

#include <glib.h>

int maildex_schema_version_supported(void)
{
    return maildex__migrations[maildex__migration_count - 1].version;
}

int maildex_db_schema_version(maildex_db_t *db)
{
    sqlite3_stmt *stmt;
    int version = -1;

    if (sqlite3_prepare_v2(db->sql, "PRAGMA user_version", -1, &stmt, NULL) != SQLITE_OK)
        return -1;
    if (sqlite3_step(stmt) == SQLITE_ROW)
        version = sqlite3_column_int(stmt, 0);
    sqlite3_finalize(stmt);
    return version;
}

/* The UUID is fixed at creation: `count --lastmod` prints it so clients can tell a rebuilt database from
 * the one whose revisions they remember. */
static maildex_status_t store_uuid(maildex_db_t *db)
{
    char *uuid = g_uuid_string_random();
    sqlite3_stmt *stmt;
    maildex_status_t st = maildex__stmt(db, MAILDEX__STMT_META_SET, &stmt);

    if (st == MAILDEX_STATUS_OK) {
        sqlite3_bind_text(stmt, 1, "uuid", -1, SQLITE_STATIC);
        sqlite3_bind_text(stmt, 2, uuid, -1, SQLITE_TRANSIENT);
        if (sqlite3_step(stmt) != SQLITE_DONE)
            st = maildex__sql_error(db, sqlite3_reset(stmt), "cannot store the database uuid");
        sqlite3_reset(stmt);
    }
    g_free(uuid);
    return st;
}

/* Applies migrations[first .. last] in one transaction with the PRAGMA user_version of the last. */
static maildex_status_t apply_range(maildex_db_t *db, int first, int last)
{
    maildex_status_t st = maildex__begin(db);
    int from = -1;
    char *pragma = NULL;

    /* The version read before the write lock may be stale: two first runs at once both see 0, and
     * the second must find the first one's schema, not apply it again. */
    if (st == MAILDEX_STATUS_OK && (from = maildex_db_schema_version(db)) >= maildex__migrations[last].version)
        return maildex__commit(db);
    for (int i = first; i <= last && st == MAILDEX_STATUS_OK; i++) {
        const struct maildex__migration *m = &maildex__migrations[i];
        if (m->version > from && sqlite3_exec(db->sql, m->sql, NULL, NULL, NULL) != SQLITE_OK)
            st = maildex__error(db, MAILDEX_STATUS_DATABASE_ERROR, "cannot upgrade database '%s' with %s: %s",
                                db->path, m->name, sqlite3_errmsg(db->sql));
    }
    if (st == MAILDEX_STATUS_OK && from == 0)
        st = store_uuid(db);
    if (st == MAILDEX_STATUS_OK &&
        (pragma = talloc_asprintf(db, "PRAGMA user_version = %d", maildex__migrations[last].version)) == NULL)
        st = MAILDEX_STATUS_NO_MEMORY;
    if (st == MAILDEX_STATUS_OK)
        st = maildex__exec(db, pragma);
    talloc_free(pragma);
    if (st != MAILDEX_STATUS_OK) {
        maildex__rollback(db);
        return st;
    }
    return maildex__commit(db);
}

maildex_status_t maildex__migrate(maildex_db_t *db)
{
    int newest = maildex_schema_version_supported();
    int current = maildex_db_schema_version(db);
    maildex_status_t st = MAILDEX_STATUS_OK;

    if (current < 0)
        return maildex__sql_error(db, sqlite3_errcode(db->sql), "cannot read the schema version");
    if (current > newest)
        return maildex__error(db, MAILDEX_STATUS_DATABASE_TOO_NEW,
                              "database '%s' was written by a newer maildex (schema version %d; "
                              "this maildex %s knows up to %d): upgrade maildex",
                              db->path, current, maildex_version(), newest);
    if (current == newest)
        return MAILDEX_STATUS_OK;
    if (db->mode == MAILDEX_DB_READ_ONLY && current == 0)
        return maildex__error(db, MAILDEX_STATUS_FILE_NOT_FOUND,
                              "'%s' is not a maildex database (run 'maildex new')", db->path);
    if (db->mode == MAILDEX_DB_READ_ONLY)
        return maildex__error(db, MAILDEX_STATUS_READ_ONLY,
                              "database '%s' needs an upgrade to schema version %d: run "
                              "'maildex new' once",
                              db->path, newest);
    /* A new database gets its whole schema in one transaction: a kill while it is made leaves nothing
     * half made (an empty file is made again by the next run). */
    if (current == 0)
        return apply_range(db, 0, maildex__migration_count - 1);
    for (int i = 0; i < maildex__migration_count && st == MAILDEX_STATUS_OK; i++)
        if (maildex__migrations[i].version > current)
            st = apply_range(db, i, i);
    return st;
}
