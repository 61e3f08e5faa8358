/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The Maildir renames a committed tag change owes (see renames.h): recorded in the change's
 * transaction, made after it commits, finished by whichever writer comes next after a kill. */
#include "renames.h"

#include "util/maildir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#define CHUNK 256 /* records read at a time: memory stays flat however many renames a change owes */

/* Whether this transaction recorded renames: what the handle's transactions keep for this file. */
struct owing {
    bool owed;
};

static void owing_after_commit(maildex_db_t *db, void *state)
{
    struct owing *o = state;

    if (!o->owed)
        return;
    o->owed = false;
    /* The change is committed with its renames recorded: a rename that cannot be made now (the
     * database busy past the wait) is made by the next writer, so this commit still succeeded. */
    maildex__renames_finish(db);
}

static void owing_after_rollback(maildex_db_t *db, void *state)
{
    (void) db;
    ((struct owing *) state)->owed = false;
}

/* Rank 40: after everything a commit writes; it only acts once the commit is done
 * (lib/message/README.md). */
static const struct maildex__participant owing_participant = {
    .name = "renames owed",
    .rank = 40,
    .after_commit = owing_after_commit,
    .after_rollback = owing_after_rollback,
};

bool maildex__renames_owed(maildex_db_t *db)
{
    struct owing *o = maildex__participant_state(db, &owing_participant);

    return o && o->owed;
}

/* Notes that this transaction owes renames, joining the handle's transactions on first use. */
static maildex_status_t owe(maildex_db_t *db)
{
    struct owing *o = maildex__participant_join(db, &owing_participant, sizeof *o);

    if (o == NULL)
        return MAILDEX_STATUS_NO_MEMORY;
    o->owed = true;
    return MAILDEX_STATUS_OK;
}

maildex_status_t maildex__renames_record(maildex_db_t *db, int64_t file_id, int64_t from_dir,
                                         const char *from_name, int64_t to_dir, const char *to_name)
{
    sqlite3_stmt *stmt;
    maildex_status_t st = maildex__stmt(db, MAILDEX__STMT_RENAME_RECORD, &stmt);

    if (st)
        return st;
    sqlite3_bind_int64(stmt, 1, file_id);
    sqlite3_bind_int64(stmt, 2, from_dir);
    sqlite3_bind_text(stmt, 3, from_name, -1, SQLITE_STATIC);
    sqlite3_bind_int64(stmt, 4, to_dir);
    sqlite3_bind_text(stmt, 5, to_name, -1, SQLITE_STATIC);
    st = maildex__step_done(db, stmt, "cannot record a file to rename");
    return st ? st : owe(db);
}

maildex_status_t maildex__renames_forget(maildex_db_t *db, int64_t file_id)
{
    return maildex__run_ids(db, MAILDEX__STMT_RENAME_FORGET, file_id, 0,
                            "cannot forget a file to rename");
}

maildex_status_t maildex__renames_owed_to(maildex_db_t *db, int64_t file_id, bool *owed)
{
    sqlite3_stmt *stmt;
    bool row = false;
    maildex_status_t st = maildex__stmt(db, MAILDEX__STMT_RENAMES_OWED, &stmt);

    *owed = false;
    if (st)
        return st;
    sqlite3_bind_int64(stmt, 1, file_id - 1); /* the first record from file_id on */
    sqlite3_bind_int64(stmt, 2, 1);
    st = maildex__step_row(db, stmt, &row, "cannot read the files to rename");
    *owed = st == MAILDEX_STATUS_OK && row && sqlite3_column_int64(stmt, 0) == file_id;
    sqlite3_reset(stmt);
    return st;
}

/* Renames from to to unless to exists (a file of another message, or a stale copy: never replaced). */
static bool rename_file(const char *from, const char *to)
{
#ifdef RENAME_NOREPLACE
    if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0)
        return true;
    if (errno != EINVAL && errno != ENOSYS)
        return false;
#endif
    struct stat sb;
    return lstat(to, &sb) != 0 && errno == ENOENT && rename(from, to) == 0;
}

struct owed {
    int64_t file, to_dir, to_folder;
    const char *to_name, *from_path, *to_path; /* absolute; NULL when there is nothing to do */
};

/* The next records after file id *after, into owed (strings on ctx). */
static maildex_status_t read_owed(maildex_db_t *db, void *ctx, int64_t *after, GArray *owed)
{
    sqlite3_stmt *stmt;
    bool row;
    maildex_status_t st = maildex__stmt(db, MAILDEX__STMT_RENAMES_OWED, &stmt);

    if (st)
        return st;
    sqlite3_bind_int64(stmt, 1, *after);
    sqlite3_bind_int64(stmt, 2, CHUNK);
    while ((st = maildex__step_row(db, stmt, &row, "cannot read the files to rename")) == 0 && row) {
        const char *from_dir = (const char *) sqlite3_column_text(stmt, 3);
        const char *to_dir = (const char *) sqlite3_column_text(stmt, 4);
        struct owed o = {sqlite3_column_int64(stmt, 0), sqlite3_column_int64(stmt, 5),
                         sqlite3_column_int64(stmt, 6), NULL, NULL, NULL};
        /* Only a file whose row is still where the record found it: one that moved since was
         * renamed by someone else, and its new name is the one to keep. */
        if (sqlite3_column_int(stmt, 7) && from_dir && to_dir) {
            o.to_name = talloc_strdup(ctx, (const char *) sqlite3_column_text(stmt, 2));
            o.from_path = maildex__path_join(ctx, db->mail_root, from_dir,
                                             (const char *) sqlite3_column_text(stmt, 1));
            o.to_path = maildex__path_join(ctx, db->mail_root, to_dir, o.to_name);
        }
        g_array_append_val(owed, o);
        *after = o.file;
    }
    sqlite3_reset(stmt);
    return st;
}

static maildex_status_t finish_one(maildex_db_t *db, const struct owed *o)
{
    sqlite3_stmt *stmt;
    struct stat sb;
    maildex_status_t st;

    if (o->to_path == NULL)
        return MAILDEX_STATUS_OK;
    /* A file renamed before a kill is at its new name already and only its row follows; a file at
     * neither name is gone (`new` will see it), and one at both keeps its name. */
    if (!rename_file(o->from_path, o->to_path) &&
        !(lstat(o->to_path, &sb) == 0 && lstat(o->from_path, &sb) != 0 && errno == ENOENT))
        return MAILDEX_STATUS_OK;
    st = maildex__stmt(db, MAILDEX__STMT_FILE_MOVE, &stmt);
    if (st)
        return st;
    sqlite3_bind_int64(stmt, 1, o->file);
    sqlite3_bind_int64(stmt, 2, o->to_dir);
    sqlite3_bind_text(stmt, 3, o->to_name, -1, SQLITE_STATIC);
    sqlite3_bind_int64(stmt, 4, o->to_folder);
    sqlite3_bind_text(stmt, 5, maildex__maildir_flags(o->to_name), -1, SQLITE_STATIC);
    return maildex__step_done(db, stmt, "cannot record a renamed file");
}

maildex_status_t maildex__renames_finish(maildex_db_t *db)
{
    int64_t any = 0, after = 0;
    bool more = true;
    maildex_status_t st = maildex__lookup_int(db, MAILDEX__STMT_RENAMES_ANY, 0, &any);

    if (st || !any)
        return st;
    st = maildex__begin(db);
    while (st == MAILDEX_STATUS_OK && more) {
        void *chunk = talloc_new(NULL);
        GArray *owed = g_array_new(FALSE, FALSE, sizeof(struct owed));
        st = read_owed(db, chunk, &after, owed);
        for (guint i = 0; i < owed->len && st == MAILDEX_STATUS_OK; i++)
            st = finish_one(db, &g_array_index(owed, struct owed, i));
        more = owed->len == CHUNK;
        g_array_free(owed, TRUE);
        talloc_free(chunk);
    }
    if (st == MAILDEX_STATUS_OK)
        st = maildex__run_ids(db, MAILDEX__STMT_RENAMES_DONE, after, 0,
                              "cannot forget the renamed files");
    if (st == MAILDEX_STATUS_OK)
        return maildex__commit(db);
    maildex__rollback(db);
    return st;
}
