/* The migration runner: brings a database's schema to the newest version this library knows by
 * applying the compiled-in sql/NNNN-name.sql files in order, each in its own transaction together with
 * its PRAGMA user_version, so a crash leaves the database at one version or the next, never between.
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

static maildex_status_t apply_one(maildex_db_t *db, const struct maildex__migration *m)
{
    maildex_status_t st = MAILDEX_STATUS_OK;
    char *pragma = talloc_asprintf(db, "PRAGMA user_version = %d", m->version);
    int from = -1;

    if (pragma == NULL)
        return MAILDEX_STATUS_NO_MEMORY;
    st = maildex__begin(db);
    /* The version read before the write lock may be stale: two first runs at once both see 0, and
     * the second must find the first one's schema, not apply it again. */
    if (st == MAILDEX_STATUS_OK && (from = maildex_db_schema_version(db)) >= m->version) {
        talloc_free(pragma);
        return maildex__commit(db);
    }
    if (st == MAILDEX_STATUS_OK && sqlite3_exec(db->sql, m->sql, NULL, NULL, NULL) != SQLITE_OK)
        st = maildex__error(db, MAILDEX_STATUS_DATABASE_ERROR,
                            "cannot upgrade database '%s' with %s: %s", db->path, m->name,
                            sqlite3_errmsg(db->sql));
    if (st == MAILDEX_STATUS_OK && from == 0) {
        /* The UUID is fixed at creation: `count --lastmod` prints it so clients can tell a rebuilt
         * database from the one whose revisions they remember. */
        char *uuid = g_uuid_string_random();
        sqlite3_stmt *stmt;
        st = maildex__stmt(db, MAILDEX__STMT_META_SET, &stmt);
        if (st == MAILDEX_STATUS_OK) {
            sqlite3_bind_text(stmt, 1, "uuid", -1, SQLITE_STATIC);
            sqlite3_bind_text(stmt, 2, uuid, -1, SQLITE_TRANSIENT);
            if (sqlite3_step(stmt) != SQLITE_DONE)
                st = maildex__sql_error(db, sqlite3_reset(stmt), "cannot store the database uuid");
            sqlite3_reset(stmt);
        }
        g_free(uuid);
    }
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
    for (int i = 0; i < maildex__migration_count && st == MAILDEX_STATUS_OK; i++) {
        const struct maildex__migration *m = &maildex__migrations[i];
        if (m->version <= current)
            continue;
        st = apply_one(db, m);
        current = m->version;
    }
    return st;
}
