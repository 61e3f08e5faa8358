/* SPDX-License-Identifier: GPL-3.0-or-later */
/* index.c: a message by Message-ID or file (find_message, find_message_by_filename), one file into
 * the store or out of it (index_file, add_message, remove_message) and a message indexed again
 * (notmuch_message_reindex), with notmuch 0.37's statuses and messages: DUPLICATE_MESSAGE_ID for a
 * file of a message the store had already, FILE_ERROR for a file that cannot be opened or lies
 * outside the mail root, FILE_NOT_EMAIL. The indexing is maildex's (maildex_db_index_file: the calls
 * `new` makes for a file). */
#include "abi.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

/* A message object for maildex's message m (found, kept by the object), on ctx. */
static notmuch_message_t *from_found(void *ctx, notmuch_database_t *db, maildex_message_t *m, bool loaded)
{
    notmuch_message_t *msg = nm_message_new(ctx, db, maildex_message_id(m), loaded);

    if (msg == NULL) {
        maildex_message_destroy(m);
        return NULL;
    }
    nm_message_fill(msg, m, false); /* no query matched it */
    msg->found = m;
    msg->found_generation = db->generation;
    return msg;
}

/* A message found by key (a Message-ID or a file name) through find; doing names the step in the
 * messages notmuch gives for a closed handle and for a failure. */
static notmuch_status_t find(notmuch_database_t *db, const char *key,
                             maildex_status_t (*finder)(maildex_db_t *, const char *, maildex_message_t **),
                             const char *opening, const char *doing, notmuch_message_t **out)
{
    maildex_message_t *m = NULL;
    maildex_status_t st;

    if (out == NULL)
        return NOTMUCH_STATUS_NULL_POINTER;
    *out = NULL;
    if (nm_readable(db, opening))
        return NOTMUCH_STATUS_XAPIAN_EXCEPTION;
    st = finder(db->mdb, key, &m);
    if (st != MAILDEX_STATUS_OK)
        return nm_error(db, st, doing);
    /* notmuch reads a found message's metadata on first use */
    if (m && (*out = from_found(db, db, m, false)) == NULL)
        return NOTMUCH_STATUS_OUT_OF_MEMORY;
    return NOTMUCH_STATUS_SUCCESS;
}

notmuch_status_t notmuch_database_find_message(notmuch_database_t *db, const char *message_id,
                                               notmuch_message_t **out)
{
    return find(db, message_id, maildex_db_find_message, "finding message", "finding message", out);
}

notmuch_status_t notmuch_database_find_message_by_filename(notmuch_database_t *db, const char *filename,
                                                           notmuch_message_t **out)
{
    return find(db, filename, maildex_db_find_message_by_file, "finding/creating a directory",
                "finding message by filename", out);
}

/* notmuch opens the file itself first: its name must be under the mail root (as given when
 * absolute, else joined to it), and it must open. */
static notmuch_status_t open_check(notmuch_database_t *db, const char *filename, char **path)
{
    const char *root = nm_map_get(db->config, "database.mail_root");
    int fd;

    if (filename[0] == '/' && (root == NULL || strncmp(filename, root, strlen(root)) != 0)) {
        nm_log(db, "Error opening %s: path outside mail root\n", filename);
        return NOTMUCH_STATUS_FILE_ERROR;
    }
    *path = nm_mail_path(db, db, filename);
    fd = open(*path, O_RDONLY);
    if (fd < 0) {
        nm_log(db, "Error opening %s: %s\n", filename, strerror(errno));
        return NOTMUCH_STATUS_FILE_ERROR;
    }
    close(fd);
    return NOTMUCH_STATUS_SUCCESS;
}

notmuch_status_t notmuch_database_index_file(notmuch_database_t *db, const char *filename,
                                             notmuch_indexopts_t *indexopts, notmuch_message_t **out)
{
    notmuch_indexopts_t *defaults = indexopts ? NULL : notmuch_database_get_default_indexopts(db);
    maildex_message_t *m = NULL;
    char *path = NULL;
    bool added = false;
    maildex_status_t mst;
    notmuch_status_t st = nm_writable(db);

    if (out)
        *out = NULL;
    if (st == NOTMUCH_STATUS_SUCCESS && filename == NULL)
        st = NOTMUCH_STATUS_NULL_POINTER;
    if (st == NOTMUCH_STATUS_SUCCESS)
        st = open_check(db, filename, &path);
    if (st == NOTMUCH_STATUS_SUCCESS) {
        mst = maildex_db_index_file(db->mdb, path, nm_decrypt_policy(indexopts ? indexopts : defaults), &added, &m);
        if (mst == MAILDEX_STATUS_FILE_NOT_EMAIL)
            st = NOTMUCH_STATUS_FILE_NOT_EMAIL;
        else if (mst == MAILDEX_STATUS_FILE_NOT_FOUND || mst == MAILDEX_STATUS_IO_ERROR)
            nm_log(db, "Error opening %s: %s\n", filename, maildex_db_errmsg(db->mdb));
        if (mst == MAILDEX_STATUS_FILE_NOT_FOUND || mst == MAILDEX_STATUS_IO_ERROR)
            st = NOTMUCH_STATUS_FILE_ERROR;
        else if (mst != MAILDEX_STATUS_FILE_NOT_EMAIL)
            st = nm_error(db, mst, "adding message");
    }
    if (st == NOTMUCH_STATUS_SUCCESS && !added)
        st = NOTMUCH_STATUS_DUPLICATE_MESSAGE_ID;
    if (m && out && (*out = from_found(db, db, m, true)) == NULL)
        st = NOTMUCH_STATUS_OUT_OF_MEMORY;
    else if (m && !out)
        maildex_message_destroy(m);
    talloc_free(path);
    talloc_free(defaults);
    return st;
}

notmuch_status_t notmuch_database_add_message(notmuch_database_t *db, const char *filename, notmuch_message_t **out)
{
    return notmuch_database_index_file(db, filename, NULL, out);
}

notmuch_status_t notmuch_database_remove_message(notmuch_database_t *db, const char *filename)
{
    maildex_message_t *m = NULL;
    bool removed = false;
    maildex_status_t st;

    if (nm_readable(db, "finding/creating a directory"))
        return NOTMUCH_STATUS_XAPIAN_EXCEPTION;
    /* notmuch finds the message first: a file it does not know is no error, even read-only */
    if (db->mode == NOTMUCH_DATABASE_MODE_READ_ONLY) {
        st = maildex_db_find_message_by_file(db->mdb, filename, &m);
        maildex_message_destroy(m);
        return st != MAILDEX_STATUS_OK ? nm_error(db, st, "finding message by filename")
               : m                     ? nm_writable(db)
                                       : NOTMUCH_STATUS_SUCCESS;
    }
    st = maildex_db_remove_file(db->mdb, filename, &removed);
    if (st == MAILDEX_STATUS_NOT_FOUND)
        return NOTMUCH_STATUS_SUCCESS;
    if (st != MAILDEX_STATUS_OK)
        return nm_error(db, st, "removing message");
    return removed ? NOTMUCH_STATUS_SUCCESS : NOTMUCH_STATUS_DUPLICATE_MESSAGE_ID;
}

notmuch_status_t notmuch_message_reindex(notmuch_message_t *msg, notmuch_indexopts_t *indexopts)
{
    notmuch_database_t *db = msg->db;
    notmuch_indexopts_t *defaults;
    notmuch_status_t st = nm_readable(db, "reindexing a message");
    maildex_status_t mst;

    if (st == NOTMUCH_STATUS_SUCCESS)
        st = nm_writable(db);
    if (st)
        return st;
    defaults = indexopts ? NULL : notmuch_database_get_default_indexopts(db);
    mst = maildex_db_reindex_message(db->mdb, msg->id, nm_decrypt_policy(indexopts ? indexopts : defaults), NULL);
    talloc_free(defaults);
    nm_message_forget(msg, true);
    return nm_error(db, mst, "reindexing a message");
}
