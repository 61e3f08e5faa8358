/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Transactions: write transactions (maildex__begin nests, the outermost commit or rollback ends
 * them) and their participants, the revision each one stamps, read snapshots and the public atomic
 * sections. What a transaction writes belongs to its callers, what it holds until the commit to its
 * participants: this file calls their hooks and knows none of them. */
#include "maildex-private.h"

#include <string.h>

/* One registered participant (maildex-private.h). */
struct maildex__joined {
    const struct maildex__participant *p;
    void *state;
};

void *maildex__participant_state(maildex_db_t *db, const struct maildex__participant *p)
{
    for (size_t i = 0; i < db->nparticipants; i++)
        if (db->participants[i].p == p)
            return db->participants[i].state;
    return NULL;
}

void *maildex__participant_join(maildex_db_t *db, const struct maildex__participant *p, size_t size)
{
    void *state = maildex__participant_state(db, p);
    struct maildex__joined *grown;
    size_t at = db->nparticipants;

    if (state != NULL)
        return state;
    state = talloc_zero_size(db, size);
    grown = state ? talloc_realloc(db, db->participants, struct maildex__joined, at + 1) : NULL;
    if (grown == NULL) {
        talloc_free(state);
        maildex__error(db, MAILDEX_STATUS_NO_MEMORY, "out of memory");
        return NULL;
    }
    for (; at > 0 && grown[at - 1].p->rank > p->rank; at--) /* after those of its rank: stable */
        grown[at] = grown[at - 1];
    grown[at] = (struct maildex__joined){p, state};
    db->participants = grown;
    db->nparticipants++;
    return state;
}

void maildex__participant_leave(maildex_db_t *db, const struct maildex__participant *p)
{
    for (size_t i = 0; i < db->nparticipants; i++) {
        void *state = db->participants[i].state;
        if (db->participants[i].p != p)
            continue;
        memmove(&db->participants[i], &db->participants[i + 1],
                (db->nparticipants - i - 1) * sizeof db->participants[0]);
        db->nparticipants--;
        if (p->close)
            p->close(state);
        talloc_free(state);
        return;
    }
}

void maildex__participants_close(maildex_db_t *db)
{
    while (db->nparticipants > 0)
        maildex__participant_leave(db, db->participants[db->nparticipants - 1].p);
    TALLOC_FREE(db->participants);
}

/* Each participant's before_commit, by rank, until one fails. */
static maildex_status_t before_commit(maildex_db_t *db)
{
    maildex_status_t st = MAILDEX_STATUS_OK;

    for (size_t i = 0; i < db->nparticipants && st == MAILDEX_STATUS_OK; i++)
        if (db->participants[i].p->before_commit)
            st = db->participants[i].p->before_commit(db, db->participants[i].state);
    return st;
}

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
    st = before_commit(db);
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
        return st;
    }
    /* An after_commit hook may commit transactions of its own: that is one more commit, whose hooks
     * run in turn, and none of them registers anything. */
    for (size_t i = 0; i < db->nparticipants; i++)
        if (db->participants[i].p->after_commit)
            db->participants[i].p->after_commit(db, db->participants[i].state);
    return MAILDEX_STATUS_OK;
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
    if (!sqlite3_get_autocommit(db->sql)) {
        maildex__turn_ending(db);
        sqlite3_exec(db->sql, "ROLLBACK", NULL, NULL, NULL);
    }
    for (size_t i = 0; i < db->nparticipants; i++)
        if (db->participants[i].p->after_rollback)
            db->participants[i].p->after_rollback(db, db->participants[i].state);
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
