/* SPDX-License-Identifier: GPL-3.0-or-later */
/* directory.c: notmuch_directory_t on maildex's directories (maildex_db_directory): the stored
 * mtime, the names of its files and subdirectories, its removal. A directory object keeps the mtime
 * it read; its lists need the handle open (notmuch's "Database has been closed" otherwise), its
 * changes an open read-write one. */
#include "abi.h"

struct _notmuch_directory {
    notmuch_database_t *db;
    char *path;
    time_t mtime;
};

notmuch_status_t notmuch_database_get_directory(notmuch_database_t *db, const char *path,
                                                notmuch_directory_t **out)
{
    maildex_directory_t *d = NULL;
    maildex_status_t st;

    if (out == NULL)
        return NOTMUCH_STATUS_NULL_POINTER;
    *out = NULL;
    if (nm_readable(db, "finding/creating a directory"))
        return NOTMUCH_STATUS_XAPIAN_EXCEPTION;
    st = maildex_db_directory(db->mdb, path ? path : "", &d);
    if (st != MAILDEX_STATUS_OK)
        return nm_error(db, st, "getting directory");
    if (d == NULL)
        return NOTMUCH_STATUS_SUCCESS;
    *out = talloc_zero(db, notmuch_directory_t);
    if (*out) {
        (*out)->db = db;
        (*out)->path = talloc_strdup(*out, path ? path : "");
        (*out)->mtime = (time_t) maildex_directory_mtime(d);
    }
    maildex_directory_free(d);
    return *out ? NOTMUCH_STATUS_SUCCESS : NOTMUCH_STATUS_OUT_OF_MEMORY;
}

/* maildex's directory for dir, for one call; NULL (the failure recorded) when there is none. */
static maildex_directory_t *open_dir(notmuch_directory_t *dir, notmuch_status_t *st)
{
    maildex_directory_t *d = NULL;
    maildex_status_t mst = maildex_db_directory(dir->db->mdb, dir->path, &d);

    *st = nm_error(dir->db, mst, "finding/creating a directory");
    return d;
}

time_t notmuch_directory_get_mtime(notmuch_directory_t *dir)
{
    return dir->mtime;
}

notmuch_status_t notmuch_directory_set_mtime(notmuch_directory_t *dir, time_t mtime)
{
    notmuch_status_t st = nm_writable(dir->db);
    maildex_directory_t *d = st ? NULL : open_dir(dir, &st);

    if (d && (st = nm_error(dir->db, maildex_directory_set_mtime(d, mtime), "setting directory mtime")) == 0)
        dir->mtime = mtime;
    maildex_directory_free(d);
    return st;
}

static notmuch_filenames_t *children(notmuch_directory_t *dir, bool directories)
{
    notmuch_filenames_t *names = NULL;
    maildex_directory_t *d;
    char **list = NULL;
    notmuch_status_t st;

    if (nm_readable(dir->db, "listing a directory"))
        return NULL;
    d = open_dir(dir, &st);
    if (d && (st = nm_error(dir->db, maildex_directory_children(d, directories, &list), "listing a directory")) == 0)
        names = nm_filenames_new(dir, (const char *const *) list, (size_t) -1);
    if (d == NULL && st == NOTMUCH_STATUS_SUCCESS) /* gone meanwhile: no children */
        names = nm_filenames_new(dir, NULL, 0);
    maildex_strings_free(list);
    maildex_directory_free(d);
    return names;
}

notmuch_filenames_t *notmuch_directory_get_child_files(notmuch_directory_t *dir)
{
    return children(dir, false);
}

notmuch_filenames_t *notmuch_directory_get_child_directories(notmuch_directory_t *dir)
{
    return children(dir, true);
}

/* As notmuch's, the object is destroyed once the row is gone (or the removal failed in the store). */
notmuch_status_t notmuch_directory_delete(notmuch_directory_t *dir)
{
    notmuch_status_t st = nm_writable(dir->db);
    maildex_directory_t *d;

    if (st)
        return st;
    d = open_dir(dir, &st);
    if (d)
        st = nm_error(dir->db, maildex_directory_delete(d), "deleting directory entry");
    maildex_directory_free(d);
    talloc_free(dir);
    return st;
}

void notmuch_directory_destroy(notmuch_directory_t *dir)
{
    talloc_free(dir);
}
