/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Incremental threading (see threads.h). The cost of adding a message is a few index probes per
 * reference plus, on a merge, moving the smaller thread's rows. */
#include "threads.h"

#include <string.h>

/* Threads one message can join at once; references beyond are still ghosted. */
#define MAX_LINKED 64

static maildex_status_t run_text_id(maildex_db_t *db, maildex__stmt_id_t id, const char *text,
                                    int64_t n, const char *context)
{
    sqlite3_stmt *stmt;
    maildex_status_t st = maildex__stmt(db, id, &stmt);

    if (st)
        return st;
    sqlite3_bind_text(stmt, 1, text, -1, SQLITE_STATIC);
    if (id == MAILDEX__STMT_GHOST_ADD)
        sqlite3_bind_int64(stmt, 2, n);
    return maildex__step_done(db, stmt, context);
}

static maildex_status_t thread_size(maildex_db_t *db, int64_t thread, int64_t *size)
{
    return maildex__lookup_int(db, MAILDEX__STMT_THREAD_SIZE, thread, size);
}

void maildex__thread_changed(maildex_db_t *db, int64_t thread)
{
    if (db->changed_threads && thread)
        g_hash_table_add(db->changed_threads, g_memdup2(&thread, sizeof thread));
}

maildex_status_t maildex__thread_changed_message(maildex_db_t *db, int64_t key)
{
    sqlite3_stmt *stmt;
    bool row;
    maildex_status_t st;

    if (db->changed_threads == NULL)
        return MAILDEX_STATUS_OK;
    if ((st = maildex__stmt(db, MAILDEX__STMT_MESSAGE_READ, &stmt)))
        return st;
    sqlite3_bind_int64(stmt, 1, key);
    st = maildex__step_row(db, stmt, &row, "cannot read a message");
    if (st == MAILDEX_STATUS_OK && row)
        maildex__thread_changed(db, sqlite3_column_int64(stmt, 1));
    sqlite3_reset(stmt);
    return st;
}

/* Moves every message and ghost of `from` into `into` and drops `from`. */
static maildex_status_t merge(maildex_db_t *db, int64_t from, int64_t into)
{
    int64_t size;
    maildex_status_t st = thread_size(db, from, &size);

    maildex__thread_changed(db, from);
    maildex__thread_changed(db, into);
    if (st == MAILDEX_STATUS_OK)
        st = maildex__run_ids(db, MAILDEX__STMT_THREAD_MOVE_MESSAGES, from, into, "cannot merge threads");
    if (st == MAILDEX_STATUS_OK)
        st = maildex__run_ids(db, MAILDEX__STMT_THREAD_MOVE_GHOSTS, from, into, "cannot merge threads");
    if (st == MAILDEX_STATUS_OK)
        st = maildex__run_ids(db, MAILDEX__STMT_THREAD_COUNT_ADD, into, size, "cannot merge threads");
    if (st == MAILDEX_STATUS_OK)
        st = maildex__run_ids(db, MAILDEX__STMT_THREAD_DELETE, from, 0, "cannot merge threads");
    return st;
}

/* Finds the threads of the references (plus `found` already), merges them into the largest, and
 * leaves ghosts for references not in the store. *thread is the surviving thread, 0 when none. */
static maildex_status_t link_references(maildex_db_t *db, int64_t *found, size_t nfound,
                                        char *const *references, int64_t *thread)
{
    int64_t best = 0, best_size = -1, t;
    maildex_status_t st = MAILDEX_STATUS_OK;

    for (size_t i = 0; st == MAILDEX_STATUS_OK && references && references[i]; i++) {
        bool seen = false;
        st = maildex__lookup_id(db, MAILDEX__STMT_THREAD_OF_MESSAGE, references[i], &t);
        if (st == MAILDEX_STATUS_OK && t == 0)
            st = maildex__lookup_id(db, MAILDEX__STMT_THREAD_OF_GHOST, references[i], &t);
        for (size_t j = 0; j < nfound && t; j++)
            seen = seen || found[j] == t;
        if (t && !seen && nfound < MAX_LINKED)
            found[nfound++] = t;
    }
    /* The largest thread stays; the others move into it. */
    for (size_t i = 0; st == MAILDEX_STATUS_OK && i < nfound; i++) {
        int64_t size;
        st = thread_size(db, found[i], &size);
        if (st == MAILDEX_STATUS_OK && size > best_size)
            best = found[i], best_size = size;
    }
    for (size_t i = 0; st == MAILDEX_STATUS_OK && i < nfound; i++)
        if (found[i] != best)
            st = merge(db, found[i], best);
    if (st == MAILDEX_STATUS_OK && best == 0) {
        st = maildex__run_ids(db, MAILDEX__STMT_THREAD_CREATE, 0, 0, "cannot create a thread");
        best = sqlite3_last_insert_rowid(db->sql);
    }
    /* Ghosts for the references not in the store, so their messages join this thread later. */
    for (size_t i = 0; st == MAILDEX_STATUS_OK && references && references[i]; i++) {
        st = maildex__lookup_id(db, MAILDEX__STMT_THREAD_OF_MESSAGE, references[i], &t);
        if (st == MAILDEX_STATUS_OK && t == 0)
            st = run_text_id(db, MAILDEX__STMT_GHOST_ADD, references[i], best, "cannot add a ghost");
    }
    *thread = st == MAILDEX_STATUS_OK ? best : 0;
    return st;
}

maildex_status_t maildex__thread_for_new_message(maildex_db_t *db, const char *message_id,
                                                 char *const *references, int64_t *thread)
{
    int64_t found[MAX_LINKED], t;
    size_t nfound = 0;
    maildex_status_t st = maildex__lookup_id(db, MAILDEX__STMT_THREAD_OF_GHOST, message_id, &t);

    *thread = 0;
    if (st == MAILDEX_STATUS_OK && t) {
        found[nfound++] = t;
        st = run_text_id(db, MAILDEX__STMT_GHOST_DELETE, message_id, 0, "cannot drop a ghost");
    }
    if (st == MAILDEX_STATUS_OK)
        st = link_references(db, found, nfound, references, thread);
    if (st == MAILDEX_STATUS_OK)
        st = maildex__run_ids(db, MAILDEX__STMT_THREAD_COUNT_ADD, *thread, 1, "cannot count a thread");
    return st;
}

maildex_status_t maildex__thread_relink(maildex_db_t *db, int64_t thread, char *const *references)
{
    int64_t found[MAX_LINKED] = {thread}, ignored;
    return link_references(db, found, 1, references, &ignored);
}

maildex_status_t maildex__thread_message_removed(maildex_db_t *db, int64_t thread,
                                                 const char *message_id)
{
    int64_t size;
    maildex_status_t st = maildex__run_ids(db, MAILDEX__STMT_THREAD_COUNT_ADD, thread, -1,
                                  "cannot count a thread");

    if (st == MAILDEX_STATUS_OK)
        st = thread_size(db, thread, &size);
    if (st)
        return st;
    if (size > 0)
        return run_text_id(db, MAILDEX__STMT_GHOST_ADD, message_id, thread, "cannot add a ghost");
    st = maildex__run_ids(db, MAILDEX__STMT_THREAD_DELETE_GHOSTS, thread, 0, "cannot drop ghosts");
    if (st == MAILDEX_STATUS_OK)
        st = maildex__run_ids(db, MAILDEX__STMT_THREAD_DELETE, thread, 0, "cannot drop a thread");
    return st;
}
