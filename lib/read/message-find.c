/* SPDX-License-Identifier: GPL-3.0-or-later */
/* message-find.c: one message without a query (maildex.h, "one message"): by its Message-ID, ghosts
 * included, or by one of its files, as a message object a query would hand out, so that everything
 * that reads a message (files, tags, properties, parts, headers) works on it. Each found message
 * hangs off its own query without a plan, freed with it. Reads only. */
#include "search.h"

#include <string.h>

/* A found message and the plan-less query it hangs off (freed together by maildex_message_destroy).
 * It has no statement holder: its files and tags are read with the handle's cached statements. */
static maildex_message_t *new_found(maildex_db_t *db)
{
    maildex_query_t *q = talloc_zero(db, maildex_query_t);
    maildex_message_t *m = q ? talloc_zero(q, maildex_message_t) : NULL;

    if (m == NULL) {
        talloc_free(q);
        return NULL;
    }
    q->db = db;
    q->exclude = MAILDEX__EXCLUDE_FALSE;
    m->q = q;
    m->matched = true;
    return m;
}

/* Fills a found message from a row (id, message_id, thread, date) of stmt. */
static maildex_status_t from_row(maildex_db_t *db, sqlite3_stmt *stmt, maildex_message_t **out)
{
    maildex_message_t *m = new_found(db);

    if (m == NULL)
        return maildex__error(db, MAILDEX_STATUS_NO_MEMORY, "out of memory");
    m->key = sqlite3_column_int64(stmt, 0);
    m->message_id = talloc_strdup(m, (const char *) sqlite3_column_text(stmt, 1));
    m->thread = (uint64_t) sqlite3_column_int64(stmt, 2);
    m->date = sqlite3_column_int64(stmt, 3);
    *out = m;
    return MAILDEX_STATUS_OK;
}

/* A ghost: a Message-ID with a thread and nothing else. */
static maildex_status_t find_ghost(maildex_db_t *db, const char *message_id, maildex_message_t **out)
{
    int64_t thread = 0;
    maildex_status_t st = maildex__lookup_id(db, MAILDEX__STMT_THREAD_OF_GHOST, message_id, &thread);
    maildex_message_t *m;

    if (st != MAILDEX_STATUS_OK || thread == 0)
        return st;
    if ((m = new_found(db)) == NULL)
        return maildex__error(db, MAILDEX_STATUS_NO_MEMORY, "out of memory");
    m->message_id = talloc_strdup(m, message_id);
    m->thread = (uint64_t) thread;
    m->ghost = true;
    /* nothing to read: empty lists */
    m->files = talloc_zero_array(m, const char *, 1);
    m->tags = talloc_zero_array(m, const char *, 1);
    m->properties = talloc_zero_array(m, maildex_pair_t, 1);
    *out = m;
    return MAILDEX_STATUS_OK;
}

maildex_status_t maildex_db_find_message(maildex_db_t *db, const char *message_id, maildex_message_t **out)
{
    sqlite3_stmt *stmt;
    bool row = false;
    maildex_status_t st;

    *out = NULL;
    if (message_id == NULL)
        return maildex__error(db, MAILDEX_STATUS_INVALID_ARGUMENT, "no Message-ID given");
    st = maildex__stmt(db, MAILDEX__STMT_MESSAGE_ROW, &stmt);
    if (st != MAILDEX_STATUS_OK)
        return st;
    sqlite3_bind_text(stmt, 1, message_id, -1, SQLITE_STATIC);
    st = maildex__step_row(db, stmt, &row, "cannot find a message");
    if (st == MAILDEX_STATUS_OK && row)
        st = from_row(db, stmt, out);
    sqlite3_reset(stmt);
    sqlite3_clear_bindings(stmt);
    if (st == MAILDEX_STATUS_OK && !row)
        st = find_ghost(db, message_id, out);
    return st;
}

/* path's directory relative to the mail root and its name, on ctx; false when it is not under it. */
static bool split_path(void *ctx, maildex_db_t *db, const char *path, char **dir, char **name)
{
    const char *root = maildex_db_mail_root(db), *slash;
    size_t len = strlen(root);

    if (path[0] == '/') {
        if (strncmp(path, root, len) != 0 || path[len] != '/')
            return false;
        path += len + 1;
    }
    slash = strrchr(path, '/');
    *dir = slash ? talloc_strndup(ctx, path, (size_t) (slash - path)) : talloc_strdup(ctx, "");
    *name = talloc_strdup(ctx, slash ? slash + 1 : path);
    return *dir && *name && **name;
}

maildex_status_t maildex_db_find_message_by_file(maildex_db_t *db, const char *path, maildex_message_t **out)
{
    void *local = talloc_new(NULL);
    char *dir = NULL, *name = NULL;
    int64_t dir_id = 0;
    sqlite3_stmt *stmt = NULL;
    bool row = false;
    maildex_status_t st = MAILDEX_STATUS_OK;

    *out = NULL;
    if (path == NULL)
        st = maildex__error(db, MAILDEX_STATUS_INVALID_ARGUMENT, "no file name given");
    else if (split_path(local, db, path, &dir, &name))
        st = maildex__lookup_id(db, MAILDEX__STMT_DIR_FIND, dir, &dir_id);
    if (st == MAILDEX_STATUS_OK && dir_id != 0)
        st = maildex__stmt(db, MAILDEX__STMT_MESSAGE_ROW_OF_FILE, &stmt);
    if (st == MAILDEX_STATUS_OK && dir_id != 0) {
        sqlite3_bind_int64(stmt, 1, dir_id);
        sqlite3_bind_text(stmt, 2, name, -1, SQLITE_STATIC);
        st = maildex__step_row(db, stmt, &row, "cannot find a message by its file");
        if (st == MAILDEX_STATUS_OK && row)
            st = from_row(db, stmt, out);
        sqlite3_reset(stmt);
        sqlite3_clear_bindings(stmt);
    }
    talloc_free(local);
    return st;
}

bool maildex_message_ghost(const maildex_message_t *m)
{
    return m->ghost;
}

void maildex_message_destroy(maildex_message_t *m)
{
    /* Only a found message's query has no plan; a query's own messages belong to their iterator. */
    if (m && m->q->plan == NULL)
        talloc_free(m->q);
}
