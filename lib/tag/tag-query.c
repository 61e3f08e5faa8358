/* SPDX-License-Identifier: GPL-3.0-or-later */
/* maildex_query_tag(): notmuch's `tag`, one transaction per call. The matches are collected first
 * (changing message_tags while streaming an index of it would disturb the stream), inside the
 * transaction, then each message's final tag set is computed
 * from its current one and the ops, and only the difference is written: a message whose tags do not
 * change is not touched (notmuch gets the same by narrowing the query to messages an op changes).
 * With flag synchronisation the Maildir file names follow (notmuch_message_tags_to_maildir_flags):
 * the renames are recorded in the transaction and made once it has committed (message/renames.c), so a kill
 * at any point loses neither the tag change nor a file.
 * maildex_tag_check(), the command line's rule for which tags may be added, is here too; the
 * library itself applies notmuch's library rules (no NULL tag, none longer than MAILDEX_TAG_MAX);
 * and maildex_db_tag_message(), the same change for one message named by its Message-ID (restore). */
#include "store/maildex-private.h"

#include "util/maildir.h"
#include "message/tags.h"
#include "message/renames.h"

#include <string.h>

/* tag_message's own flag beside the public ones: rename the files of a message whose tags did not
 * change too (`tag --remove-all`; restore renames only what changed, as notmuch's does). */
#define RESYNC_UNCHANGED (1u << 31)

static bool has(GPtrArray *names, const char *tag)
{
    for (guint i = 0; i < names->len; i++)
        if (strcmp(names->pdata[i], tag) == 0)
            return true;
    return false;
}

static void set_tag(GPtrArray *names, const char *tag, bool add)
{
    for (guint i = 0; i < names->len; i++)
        if (strcmp(names->pdata[i], tag) == 0) {
            if (!add)
                g_ptr_array_remove_index(names, i);
            return;
        }
    if (add)
        g_ptr_array_add(names, (gpointer) tag);
}

struct file_row {
    int64_t id, dir_id;
    char *name, *dir;
};

/* Row readers for read_rows: each appends the current row to out, strings on ctx. */
static void tag_name_row(sqlite3_stmt *stmt, void *ctx, void *out)
{
    g_ptr_array_add(out, talloc_strdup(ctx, (const char *) sqlite3_column_text(stmt, 0)));
}

static void file_row(sqlite3_stmt *stmt, void *ctx, void *out)
{
    struct file_row f = {sqlite3_column_int64(stmt, 0), sqlite3_column_int64(stmt, 4),
                         talloc_strdup(ctx, (const char *) sqlite3_column_text(stmt, 1)),
                         talloc_strdup(ctx, (const char *) sqlite3_column_text(stmt, 3))};
    g_array_append_val((GArray *) out, f);
}

/* Runs statement id for message key and hands each row to read. */
static maildex_status_t read_rows(maildex_db_t *db, maildex__stmt_id_t id, int64_t key, void *ctx,
                                  void (*read)(sqlite3_stmt *, void *, void *), void *out)
{
    sqlite3_stmt *stmt;
    bool row;
    maildex_status_t st = maildex__stmt(db, id, &stmt);

    if (st)
        return st;
    sqlite3_bind_int64(stmt, 1, key);
    while ((st = maildex__step_row(db, stmt, &row, "cannot read a message's tags or files")) == 0 &&
           row)
        read(stmt, ctx, out);
    sqlite3_reset(stmt);
    return st;
}

/* The directory row of a new/ directory's sibling cur/, or 0 when the database has none. */
static maildex_status_t cur_dir(maildex_db_t *db, void *ctx, const char *new_dir, int64_t *id,
                                char **path)
{
    const size_t len = strlen(new_dir); /* ends in "new" */

    *id = 0;
    *path = talloc_asprintf(ctx, "%.*scur", (int) (len - 3), new_dir);
    if (*path == NULL)
        return MAILDEX_STATUS_NO_MEMORY;
    return maildex__lookup_id(db, MAILDEX__STMT_DIR_FIND, *path, id);
}

/* Records the renames that give the message's Maildir files the flags its tags want (message/renames.c
 * makes them once the transaction commits). */
static maildex_status_t tags_to_files(maildex_db_t *db, void *ctx, int64_t key, GPtrArray *tags)
{
    char set[8], clear[8];
    size_t ns = 0, nc = 0;
    GArray *files = g_array_new(FALSE, FALSE, sizeof(struct file_row));
    maildex_status_t st;

    for (size_t i = 0; i < maildex__flag_tag_count; i++) {
        const struct maildex__flag_tag *ft = &maildex__flag_tags[i];
        if (has(tags, ft->tag) != ft->inverse)
            set[ns++] = ft->flag;
        else
            clear[nc++] = ft->flag;
    }
    set[ns] = clear[nc] = '\0';
    st = read_rows(db, MAILDEX__STMT_MESSAGE_FILES_SYNC, key, ctx, file_row, files);
    for (guint i = 0; i < files->len && st == MAILDEX_STATUS_OK; i++) {
        struct file_row *f = &g_array_index(files, struct file_row, i);
        bool in_new, to_cur;
        int64_t dir_id = f->dir_id;
        char *dir = f->dir, *name;
        if (!maildex__maildir_is_leaf(f->dir, &in_new))
            continue;
        name = maildex__maildir_retag(ctx, f->name, in_new, set, clear, &to_cur);
        if (name == NULL)
            continue;
        if (to_cur && (st = cur_dir(db, ctx, f->dir, &dir_id, &dir)) != MAILDEX_STATUS_OK)
            break;
        if (to_cur && dir_id == 0) { /* no cur/ known here: the new name stays in new/ */
            dir = f->dir;
            dir_id = f->dir_id;
        }
        if (dir == f->dir && strcmp(name, f->name) == 0) {
            /* Right as it is, after all: an earlier change of this transaction may have asked for
             * a rename. */
            if (maildex__renames_owed(db))
                st = maildex__renames_forget(db, f->id);
            continue;
        }
        st = maildex__renames_record(db, f->id, f->dir_id, f->name, dir_id, name);
    }
    g_array_free(files, TRUE);
    return st;
}

static maildex_status_t tag_message(maildex_db_t *db, int64_t key, const maildex_tag_op_t *ops,
                                    size_t nops, unsigned flags, bool *changed)
{
    void *local = talloc_new(NULL);
    GPtrArray *before = g_ptr_array_new(), *after = g_ptr_array_new();
    maildex_status_t st =
        read_rows(db, MAILDEX__STMT_MESSAGE_TAG_NAMES, key, local, tag_name_row, before);

    *changed = false;
    if (!(flags & MAILDEX_TAG_REMOVE_ALL))
        for (guint i = 0; i < before->len; i++)
            g_ptr_array_add(after, before->pdata[i]);
    for (size_t i = 0; i < nops; i++)
        set_tag(after, ops[i].tag, ops[i].add);
    for (guint i = 0; i < before->len && st == MAILDEX_STATUS_OK; i++)
        if (!has(after, before->pdata[i])) {
            st = maildex__message_tag(db, key, before->pdata[i], false, NULL);
            *changed = true;
        }
    for (guint i = 0; i < after->len && st == MAILDEX_STATUS_OK; i++)
        if (!has(before, after->pdata[i])) {
            st = maildex__message_tag(db, key, after->pdata[i], true, NULL);
            *changed = true;
        }
    /* --remove-all re-syncs every match, as notmuch (which cannot narrow that query) does. */
    if (st == MAILDEX_STATUS_OK && (flags & MAILDEX_TAG_SYNC_FLAGS) &&
        (*changed || (flags & RESYNC_UNCHANGED)))
        st = tags_to_files(db, local, key, after);
    g_ptr_array_free(before, TRUE);
    g_ptr_array_free(after, TRUE);
    talloc_free(local);
    return st;
}

maildex_status_t maildex_tag_check(const char *tag, bool add, const char **why)
{
    const char *bad = NULL;

    if (tag == NULL)
        bad = "tag is NULL";
    else if (add && tag[0] == '\0')
        bad = "empty tag forbidden";
    else if (add && tag[0] == '-')
        bad = "tag starting with '-' forbidden";
    if (why)
        *why = bad;
    return bad ? MAILDEX_STATUS_INVALID_ARGUMENT : MAILDEX_STATUS_OK;
}

/* notmuch's library refuses a tag longer than NOTMUCH_TAG_MAX when it adds it to a message (and,
 * after removing every tag, when it removes one): a change that can reach no message is no error. */
static maildex_status_t check_lengths(maildex_db_t *db, const maildex_tag_op_t *ops, size_t nops,
                                      unsigned flags)
{
    for (size_t i = 0; i < nops; i++)
        if ((ops[i].add || (flags & MAILDEX_TAG_REMOVE_ALL)) && strlen(ops[i].tag) > MAILDEX_TAG_MAX)
            return maildex__error(db, MAILDEX_STATUS_INVALID_ARGUMENT,
                                  "cannot %s tag '%s': tag value is too long (exceeds %d bytes)",
                                  ops[i].add ? "add" : "remove", ops[i].tag, MAILDEX_TAG_MAX);
    return MAILDEX_STATUS_OK;
}

maildex_status_t maildex__message_tag_ops(maildex_db_t *db, int64_t key, const maildex_tag_op_t *ops,
                                          size_t nops, unsigned flags, bool *changed)
{
    bool ignored;
    maildex_status_t st = check_lengths(db, ops, nops, flags);

    return st ? st : tag_message(db, key, ops, nops, flags, changed ? changed : &ignored);
}

maildex_status_t maildex__message_files_follow_tags(maildex_db_t *db, int64_t key)
{
    void *local = talloc_new(NULL);
    GPtrArray *tags = g_ptr_array_new();
    maildex_status_t st = read_rows(db, MAILDEX__STMT_MESSAGE_TAG_NAMES, key, local, tag_name_row, tags);

    if (st == MAILDEX_STATUS_OK)
        st = tags_to_files(db, local, key, tags);
    g_ptr_array_free(tags, TRUE);
    talloc_free(local);
    return st;
}

maildex_status_t maildex_query_tag(maildex_query_t *q, const maildex_tag_op_t *ops, size_t nops,
                                   unsigned flags, uint64_t *changed)
{
    maildex_db_t *db = maildex__query_db(q);
    GArray *keys;
    maildex_status_t st;
    uint64_t n = 0;

    if (changed)
        *changed = 0;
    for (size_t i = 0; i < nops; i++)
        if (ops[i].tag == NULL)
            return maildex__error(db, MAILDEX_STATUS_INVALID_ARGUMENT, "cannot %s a NULL tag",
                                  ops[i].add ? "add" : "remove");
    if (db->mode == MAILDEX_DB_READ_ONLY)
        return maildex__error(db, MAILDEX_STATUS_READ_ONLY, "database '%s' was opened read-only",
                              db->path);
    keys = g_array_new(FALSE, FALSE, sizeof(int64_t));
    /* One transaction: the matches are read inside it, so no other writer changes them between
     * reading and tagging, and a change to many messages is all there or not at all. Its memory is
     * the keys (8 bytes a match) and SQLite's page cache, which spills to the WAL past its bound. */
    st = maildex__begin(db);
    if (st == MAILDEX_STATUS_OK) /* what a killed change still owes, before any file row is read */
        st = maildex__renames_finish(db);
    if (st == MAILDEX_STATUS_OK)
        st = maildex__query_keys(q, keys);
    if (st == MAILDEX_STATUS_OK && keys->len > 0)
        st = check_lengths(db, ops, nops, flags);
    for (guint i = 0; i < keys->len && st == MAILDEX_STATUS_OK; i++) {
        bool ch;
        st = tag_message(db, g_array_index(keys, int64_t, i), ops, nops,
                         flags & MAILDEX_TAG_REMOVE_ALL ? flags | RESYNC_UNCHANGED : flags, &ch);
        n += ch;
    }
    if (st == MAILDEX_STATUS_OK)
        st = maildex__commit(db);
    else
        maildex__rollback(db);
    g_array_free(keys, TRUE);
    if (changed)
        *changed = st == MAILDEX_STATUS_OK ? n : 0;
    return st;
}

maildex_status_t maildex_db_tag_message(maildex_db_t *db, const char *message_id,
                                        const maildex_tag_op_t *ops, size_t nops, unsigned flags,
                                        bool *changed)
{
    int64_t key = 0;
    bool ch = false;
    maildex_status_t st = MAILDEX_STATUS_OK;

    if (changed)
        *changed = false;
    /* No rule on the tags beyond NULL: a restore puts back what a dump holds (notmuch's library
     * takes an empty tag too), the CLI's `tag` asks maildex_tag_check first. */
    for (size_t i = 0; i < nops; i++)
        if (ops[i].tag == NULL)
            return maildex__error(db, MAILDEX_STATUS_INVALID_ARGUMENT, "cannot change a NULL tag");
    if (message_id == NULL)
        return maildex__error(db, MAILDEX_STATUS_INVALID_ARGUMENT, "no Message-ID given");
    st = maildex__begin(db);
    if (st == MAILDEX_STATUS_OK)
        st = maildex__lookup_id(db, MAILDEX__STMT_MESSAGE_FIND, message_id, &key);
    if (st == MAILDEX_STATUS_OK && key == 0) {
        maildex__commit(db); /* nothing was written: ends only this call's part of the transaction */
        return maildex__error(db, MAILDEX_STATUS_NOT_FOUND, "no message with Message-ID '%s'", message_id);
    }
    if (st == MAILDEX_STATUS_OK)
        st = tag_message(db, key, ops, nops,
                         (flags & ~RESYNC_UNCHANGED) | (flags & MAILDEX_TAG_RENAME_ALWAYS ? RESYNC_UNCHANGED : 0),
                         &ch);
    if (st == MAILDEX_STATUS_OK)
        st = maildex__commit(db);
    else if (db->in_transaction)
        maildex__rollback(db);
    if (changed && st == MAILDEX_STATUS_OK)
        *changed = ch;
    return st;
}
