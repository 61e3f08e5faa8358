/* SPDX-License-Identifier: GPL-3.0-or-later */
/* maildex_db_compact(): notmuch's `compact` for one SQLite file. FTS5 merges its index
 * ('optimize'), VACUUM INTO writes a compact copy beside the database, and SQLite's backup API puts
 * the copy's pages in place as one write transaction of the live database ("the swap").
 *
 * Why not rename the copy over the database: the database lives in WAL mode, and SQLite finds
 * "<db>-wal" and "<db>-shm" by name. A process that opened the old file just before the rename
 * would pair it with the new file's log, one that opens the new file would find the old one's log
 * index, and a writer waiting for the lock would commit to the old file: SQLite's ways to corrupt
 * or lose data ("How To Corrupt An SQLite Database File", 1.4 and 2.4). Writing the pages through
 * SQLite is the same atomic swap without them: a reader sees the old database or the new one, a
 * reader inside a transaction keeps its snapshot, a writer waits for the swap and then writes to
 * the new database, and the file shrinks at the next full checkpoint.
 *
 * What another writer commits while the copy is made must not be lost. First try: copy without
 * holding the write lock, take it (a backup step of no pages), and swap only if no other connection
 * committed since before the copy (PRAGMA data_version on a second connection); writers wait only
 * for the swap. If one did, the copy is thrown away and made again with the write lock held from
 * the start: the swap's source is then a placeholder file that the copy overwrites, since a backup
 * must have its source before it takes the lock and VACUUM INTO refuses to run inside a
 * transaction. This file must not hold the write lock longer than that. */
#include "maildex-private.h"

#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The database's size on disk: the file and its write-ahead log. */
static uint64_t disk_size(const char *path)
{
    struct stat sb;
    char *wal = g_strconcat(path, "-wal", NULL);
    uint64_t size = 0;

    if (stat(path, &sb) == 0)
        size += (uint64_t) sb.st_size;
    if (stat(wal, &sb) == 0)
        size += (uint64_t) sb.st_size;
    g_free(wal);
    return size;
}

/* The status and message for a failed SQLite step rc, on connection sql (not always db's). */
static maildex_status_t failed(maildex_db_t *db, sqlite3 *sql, int rc, const char *what)
{
    const int code = rc & 0xff;

    if (code == SQLITE_BUSY || code == SQLITE_LOCKED)
        return maildex__sql_error(db, rc, what);
    return maildex__error(db, code == SQLITE_FULL || code == SQLITE_IOERR ? MAILDEX_STATUS_IO_ERROR
                                                                           : MAILDEX_STATUS_DATABASE_ERROR,
                          "%s: %s (database '%s'); the database is unchanged", what,
                          sql ? sqlite3_errmsg(sql) : sqlite3_errstr(rc), db->path);
}

/* A new empty file beside the database; *path is its name (g_free it, unlink it). */
static maildex_status_t file_beside(maildex_db_t *db, char **path)
{
    int fd;

    *path = g_strconcat(db->path, ".compact-XXXXXX", NULL);
    if ((fd = g_mkstemp_full(*path, O_RDWR | O_CLOEXEC, 0600)) < 0)
        return maildex__error(db, MAILDEX_STATUS_IO_ERROR, "cannot create a file beside database '%s': %s",
                              db->path, strerror(errno));
    close(fd);
    return MAILDEX_STATUS_OK;
}

/* Copies the database file at from (or the database src is connected to) into the one at to. */
static int copy_pages(sqlite3 *src, const char *from, const char *to)
{
    sqlite3 *own = NULL, *dst = NULL;
    sqlite3_backup *b = NULL;
    int rc = src ? SQLITE_OK : sqlite3_open_v2(from, &own, SQLITE_OPEN_READONLY, NULL);

    if (rc == SQLITE_OK)
        rc = sqlite3_open_v2(to, &dst, SQLITE_OPEN_READWRITE, NULL);
    if (rc == SQLITE_OK && (b = sqlite3_backup_init(dst, "main", src ? src : own, "main")) == NULL)
        rc = sqlite3_extended_errcode(dst);
    if (b && (rc = sqlite3_backup_step(b, -1)) == SQLITE_DONE)
        rc = SQLITE_OK;
    if (b && sqlite3_backup_finish(b) != SQLITE_OK && rc == SQLITE_OK)
        rc = sqlite3_extended_errcode(dst);
    sqlite3_close(dst);
    sqlite3_close(own);
    return rc;
}

/* Copies the database, as the watching connection sees it now, into a new file at path (0600). */
static maildex_status_t keep_backup(maildex_db_t *db, sqlite3 *watch, const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600), rc;
    char *dir;

    if (fd < 0)
        return maildex__error(db, errno == EEXIST ? MAILDEX_STATUS_INVALID_ARGUMENT : MAILDEX_STATUS_IO_ERROR,
                              "cannot create the backup '%s': %s", path, strerror(errno));
    close(fd);
    rc = copy_pages(watch, NULL, path);
    if (rc == SQLITE_OK) {
        /* SQLite synced the file; its name must last too. */
        dir = g_path_get_dirname(path);
        if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
            if (fsync(fd) != 0)
                rc = SQLITE_IOERR_FSYNC;
            close(fd);
        }
        g_free(dir);
    }
    if (rc == SQLITE_OK)
        return MAILDEX_STATUS_OK;
    unlink(path);
    return maildex__error(db, MAILDEX_STATUS_IO_ERROR, "cannot write the backup '%s': %s", path,
                          sqlite3_errstr(rc));
}

/* VACUUM INTO a new file beside the database, through the watching connection (VACUUM INTO only
 * reads, and runs outside any transaction); *tmp is its name. */
static maildex_status_t vacuum_into(maildex_db_t *db, sqlite3 *watch, char **tmp)
{
    sqlite3_stmt *stmt = NULL;
    maildex_status_t st = file_beside(db, tmp); /* VACUUM INTO takes an empty file */
    int rc;

    if (st)
        return st;
    rc = sqlite3_prepare_v2(watch, "VACUUM INTO ?1", -1, &stmt, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_bind_text(stmt, 1, *tmp, -1, SQLITE_STATIC);
        rc = sqlite3_step(stmt) == SQLITE_DONE ? SQLITE_OK : sqlite3_reset(stmt);
    }
    sqlite3_finalize(stmt);
    return rc == SQLITE_OK ? MAILDEX_STATUS_OK : failed(db, watch, rc, "cannot write the compact copy");
}

/* A small database file beside the live one, with its page size: the source a locked swap starts
 * from (a backup's source must have pages before its first step, or it empties the destination). */
static maildex_status_t placeholder(maildex_db_t *db, sqlite3 *watch, char **path)
{
    sqlite3 *p = NULL;
    int64_t page_size = 4096;
    char *sql;
    int rc;
    maildex_status_t st = file_beside(db, path);

    if (st)
        return st;
    maildex__pragma_int(watch, "PRAGMA page_size", &page_size);
    sql = sqlite3_mprintf("PRAGMA page_size=%lld; CREATE TABLE placeholder(x)", (long long) page_size);
    rc = sqlite3_open_v2(*path, &p, SQLITE_OPEN_READWRITE, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(p, sql, NULL, NULL, NULL);
    sqlite3_free(sql);
    sqlite3_close(p);
    return rc == SQLITE_OK ? MAILDEX_STATUS_OK : failed(db, NULL, rc, "cannot prepare the compaction");
}

/* A swap in progress: a backup from the file at its source into the live database. */
struct swap {
    sqlite3 *src;
    sqlite3_backup *b;
};

/* Takes the live database's write lock (waiting for other writers as every write does) for a swap
 * from the file at path: a backup step of no pages, whose transaction keeps the lock. */
static maildex_status_t swap_begin(maildex_db_t *db, const char *path, struct swap *sw)
{
    int rc = sqlite3_open_v2(path, &sw->src, SQLITE_OPEN_READONLY, NULL);

    sw->b = NULL;
    if (rc == SQLITE_OK && (sw->b = sqlite3_backup_init(db->sql, "main", sw->src, "main")) == NULL)
        rc = sqlite3_extended_errcode(db->sql);
    if (rc == SQLITE_OK && (rc = sqlite3_backup_step(sw->b, 0)) == SQLITE_DONE)
        rc = SQLITE_CORRUPT; /* an empty source: it must never be written over the database */
    if (rc == SQLITE_OK)
        return MAILDEX_STATUS_OK;
    return failed(db, db->sql, rc, "cannot put the compact copy in place");
}

/* Copies every page of the swap's source into the live database and commits, or with abandon rolls
 * the swap's transaction back; ends the swap either way. */
static maildex_status_t swap_end(maildex_db_t *db, struct swap *sw, bool abandon)
{
    int rc = SQLITE_OK, frc;

    if (sw->b && !abandon && (rc = sqlite3_backup_step(sw->b, -1)) == SQLITE_DONE)
        rc = SQLITE_OK;
    frc = sw->b ? sqlite3_backup_finish(sw->b) : SQLITE_OK; /* commits a complete copy, else rolls back */
    if (rc == SQLITE_OK && !abandon)
        rc = frc;
    sqlite3_close(sw->src);
    sw->src = NULL;
    sw->b = NULL;
    if (rc == SQLITE_OK)
        return MAILDEX_STATUS_OK;
    return failed(db, db->sql, rc, "cannot put the compact copy in place");
}

/* One compaction, the optimistic way: copies without the lock, then swaps unless another connection
 * committed since (*again is set and nothing changes). */
static maildex_status_t compact_unlocked(maildex_db_t *db, sqlite3 *watch, const char *backup_path,
                                         bool *again)
{
    struct swap sw = {NULL, NULL};
    int64_t before = 0, after = 0;
    char *copy = NULL;
    maildex_status_t st = maildex__pragma_int(watch, "PRAGMA data_version", &before) == SQLITE_OK
                              ? MAILDEX_STATUS_OK
                              : failed(db, watch, sqlite3_errcode(watch), "cannot read database");

    *again = false;
    if (st == MAILDEX_STATUS_OK && backup_path)
        st = keep_backup(db, watch, backup_path);
    if (st == MAILDEX_STATUS_OK)
        st = vacuum_into(db, watch, &copy);
    if (st == MAILDEX_STATUS_OK)
        st = swap_begin(db, copy, &sw);
    if (st == MAILDEX_STATUS_OK && maildex__pragma_int(watch, "PRAGMA data_version", &after) != SQLITE_OK)
        st = failed(db, watch, sqlite3_errcode(watch), "cannot read database");
    *again = st == MAILDEX_STATUS_OK && after != before;
    if (sw.src) {
        maildex_status_t end = swap_end(db, &sw, st != MAILDEX_STATUS_OK || *again);
        st = st ? st : end;
    }
    if (copy)
        unlink(copy);
    g_free(copy);
    if (backup_path && (st || *again))
        unlink(backup_path); /* out of date, or half made: made again, or not at all */
    return st;
}

/* One compaction holding the write lock throughout: the swap starts from a placeholder, the copy
 * is made and written over it, then swapped in. */
static maildex_status_t compact_locked(maildex_db_t *db, sqlite3 *watch, const char *backup_path)
{
    struct swap sw = {NULL, NULL};
    char *hold = NULL, *copy = NULL;
    maildex_status_t st = placeholder(db, watch, &hold);
    int rc;

    if (st == MAILDEX_STATUS_OK)
        st = swap_begin(db, hold, &sw);
    if (st == MAILDEX_STATUS_OK && backup_path)
        st = keep_backup(db, watch, backup_path);
    if (st == MAILDEX_STATUS_OK)
        st = vacuum_into(db, watch, &copy);
    /* The swap's source reads the new contents at its next step (another connection changed it). */
    if (st == MAILDEX_STATUS_OK && (rc = copy_pages(NULL, copy, hold)) != SQLITE_OK)
        st = failed(db, NULL, rc, "cannot write the compact copy");
    if (sw.src) {
        maildex_status_t end = swap_end(db, &sw, st != MAILDEX_STATUS_OK);
        st = st ? st : end;
    }
    if (hold)
        unlink(hold);
    if (copy)
        unlink(copy);
    g_free(hold);
    g_free(copy);
    if (backup_path && st)
        unlink(backup_path);
    return st;
}

static maildex_status_t optimize(maildex_db_t *db)
{
    maildex_status_t st = maildex__begin(db);

    if (st == MAILDEX_STATUS_OK)
        st = maildex__exec(db, "INSERT INTO fts(fts) VALUES('optimize')");
    if (st == MAILDEX_STATUS_OK)
        return maildex__commit(db);
    maildex__rollback(db);
    return st;
}

maildex_status_t maildex__compact(maildex_db_t *db, const char *backup_path, int unlocked_tries,
                                  uint64_t *size_before, uint64_t *size_after)
{
    struct maildex__writer_lock *lock = NULL;
    sqlite3 *watch = NULL;
    bool again = true;
    maildex_status_t st;

    if (size_before)
        *size_before = disk_size(db->path);
    if (size_after)
        *size_after = 0;
    if (db->mode == MAILDEX_DB_READ_ONLY)
        return maildex__error(db, MAILDEX_STATUS_READ_ONLY, "cannot compact database '%s': opened read-only",
                              db->path);
    if (db->in_transaction || db->reading)
        return maildex__error(db, MAILDEX_STATUS_INVALID_ARGUMENT,
                              "cannot compact database '%s' inside a transaction", db->path);
    /* `new` and `reindex` plan from what they read before they write: they wait for the whole
     * compaction, and it for them. */
    st = maildex__writer_lock(db, "indexing", &lock);
    if (st == MAILDEX_STATUS_OK)
        st = optimize(db);
    if (st == MAILDEX_STATUS_OK && sqlite3_open_v2(db->path, &watch, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
        st = failed(db, watch, SQLITE_CANTOPEN, "cannot open the database a second time");
    if (watch)
        sqlite3_busy_timeout(watch, 10000);
    for (int i = 0; i < unlocked_tries && again && st == MAILDEX_STATUS_OK; i++)
        st = compact_unlocked(db, watch, backup_path, &again);
    if (st == MAILDEX_STATUS_OK && again)
        st = compact_locked(db, watch, backup_path);
    sqlite3_close(watch);
    if (st == MAILDEX_STATUS_OK)
        maildex__checkpoint(db);
    maildex__writer_unlock(lock);
    if (size_after)
        *size_after = disk_size(db->path);
    return st;
}

maildex_status_t maildex_db_compact(maildex_db_t *db, const char *backup_path, uint64_t *size_before,
                                    uint64_t *size_after)
{
    return maildex__compact(db, backup_path, 2, size_before, size_after);
}
