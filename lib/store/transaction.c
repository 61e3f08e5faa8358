/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Transactions: write transactions (maildex__begin nests, the outermost commit or rollback ends
 * them), the revision each one stamps, read snapshots and the public atomic sections. What a
 * transaction writes belongs to its callers. */
#include "maildex-private.h"

#include "message/text-queue.h"
#include "message/tags.h"
#include "message/renames.h"

maildex_status_t maildex__begin(maildex_db_t *db)
{
    sqlite3_stmt *stmt;
    maildex_status_t st;
    int rc;

    if (db->mode == MAILDEX_DB_READ_ONLY)
        return maildex__error(db, MAILDEX_STATUS_READ_ONLY, "database '%s' was opened read-only",
                              db->path);
    if (db->reading)
        return maildex__error(db, MAILDEX_STATUS_INVALID_ARGUMENT,
                              "cannot write to database '%s' inside a read transaction", db->path);
    if (db->in_transaction++ > 0)
        return MAILDEX_STATUS_OK;
    st = maildex__stmt(db, MAILDEX__STMT_BEGIN, &stmt);
    if (st == MAILDEX_STATUS_OK) {
        rc = sqlite3_step(stmt);
        sqlite3_reset(stmt);
        maildex__turn_begun(db, rc == SQLITE_DONE);
        if (rc != SQLITE_DONE)
            st = maildex__sql_error(db, rc, "cannot start a write transaction");
    }
    if (st != MAILDEX_STATUS_OK)
        db->in_transaction = 0;
    db->revision_bumped = 0;
    return st;
}

maildex_status_t maildex__commit(maildex_db_t *db)
{
    sqlite3_stmt *stmt;
    maildex_status_t st;
    int rc;

    if (db->in_transaction == 0 || --db->in_transaction > 0)
        return MAILDEX_STATUS_OK;
    st = maildex__text_write_held(db);
    if (st == MAILDEX_STATUS_OK)
        st = maildex__tags_before_commit(db);
    if (st == MAILDEX_STATUS_OK && db->message_delta != 0) {
        st = maildex__run_ids(db, MAILDEX__STMT_MESSAGE_COUNT_ADD, db->message_delta, 0,
                              "cannot count messages");
        db->message_delta = 0;
    }
    if (st == MAILDEX_STATUS_OK)
        st = maildex__stmt(db, MAILDEX__STMT_COMMIT, &stmt);
    if (st) {
        maildex__rollback(db);
        return st;
    }
    maildex__turn_ending(db);
    rc = sqlite3_step(stmt);
    sqlite3_reset(stmt);
    if (rc != SQLITE_DONE) {
        st = maildex__sql_error(db, rc, "cannot commit");
        maildex__rollback(db);
    } else if (db->renames_owed) {
        db->renames_owed = false;
        /* The change is committed with its renames recorded: a rename that cannot be made now (the
         * database busy past the wait) is made by the next writer, so this commit still succeeded. */
        maildex__renames_finish(db);
    }
    return st;
}

maildex_status_t maildex__commit_and_begin(maildex_db_t *db)
{
    maildex_status_t st = maildex__commit(db);

    if (st == MAILDEX_STATUS_OK && db->in_transaction == 0) /* writers waiting go first */
        maildex__turn_yield(db);
    return st == MAILDEX_STATUS_OK ? maildex__begin(db) : st;
}

void maildex__rollback(maildex_db_t *db)
{
    db->in_transaction = 0;
    db->revision_bumped = 0;
    db->renames_owed = false;
    db->message_delta = 0;
    maildex__tags_after_rollback(db);
    maildex__text_drop_held(db);
    if (!sqlite3_get_autocommit(db->sql)) {
        maildex__turn_ending(db);
        sqlite3_exec(db->sql, "ROLLBACK", NULL, NULL, NULL);
    }
}

maildex_status_t maildex__bump_revision(maildex_db_t *db, int64_t *revision)
{
    sqlite3_stmt *stmt;
    maildex_status_t st = maildex__stmt(db, MAILDEX__STMT_REVISION_BUMP, &stmt);
    int rc;

    if (st)
        return st;
    rc = sqlite3_step(stmt);
    if (rc != SQLITE_ROW) {
        st = maildex__sql_error(db, sqlite3_reset(stmt), "cannot update the database revision");
        return st;
    }
    *revision = sqlite3_column_int64(stmt, 0);
    sqlite3_reset(stmt);
    db->revision_bumped = 1;
    db->revision = *revision;
    return MAILDEX_STATUS_OK;
}

maildex_status_t maildex__current_revision(maildex_db_t *db, int64_t *revision)
{
    if (db->revision_bumped) {
        *revision = db->revision;
        return MAILDEX_STATUS_OK;
    }
    return maildex__bump_revision(db, revision);
}

maildex_status_t maildex_db_revision(maildex_db_t *db, const char **uuid, uint64_t *revision)
{
    sqlite3_stmt *stmt;
    maildex_status_t st;
    const char *keys[2] = {"uuid", "revision"};

    for (int i = 0; i < 2; i++) {
        st = maildex__stmt(db, MAILDEX__STMT_META_GET, &stmt);
        if (st)
            return st;
        sqlite3_bind_text(stmt, 1, keys[i], -1, SQLITE_STATIC);
        if (sqlite3_step(stmt) != SQLITE_ROW)
            return maildex__sql_error(db, sqlite3_reset(stmt), "cannot read the database revision");
        if (i == 0) {
            talloc_free(db->uuid);
            db->uuid = talloc_strdup(db, (const char *) sqlite3_column_text(stmt, 0));
            if (uuid)
                *uuid = db->uuid;
        } else if (revision) {
            *revision = (uint64_t) sqlite3_column_int64(stmt, 0);
        }
        sqlite3_reset(stmt);
    }
    return MAILDEX_STATUS_OK;
}

maildex_status_t maildex_db_begin_read(maildex_db_t *db)
{
    maildex_status_t st;

    if (db->in_transaction || db->reading)
        return maildex__error(db, MAILDEX_STATUS_INVALID_ARGUMENT,
                              "cannot start a read transaction on database '%s' inside another one",
                              db->path);
    /* BEGIN alone takes no snapshot: the first read does, so read at once. */
    st = maildex__exec(db, "BEGIN; SELECT value FROM meta WHERE key = 'revision'");
    if (st != MAILDEX_STATUS_OK) {
        if (!sqlite3_get_autocommit(db->sql))
            sqlite3_exec(db->sql, "ROLLBACK", NULL, NULL, NULL);
        return st;
    }
    db->reading = true;
    return MAILDEX_STATUS_OK;
}

maildex_status_t maildex_db_end_read(maildex_db_t *db)
{
    if (!db->reading)
        return MAILDEX_STATUS_OK;
    db->reading = false;
    return maildex__exec(db, "COMMIT");
}

maildex_status_t maildex_db_begin_atomic(maildex_db_t *db)
{
    return maildex__begin(db);
}

maildex_status_t maildex_db_end_atomic(maildex_db_t *db)
{
    return maildex__commit(db);
}
