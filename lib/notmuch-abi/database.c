/* SPDX-License-Identifier: GPL-3.0-or-later */
/* database.c: an open notmuch database handle -- close, destroy, reopen, its path and version,
 * upgrade (nothing to do: maildex brings its schema up to date on open), atomic sections, revision,
 * all tags, compaction -- on maildex's handle. A closed handle keeps what it knew (path, config,
 * revision) and answers reads with notmuch's "Database has been closed" and writes with
 * CLOSED_DATABASE, as notmuch 0.37 does. */
#include "abi.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* notmuch's current database format version, which clients compare with what they know. */
#define NOTMUCH_FORMAT_VERSION 3

static void close_store(notmuch_database_t *db)
{
    if (db->mdb)
        maildex_db_close(db->mdb);
    db->mdb = NULL;
    db->generation++;
}

notmuch_status_t notmuch_database_close(notmuch_database_t *db)
{
    /* An atomic section still open is rolled back with the handle, as notmuch discards it. */
    close_store(db);
    db->open = false;
    return NOTMUCH_STATUS_SUCCESS;
}

notmuch_status_t notmuch_database_destroy(notmuch_database_t *db)
{
    notmuch_status_t st = notmuch_database_close(db);

    talloc_free(db);
    return st;
}

notmuch_status_t notmuch_database_reopen(notmuch_database_t *db, notmuch_database_mode_t mode)
{
    maildex_status_t st;
    char *error = NULL;

    if (db->mdb == NULL) {
        nm_log(db, "Cannot reopen closed or nonexistent database\n");
        return NOTMUCH_STATUS_ILLEGAL_ARGUMENT;
    }
    /* A read-only handle already sees every commit (WAL): read-only again needs nothing. */
    if (mode == db->mode && mode == NOTMUCH_DATABASE_MODE_READ_ONLY)
        return NOTMUCH_STATUS_SUCCESS;
    close_store(db);
    st = maildex_db_open(db->db_file, nm_map_get(db->config, "database.mail_root"),
                         mode == NOTMUCH_DATABASE_MODE_READ_WRITE ? MAILDEX_DB_READ_WRITE : MAILDEX_DB_READ_ONLY,
                         &db->mdb, &error);
    if (st != MAILDEX_STATUS_OK) {
        nm_log(db, "Error: A Xapian exception reopening database: %s\n", error ? error : "");
        free(error);
        return NOTMUCH_STATUS_XAPIAN_EXCEPTION;
    }
    db->mode = mode;
    db->open = true;
    return NOTMUCH_STATUS_SUCCESS;
}

const char *notmuch_database_get_path(notmuch_database_t *db)
{
    return nm_map_get(db->config, "database.path");
}

unsigned int notmuch_database_get_version(notmuch_database_t *db)
{
    return nm_readable(db, "getting the database version") ? 0 : NOTMUCH_FORMAT_VERSION;
}

notmuch_bool_t notmuch_database_needs_upgrade(notmuch_database_t *db)
{
    (void) nm_readable(db, "checking the database version");
    return FALSE;
}

notmuch_status_t notmuch_database_upgrade(notmuch_database_t *db,
                                          void (*progress_notify)(void *closure, double progress),
                                          void *closure)
{
    (void) db;
    (void) progress_notify;
    (void) closure;
    return NOTMUCH_STATUS_SUCCESS;
}

/* ---- atomic sections --------------------------------------------------------------------------------- */

notmuch_status_t notmuch_database_begin_atomic(notmuch_database_t *db)
{
    maildex_status_t st;

    /* notmuch counts sections on a read-only or closed handle and inside another one, and begins a
     * transaction only for the outermost on an open read-write handle. */
    if (db->mode == NOTMUCH_DATABASE_MODE_READ_ONLY || db->atomic_nesting > 0 || db->mdb == NULL) {
        db->atomic_nesting++;
        return NOTMUCH_STATUS_SUCCESS;
    }
    st = maildex_db_begin_atomic(db->mdb);
    if (st != MAILDEX_STATUS_OK)
        return nm_error(db, st, "beginning transaction");
    db->atomic_nesting++;
    db->atomic_begun = true;
    return NOTMUCH_STATUS_SUCCESS;
}

notmuch_status_t notmuch_database_end_atomic(notmuch_database_t *db)
{
    maildex_status_t st = MAILDEX_STATUS_OK;

    if (db->atomic_nesting == 0)
        return NOTMUCH_STATUS_UNBALANCED_ATOMIC;
    if (db->atomic_nesting == 1 && db->atomic_begun) {
        db->atomic_begun = false;
        if (db->mdb)
            st = maildex_db_end_atomic(db->mdb);
    }
    db->atomic_nesting--;
    return st == MAILDEX_STATUS_OK ? NOTMUCH_STATUS_SUCCESS : nm_error(db, st, "committing transaction");
}

/* ---- revision and tags ------------------------------------------------------------------------------- */

unsigned long notmuch_database_get_revision(notmuch_database_t *db, const char **uuid)
{
    const char *id = NULL;
    uint64_t revision = 0;

    /* A closed handle answers what it last knew, as notmuch's does. */
    if (db->mdb && maildex_db_revision(db->mdb, &id, &revision) == MAILDEX_STATUS_OK) {
        talloc_free(db->uuid);
        db->uuid = talloc_strdup(db, id);
        db->revision = revision;
    }
    if (uuid)
        *uuid = db->uuid;
    return (unsigned long) db->revision;
}

notmuch_tags_t *notmuch_database_get_all_tags(notmuch_database_t *db)
{
    maildex_query_options_t opts = MAILDEX_QUERY_OPTIONS_INIT;
    maildex_query_t *q = NULL;
    const char *const *tags = NULL;
    notmuch_tags_t *out = NULL;
    maildex_status_t st;

    if (nm_readable(db, "getting tags"))
        return NULL;
    opts.exclude = MAILDEX_EXCLUDE_FALSE;
    st = maildex_query_create(db->mdb, "*", &opts, &q);
    if (st == MAILDEX_STATUS_OK)
        st = maildex_query_tags(q, &tags);
    if (st == MAILDEX_STATUS_OK)
        out = nm_tags_new(db, tags, (size_t) -1);
    else
        nm_error(db, st, "getting tags");
    maildex_query_destroy(q);
    return out;
}

/* ---- compaction -------------------------------------------------------------------------------------- */

notmuch_status_t notmuch_database_compact(const char *path, const char *backup_path,
                                          notmuch_compact_status_cb_t status_cb, void *closure)
{
    notmuch_database_t *db = NULL;
    char *message = NULL;
    notmuch_status_t st =
        notmuch_database_open_with_config(path, NOTMUCH_DATABASE_MODE_READ_WRITE, "", NULL, &db, &message);

    if (st) {
        if (status_cb)
            status_cb(message, closure);
        free(message);
        return st;
    }
    return notmuch_database_compact_db(db, backup_path, status_cb, closure);
}

static notmuch_status_t compact(notmuch_database_t *db, const char *backup_path)
{
    struct stat sb;
    maildex_status_t st;

    if (backup_path && stat(backup_path, &sb) == 0) {
        nm_log(db, "Path already exists: %s\n", backup_path);
        return NOTMUCH_STATUS_FILE_ERROR;
    }
    if (backup_path && errno != ENOENT) {
        nm_log(db, "Unknown error while stat()ing path: %s\n", strerror(errno));
        return NOTMUCH_STATUS_FILE_ERROR;
    }
    st = maildex_db_compact(db->mdb, backup_path, NULL, NULL);
    if (st == MAILDEX_STATUS_IO_ERROR || st == MAILDEX_STATUS_INVALID_ARGUMENT) {
        nm_log(db, "Error while compacting: %s\n", maildex_db_errmsg(db->mdb));
        return NOTMUCH_STATUS_FILE_ERROR;
    }
    if (st != MAILDEX_STATUS_OK) {
        nm_log(db, "Error while compacting: %s\n", maildex_db_errmsg(db->mdb));
        return NOTMUCH_STATUS_XAPIAN_EXCEPTION;
    }
    return NOTMUCH_STATUS_SUCCESS;
}

/* As notmuch's, the handle is destroyed once compacted, and what it has to say goes to status_cb. */
notmuch_status_t notmuch_database_compact_db(notmuch_database_t *db, const char *backup_path,
                                             notmuch_compact_status_cb_t status_cb, void *closure)
{
    notmuch_status_t st = nm_writable(db), st2;

    if (st)
        return st;
    st = compact(db, backup_path);
    if (status_cb && db->status_string)
        status_cb(db->status_string, closure);
    st2 = notmuch_database_destroy(db);
    return st ? st : st2;
}
