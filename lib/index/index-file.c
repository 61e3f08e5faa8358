/* SPDX-License-Identifier: GPL-3.0-or-later */
/* index-file.c: one file in or out of the store by its name (maildex_db_index_file,
 * maildex_db_remove_file: notmuch's notmuch_database_index_file and _remove_message), through the
 * calls `new` makes for a file it finds or misses: maildex__file_read, then in one write transaction
 * (or the caller's atomic section) maildex__store_add or maildex__store_remove_file. Unlike `new` it
 * adds no new.tags and leaves Maildir flags and tags alone (notmuch's library leaves that to its
 * caller). It must not walk directories, print or read config. */
#include "store/maildex-private.h"

#include "index.h"
#include "message/renames.h"
#include "message/write.h"
#include "util/maildir.h"

#include <errno.h>
#include <string.h>

/* path relative to the mail root, split into its directory ("" for the root) and name; NULL when path
 * is not under the mail root. */
static bool relative_parts(void *ctx, maildex_db_t *db, const char *path, char **dir, char **name)
{
    size_t len = strlen(db->mail_root);
    const char *rel = path, *slash;

    if (path[0] == '/') {
        if (strncmp(path, db->mail_root, len) != 0 || path[len] != '/')
            return false;
        rel = path + len + 1;
    }
    slash = strrchr(rel, '/');
    *dir = slash ? talloc_strndup(ctx, rel, (size_t) (slash - rel)) : talloc_strdup(ctx, "");
    *name = talloc_strdup(ctx, slash ? slash + 1 : rel);
    return *dir && *name && **name;
}

/* The parse of the file, or the status that says why there is none. */
static maildex_status_t read_file(maildex_db_t *db, void *ctx, const char *abs, maildex_decrypt_t decrypt,
                                  struct maildex__file_read *read)
{
    struct maildex__parse_options parse = {.decrypt = decrypt, .user_fields = db->user_fields};
    const struct maildex__mime_ops *mime;
    maildex_status_t st = maildex__mime(db, &mime);

    if (st != MAILDEX_STATUS_OK)
        return st;
    maildex__file_read(mime, NULL, &parse, ctx, abs, read);
    if (read->rc == MAILDEX__PARSE_NOT_MAIL)
        return maildex__error(db, MAILDEX_STATUS_FILE_NOT_EMAIL, "'%s' is not mail: %s", abs,
                              read->error ? read->error : "no From, Subject or To");
    if (read->rc != MAILDEX__PARSE_OK)
        return maildex__error(db, read->vanished ? MAILDEX_STATUS_FILE_NOT_FOUND : MAILDEX_STATUS_IO_ERROR,
                              "cannot read '%s': %s", abs,
                              read->vanished ? strerror(ENOENT) : read->error ? read->error : "unknown error");
    return MAILDEX_STATUS_OK;
}

/* In the transaction: the file's row and, for a new Message-ID, the message. A name the store has
 * already is left as it is (*added false). */
static maildex_status_t add_file(maildex_db_t *db, const char *dir, const char *name,
                                 struct maildex__file_read *read, bool *added)
{
    struct maildex__add_options add = {.new_tags = NULL, .synchronize_flags = false, .tags_decide_flags = true,
                                       .hold_text = false};
    struct maildex__file_ref f = {.name = name, .flags = maildex__maildir_flags(name), .size = read->size,
                                  .dir_path = dir};
    int64_t file_id = 0;
    maildex_status_t st = maildex__renames_finish(db);

    if (st == MAILDEX_STATUS_OK)
        st = maildex__store_directory(db, dir, &f.directory, &f.folder);
    if (st == MAILDEX_STATUS_OK)
        st = maildex__store_file_find(db, f.directory, name, &file_id);
    if (st == MAILDEX_STATUS_OK && file_id == 0)
        st = maildex__store_add(db, read->msg, read->text, &f, &add, added);
    return st;
}

maildex_status_t maildex_db_index_file(maildex_db_t *db, const char *path, maildex_decrypt_t decrypt,
                                       bool *added, maildex_message_t **out)
{
    void *local = talloc_new(NULL);
    struct maildex__file_read read = {0};
    char *dir = NULL, *name = NULL, *abs;
    bool is_new = false;
    maildex_status_t st = MAILDEX_STATUS_OK;

    if (out)
        *out = NULL;
    if (db->mode == MAILDEX_DB_READ_ONLY)
        st = maildex__error(db, MAILDEX_STATUS_READ_ONLY, "database '%s' was opened read-only", db->path);
    else if (path == NULL || !relative_parts(local, db, path, &dir, &name))
        st = maildex__error(db, MAILDEX_STATUS_INVALID_ARGUMENT, "'%s' is not under the mail root '%s'",
                            path ? path : "(null)", db->mail_root);
    if (st == MAILDEX_STATUS_OK) {
        abs = maildex__path_join(local, db->mail_root, dir, name);
        st = read_file(db, local, abs, decrypt, &read);
    }
    if (st == MAILDEX_STATUS_OK)
        st = maildex__begin(db);
    if (st == MAILDEX_STATUS_OK) {
        st = add_file(db, dir, name, &read, &is_new);
        if (st == MAILDEX_STATUS_OK)
            st = maildex__commit(db);
        else
            maildex__rollback(db);
    }
    if (st == MAILDEX_STATUS_OK && out)
        st = maildex_db_find_message(db, read.msg->message_id, out);
    if (added)
        *added = st == MAILDEX_STATUS_OK && is_new;
    talloc_free(local);
    return st;
}

maildex_status_t maildex_db_remove_file(maildex_db_t *db, const char *path, bool *message_removed)
{
    void *local = talloc_new(NULL);
    char *dir = NULL, *name = NULL;
    int64_t dir_id = 0, file_id = 0;
    bool removed = false;
    maildex_status_t st = MAILDEX_STATUS_OK;

    if (db->mode == MAILDEX_DB_READ_ONLY)
        st = maildex__error(db, MAILDEX_STATUS_READ_ONLY, "database '%s' was opened read-only", db->path);
    else if (path && relative_parts(local, db, path, &dir, &name))
        st = maildex__begin(db);
    else
        dir = NULL; /* not under the mail root: the store cannot have it */
    if (st == MAILDEX_STATUS_OK && dir) {
        st = maildex__renames_finish(db);
        if (st == MAILDEX_STATUS_OK)
            st = maildex__lookup_id(db, MAILDEX__STMT_DIR_FIND, dir, &dir_id);
        if (st == MAILDEX_STATUS_OK && dir_id)
            st = maildex__store_file_find(db, dir_id, name, &file_id);
        if (st == MAILDEX_STATUS_OK && file_id)
            st = maildex__store_remove_file(db, file_id, false, &removed);
        if (st == MAILDEX_STATUS_OK)
            st = maildex__commit(db);
        else
            maildex__rollback(db);
    }
    if (st == MAILDEX_STATUS_OK && file_id == 0)
        st = maildex__error(db, MAILDEX_STATUS_NOT_FOUND, "the store has no file '%s'", path ? path : "(null)");
    if (message_removed)
        *message_removed = st == MAILDEX_STATUS_OK && removed;
    talloc_free(local);
    return st;
}
