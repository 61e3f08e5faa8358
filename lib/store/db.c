/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The database handle: open (creating the file 0600 when asked), pragmas and what every connection
 * registers, the busy and progress handlers, the checkpoint, and close (the talloc destructor that
 * finalizes statements before closing SQLite). What the tables mean belongs to the files that use
 * them, not here. */
#include "maildex-private.h"

#include "sqlext/tokenizer.h"
#include "sqlext/sets.h"
#include "util/regexp.h"
#include "sqlext/text-pack.h"

#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* How long a writer waits for another writer is MAILDEX__WRITE_WAIT_MS (then
 * MAILDEX_STATUS_DATABASE_BUSY). A `new` run commits in batches and lets waiting writers in between
 * them (writer-lock.c), so a tag from Emacs waits at most one batch. */
/* A wait longer than this is told to the host (maildex_db_set_waiting). */
#define MAILDEX_BUSY_TELL_MS 500

/* Frees everything below db and closes SQLite. Returns false when SQLite refused to close (an
 * unfinalized statement: a bug), after closing it anyway so that the connection does not leak. */
static bool close_connection(maildex_db_t *db)
{
    int rc = SQLITE_OK;

    /* The participants first, while what they hold still stands. Then talloc runs a parent's
     * destructor before freeing its children: free them first, so that their own destructors
     * (one-off statements, query iterators) finalize before SQLite closes. */
    maildex__participants_close(db);
    talloc_free_children(db);
    maildex__stmt_finalize_all(db);
    maildex__turn_close(db);
    /* A writer leaves an empty WAL behind, as indexing does (index.c): every command is a process of
     * its own, and the first connection of a process rebuilds the WAL's index from every frame the
     * file holds, so a WAL that many small writes (notmuch.el's tag --batch, one per key) left
     * growing made each later command read all of it before its first row. */
    if (db->sql && db->mode != MAILDEX_DB_READ_ONLY && sqlite3_total_changes64(db->sql) > 0)
        maildex__checkpoint(db);
    if (db->sql) {
        rc = sqlite3_close(db->sql);
        if (rc != SQLITE_OK)
            sqlite3_close_v2(db->sql);
        db->sql = NULL;
    }
    return rc == SQLITE_OK;
}

static int db_destructor(maildex_db_t *db)
{
    close_connection(db);
    return 0;
}

/* The caller's copy of an open error: malloc'd, as maildex.h promises (free it with free()). */
static char *open_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *open_error(const char *fmt, ...)
{
    va_list ap;
    char *msg = NULL;

    va_start(ap, fmt);
    if (vasprintf(&msg, fmt, ap) < 0)
        msg = NULL;
    va_end(ap);
    return msg;
}

/* Creates the file with mode 0600 before SQLite sees it: mail metadata is private, and SQLite would
 * use the umask. SQLite gives the -wal and -shm files the same mode as the database file. */
static maildex_status_t create_private_file(const char *path, char **error_message)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);

    if (fd < 0) {
        if (error_message)
            *error_message = open_error("cannot create database '%s': %s", path,
                                             strerror(errno));
        return errno == ENOENT ? MAILDEX_STATUS_FILE_NOT_FOUND : MAILDEX_STATUS_IO_ERROR;
    }
    close(fd);
    return MAILDEX_STATUS_OK;
}


/* SQLite's busy handler: sleeps in growing steps (as sqlite3_busy_timeout does) up to the timeout,
 * and tells the host once when a wait gets long. count is 0 at the start of each wait. */
static int busy_handler(void *data, int count)
{
    static const int steps[] = {1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100};
    maildex_db_t *db = data;
    int ms = steps[count < (int) G_N_ELEMENTS(steps) ? count : (int) G_N_ELEMENTS(steps) - 1];

    if (count == 0) {
        db->busy_ms = 0;
        if (db->mode != MAILDEX_DB_READ_ONLY)
            maildex__turn_waiting(db);
    }
    if (db->busy_ms >= db->busy_timeout_ms || maildex__cancelled(db))
        return 0;
    if (db->busy_ms < MAILDEX_BUSY_TELL_MS && db->busy_ms + ms >= MAILDEX_BUSY_TELL_MS &&
        db->mode != MAILDEX_DB_READ_ONLY) {
        char *what = maildex__turn_waiting_message(db);
        maildex__waiting(db, what ? what : "waiting for another process writing to the database");
        talloc_free(what);
    }
    g_usleep((gulong) ms * 1000);
    db->busy_ms += ms;
    return 1;
}


void maildex__checkpoint(maildex_db_t *db)
{
    /* Without a busy handler, a checkpoint that would wait for a reader (or a writer) copies what it
     * can and returns: a reader open in an editor must never cost a writer its busy timeout. */
    sqlite3_busy_handler(db->sql, NULL, NULL);
    sqlite3_wal_checkpoint_v2(db->sql, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
    sqlite3_busy_handler(db->sql, busy_handler, db);
}

/* How maildex_db_cancel(MAILDEX_CANCEL_ALL) reaches SQLite: every statement of the handle, running
 * or started later, stops within a few thousand VM steps (sqlite3_interrupt would miss a statement
 * started after it while none ran, and is not documented as safe in a signal handler). */
static int progress_handler(void *data)
{
    maildex_db_t *db = data;

    return maildex__cancelled(db) >= MAILDEX_CANCEL_ALL;
}

static maildex_status_t configure_connection(maildex_db_t *db)
{
    maildex_status_t st;
    int rc;

    sqlite3_extended_result_codes(db->sql, 1);
    sqlite3_busy_handler(db->sql, busy_handler, db);
    sqlite3_progress_handler(db->sql, 4096, progress_handler, db);
    rc = maildex__fts_tokenizer_register(db->sql, &db->fts);
    if (rc != SQLITE_OK)
        return maildex__sql_error(db, rc, "cannot register the full-text tokenizer");
    /* The functions queries call: registering later would expire every prepared statement. */
    rc = maildex__regexp_register(db->sql);
    if (rc == SQLITE_OK)
        rc = maildex__sets_register(db->sql);
    if (rc == SQLITE_OK)
        rc = maildex__text_pack_register(db->sql);
    if (rc != SQLITE_OK)
        return maildex__sql_error(db, rc, "cannot register the query functions");
    /* WAL: readers (Emacs, scripts) never wait for `new`, and `new` never waits for them. NORMAL
     * synchronous is durable across application crashes in WAL mode; a power loss may lose the last
     * commits but never corrupts, and the next `new` redoes them. */
    if (db->mode != MAILDEX_DB_READ_ONLY) {
        int persist = 1;
        st = maildex__exec(db, "PRAGMA journal_mode=WAL");
        if (st)
            return st;
        /* Keep -wal and -shm when the writer closes: otherwise every reader (each search is a new
         * process) recreates and rebuilds the shared-memory index before its first read. */
        sqlite3_file_control(db->sql, "main", SQLITE_FCNTL_PERSIST_WAL, &persist);
    }
    /* Spill dirty pages only past 8,000 (31 MB): a sync pass over a 100k store changes ~4,500,
     * more than the 16 MB cache, and spilling at the cache size wrote pages to the WAL again each
     * time they changed after a spill (18k writes instead of 9k). Not never: FTS5's segment merges
     * in one batch of a first index dirty many more pages, and memory must stay bounded (with
     * cache_spill=OFF a 100k first index peaked at 101 MB). */
    return maildex__exec(db, "PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=OFF;"
                             "PRAGMA cache_size=-16000; PRAGMA cache_spill=8000;"
                             "PRAGMA temp_store=MEMORY");
}

/* SQLite refuses a file shorter than the page count in its header, but when the newest copy of
 * page 1 is in the WAL the count comes from there, and a truncated file then answers from the pages
 * that are left: `count '*'` printed a stale stored count while every search failed. Each page past
 * the end of the file must then be in the WAL, so the two files together hold at least the
 * database's size (SQLite's checkpoint makes the same test). Measured in one read transaction,
 * during which a checkpoint may move pages from the WAL into the file but can shrink neither.
 * A truncation smaller than what the WAL holds of pages also in the file goes unseen here; SQLite
 * reports it as corrupt when a lost page is read. */
static maildex_status_t check_file_size(maildex_db_t *db)
{
    struct stat file, wal;
    char *wal_path, *reason;
    int64_t pages = 0, page_size = 0, needed, present;
    maildex_status_t st = maildex__exec(db, "BEGIN");
    int rc;

    if (st)
        return st;
    rc = maildex__pragma_int(db->sql, "PRAGMA page_count", &pages);
    if (rc == SQLITE_OK)
        rc = maildex__pragma_int(db->sql, "PRAGMA page_size", &page_size);
    /* On an error the read transaction stays open (closing ends it): ending it here would overwrite
     * the error code that tells maildex_db_open whether a read-only open needs the repair. */
    if (rc != SQLITE_OK)
        return maildex__sql_error(db, rc, "cannot read the database size");
    needed = pages * page_size;
    wal_path = talloc_asprintf(db, "%s-wal", db->path);
    if (wal_path && stat(db->path, &file) == 0) {
        present = file.st_size + (stat(wal_path, &wal) == 0 ? wal.st_size : 0);
        if (present < needed) {
            reason = talloc_asprintf(db, "truncated: its pages need %lld bytes, the file and its "
                                         "WAL hold %lld",
                                     (long long) needed, (long long) present);
            st = maildex__corrupt(db, reason ? reason : "truncated");
            talloc_free(reason);
        }
    }
    talloc_free(wal_path);
    sqlite3_exec(db->sql, "COMMIT", NULL, NULL, NULL);
    return st;
}

/* A writer killed mid-transaction leaves a hot rollback journal (or a WAL whose index must be
 * rebuilt), which a read-only connection may not replay. SQLite repairs it on the first read of a
 * read-write connection; after that the read-only open succeeds. Errors are left to the retry. */
static bool needs_repair(int extended_rc)
{
    return extended_rc == SQLITE_READONLY_ROLLBACK || extended_rc == SQLITE_READONLY_RECOVERY ||
           extended_rc == SQLITE_READONLY_CANTINIT;
}

static void repair_interrupted_write(const char *db_path)
{
    sqlite3 *sql = NULL;

    if (sqlite3_open_v2(db_path, &sql, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) ==
        SQLITE_OK) {
        sqlite3_busy_timeout(sql, MAILDEX__WRITE_WAIT_MS);
        sqlite3_exec(sql, "PRAGMA user_version", NULL, NULL, NULL);
    }
    sqlite3_close(sql);
}

static maildex_status_t open_once(const char *db_path, const char *mail_root, maildex_db_mode_t mode,
                                  maildex_db_t **out, char **error_message, int *extended_rc);

maildex_status_t maildex_db_open(const char *db_path, const char *mail_root, maildex_db_mode_t mode,
                                 maildex_db_t **out, char **error_message)
{
    int extended_rc = SQLITE_OK;
    maildex_status_t st = open_once(db_path, mail_root, mode, out, error_message, &extended_rc);

    if (st != MAILDEX_STATUS_OK && mode == MAILDEX_DB_READ_ONLY && needs_repair(extended_rc)) {
        if (error_message) {
            free(*error_message);
            *error_message = NULL;
        }
        repair_interrupted_write(db_path);
        st = open_once(db_path, mail_root, mode, out, error_message, &extended_rc);
    }
    return st;
}

static maildex_status_t open_once(const char *db_path, const char *mail_root, maildex_db_mode_t mode,
                                  maildex_db_t **out, char **error_message, int *extended_rc)
{
    maildex_db_t *db = NULL;
    maildex_status_t st = MAILDEX_STATUS_OK;
    struct stat sb;
    int flags, rc;

    *out = NULL;
    if (error_message)
        *error_message = NULL;
    if (db_path == NULL || mail_root == NULL)
        return MAILDEX_STATUS_INVALID_ARGUMENT;
    if (stat(db_path, &sb) != 0) {
        if (mode != MAILDEX_DB_CREATE) {
            if (error_message)
                *error_message = open_error("cannot open database '%s': %s", db_path,
                                                 strerror(errno));
            return errno == ENOENT ? MAILDEX_STATUS_FILE_NOT_FOUND : MAILDEX_STATUS_IO_ERROR;
        }
        st = create_private_file(db_path, error_message);
        if (st)
            return st;
    }

    db = talloc_zero(NULL, maildex_db_t);
    if (db == NULL)
        return MAILDEX_STATUS_NO_MEMORY;
    talloc_set_destructor(db, db_destructor);
    db->mode = mode;
    db->turn_fd = -1;
    db->busy_timeout_ms = MAILDEX__WRITE_WAIT_MS;
    db->indexer_wait_ms = MAILDEX__INDEXER_WAIT_MS;
    db->path = talloc_strdup(db, db_path);
    db->mail_root = talloc_strdup(db, mail_root);
    db->errmsg = talloc_strdup(db, "");
    if (!db->path || !db->mail_root || !db->errmsg) {
        st = MAILDEX_STATUS_NO_MEMORY;
        goto done;
    }

    flags = (mode == MAILDEX_DB_READ_ONLY ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE) |
            SQLITE_OPEN_NOMUTEX;
    rc = sqlite3_open_v2(db_path, &db->sql, flags, NULL);
    if (rc != SQLITE_OK) {
        st = maildex__sql_error(db, rc, "cannot open database");
        goto done;
    }
    st = configure_connection(db);
    if (st == MAILDEX_STATUS_OK)
        st = check_file_size(db);
    if (st == MAILDEX_STATUS_OK)
        st = maildex__migrate(db);

done:
    if (st != MAILDEX_STATUS_OK) {
        if (db && db->sql)
            *extended_rc = sqlite3_extended_errcode(db->sql);
        if (error_message && db && db->errmsg)
            *error_message = open_error("%s%s", db->errmsg[0] ? "" : "cannot open database: ",
                                             db->errmsg[0] ? db->errmsg
                                                           : maildex_status_to_string(st));
        talloc_free(db);
        return st;
    }
    *out = db;
    return MAILDEX_STATUS_OK;
}

maildex_status_t maildex_db_close(maildex_db_t *db)
{
    bool closed;

    if (db == NULL)
        return MAILDEX_STATUS_OK;
    closed = close_connection(db);
    talloc_free(db);
    return closed ? MAILDEX_STATUS_OK : MAILDEX_STATUS_DATABASE_ERROR;
}

const char *maildex_db_errmsg(maildex_db_t *db)
{
    return db && db->errmsg ? db->errmsg : "";
}

const char *maildex_db_path(maildex_db_t *db)
{
    return db->path;
}

const char *maildex_db_mail_root(maildex_db_t *db)
{
    return db->mail_root;
}
