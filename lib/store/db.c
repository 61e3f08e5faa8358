/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The database handle: open (creating the file 0600 when asked), pragmas, the talloc destructor that
 * finalizes statements before closing SQLite, error messages, transactions, the revision counter and
 * database-stored config. What the tables mean belongs to the files that use them, not here. */
#include "maildex-private.h"

#include "sqlext/tokenizer.h"
#include "sqlext/sets.h"
#include "util/regexp.h"
#include "sqlext/text-pack.h"
#include "message/text-queue.h"
#include "message/tags.h"
#include "message/renames.h"

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

    /* talloc runs a parent's destructor before freeing its children: free them first, so that their
     * own destructors (one-off statements, query iterators) finalize before SQLite closes. */
    talloc_free_children(db);
    maildex__tags_free(db);
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

maildex_status_t maildex__error(maildex_db_t *db, maildex_status_t status, const char *fmt, ...)
{
    va_list ap;
    char *msg;

    va_start(ap, fmt);
    msg = talloc_vasprintf(db, fmt, ap);
    va_end(ap);
    if (msg) {
        talloc_free(db->errmsg);
        db->errmsg = msg;
    }
    return status;
}

/* The one message for a damaged file, whatever found it: the command does not matter, what to do
 * does. Nothing is repaired in place: the mail is still there, and a new index is one `new`
 * away. */
static maildex_status_t corrupt(maildex_db_t *db, const char *reason)
{
    return maildex__error(db, MAILDEX_STATUS_DATABASE_CORRUPT,
                          "database '%s' is corrupt (%s): move it aside and run 'maildex new' to "
                          "index the mail again; tags not kept as Maildir flags are lost",
                          db->path, reason);
}

/* SQLite's "disk I/O error" does not say which: a full disk (ENOSPC), a file size limit (EFBIG), a
 * failing device (EIO); by the time the statement reports it, errno is often gone. A failed write is
 * most often the first two. The transaction was rolled back: say so, and what would let it through. */
static maildex_status_t io_error(maildex_db_t *db, int rc, const char *context)
{
    const int err = sqlite3_system_errno(db->sql);
    const bool no_room = (rc & 0xff) == SQLITE_FULL || err == ENOSPC || err == EFBIG ||
                         err == EDQUOT || (err == 0 && rc == SQLITE_IOERR_WRITE);

    return maildex__error(db, MAILDEX_STATUS_IO_ERROR,
                          "%s: %s%s%s (database '%s'); what was committed before is kept%s", context,
                          sqlite3_errmsg(db->sql), err ? ": " : "", err ? g_strerror(err) : "", db->path,
                          no_room ? "; if the disk is full or the file at a size limit, make room and run "
                                    "the command again"
                                  : "");
}

maildex_status_t maildex__sql_error(maildex_db_t *db, int rc, const char *context)
{
    maildex_status_t status;

    if (g_atomic_int_get(&db->interrupted)) /* maildex_db_interrupt: whatever stopped the statement */
        rc = SQLITE_INTERRUPT;
    switch (rc & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
        status = MAILDEX_STATUS_DATABASE_BUSY;
        return maildex__error(db, status,
                              "%s: database '%s' is locked by another writer (waited %d s)", context,
                              db->path, db->busy_timeout_ms / 1000);
    case SQLITE_NOMEM:
        status = MAILDEX_STATUS_NO_MEMORY;
        break;
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
        return corrupt(db, sqlite3_errmsg(db->sql));
    case SQLITE_CONSTRAINT:
        /* Never SQLite's bare "UNIQUE constraint failed: ...": say it is the database's state that
         * refused the change, and keep SQLite's words for a bug report. */
        return maildex__error(db, MAILDEX_STATUS_DATABASE_ERROR,
                              "%s: database '%s' refused a change that contradicts its contents "
                              "(SQLite: %s); run the command again, and report a bug if it repeats",
                              context, db->path, sqlite3_errmsg(db->sql));
    case SQLITE_READONLY:
        status = MAILDEX_STATUS_READ_ONLY;
        break;
    case SQLITE_INTERRUPT:
        return maildex__error(db, MAILDEX_STATUS_INTERRUPTED, "%s: interrupted", context);
    case SQLITE_IOERR:
    case SQLITE_FULL:
        return io_error(db, rc, context);
    default:
        status = MAILDEX_STATUS_DATABASE_ERROR;
        break;
    }
    return maildex__error(db, status, "%s: %s (database '%s')", context, sqlite3_errmsg(db->sql),
                          db->path);
}

maildex_status_t maildex__step_done(maildex_db_t *db, sqlite3_stmt *stmt, const char *context)
{
    int rc = sqlite3_step(stmt);

    if (rc == SQLITE_DONE || rc == SQLITE_ROW) {
        sqlite3_reset(stmt);
        return MAILDEX_STATUS_OK;
    }
    return maildex__sql_error(db, sqlite3_reset(stmt), context);
}

maildex_status_t maildex__step_row(maildex_db_t *db, sqlite3_stmt *stmt, bool *has_row,
                                   const char *context)
{
    int rc = sqlite3_step(stmt);

    *has_row = rc == SQLITE_ROW;
    if (rc == SQLITE_DONE || rc == SQLITE_ROW)
        return MAILDEX_STATUS_OK;
    return maildex__sql_error(db, sqlite3_reset(stmt), context);
}

maildex_status_t maildex__run_ids(maildex_db_t *db, maildex__stmt_id_t id, int64_t a, int64_t b,
                                  const char *context)
{
    sqlite3_stmt *stmt;
    maildex_status_t st = maildex__stmt(db, id, &stmt);

    if (st)
        return st;
    sqlite3_bind_int64(stmt, 1, a);
    if (sqlite3_bind_parameter_count(stmt) >= 2)
        sqlite3_bind_int64(stmt, 2, b);
    return maildex__step_done(db, stmt, context);
}

/* The one row, one column look-up behind maildex__lookup_id and maildex__lookup_int: stmt is cached
 * and bound. */
static maildex_status_t lookup_first(maildex_db_t *db, sqlite3_stmt *stmt, int64_t *value)
{
    bool row;
    maildex_status_t st = maildex__step_row(db, stmt, &row, "cannot look up a row");

    if (st == MAILDEX_STATUS_OK && row)
        *value = sqlite3_column_int64(stmt, 0);
    sqlite3_reset(stmt);
    return st;
}

maildex_status_t maildex__lookup_id(maildex_db_t *db, maildex__stmt_id_t id, const char *text,
                                    int64_t *value)
{
    sqlite3_stmt *stmt;
    maildex_status_t st = maildex__stmt(db, id, &stmt);

    *value = 0;
    if (st)
        return st;
    sqlite3_bind_text(stmt, 1, text, -1, SQLITE_STATIC);
    return lookup_first(db, stmt, value);
}

maildex_status_t maildex__lookup_int(maildex_db_t *db, maildex__stmt_id_t id, int64_t key,
                                     int64_t *value)
{
    sqlite3_stmt *stmt;
    maildex_status_t st = maildex__stmt(db, id, &stmt);

    *value = 0;
    if (st)
        return st;
    sqlite3_bind_int64(stmt, 1, key);
    return lookup_first(db, stmt, value);
}

maildex_status_t maildex__find_or_create(maildex_db_t *db, maildex__stmt_id_t find,
                                         maildex__stmt_id_t create, const char *text, int64_t *id)
{
    sqlite3_stmt *stmt;
    maildex_status_t st = maildex__lookup_id(db, find, text, id);

    if (st != MAILDEX_STATUS_OK || *id != 0)
        return st;
    st = maildex__stmt(db, create, &stmt);
    if (st)
        return st;
    sqlite3_bind_text(stmt, 1, text, -1, SQLITE_STATIC);
    st = maildex__step_done(db, stmt, "cannot create a row");
    if (st == MAILDEX_STATUS_OK)
        *id = sqlite3_last_insert_rowid(db->sql);
    return st;
}

maildex_status_t maildex__exec(maildex_db_t *db, const char *sql)
{
    int rc = sqlite3_exec(db->sql, sql, NULL, NULL, NULL);
    return rc == SQLITE_OK ? MAILDEX_STATUS_OK : maildex__sql_error(db, rc, "database error");
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

void maildex_db_set_waiting(maildex_db_t *db, void (*waiting)(void *data, const char *what),
                            void *data)
{
    db->waiting = waiting;
    db->waiting_data = data;
}

void maildex__waiting(maildex_db_t *db, const char *what)
{
    if (db->waiting)
        db->waiting(db->waiting_data, what);
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
    if (db->busy_ms >= db->busy_timeout_ms || g_atomic_int_get(&db->interrupted))
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

maildex_status_t maildex__vocab_ensure(maildex_db_t *db)
{
    sqlite3_stmt *probe = NULL;
    int rc;

    if (sqlite3_prepare_v2(db->sql, "SELECT 1 FROM temp.maildex_vocab LIMIT 0", -1, &probe, NULL) ==
        SQLITE_OK) {
        sqlite3_finalize(probe);
        return MAILDEX_STATUS_OK;
    }
    rc = sqlite3_exec(db->sql,
                      "CREATE VIRTUAL TABLE IF NOT EXISTS temp.maildex_vocab "
                      "USING fts5vocab(main, 'fts', 'row')",
                      NULL, NULL, NULL);
    return rc == SQLITE_OK ? MAILDEX_STATUS_OK
                           : maildex__sql_error(db, rc, "cannot open the word list");
}

void maildex__checkpoint(maildex_db_t *db)
{
    /* Without a busy handler, a checkpoint that would wait for a reader (or a writer) copies what it
     * can and returns: a reader open in an editor must never cost a writer its busy timeout. */
    sqlite3_busy_handler(db->sql, NULL, NULL);
    sqlite3_wal_checkpoint_v2(db->sql, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
    sqlite3_busy_handler(db->sql, busy_handler, db);
}

/* sqlite3_interrupt() alone misses a statement started after it while none was running: the
 * handler makes every statement of an interrupted handle stop within a few thousand VM steps. */
static int progress_handler(void *data)
{
    maildex_db_t *db = data;

    return g_atomic_int_get(&db->interrupted);
}

void maildex_db_interrupt(maildex_db_t *db)
{
    g_atomic_int_set(&db->interrupted, 1);
    sqlite3_interrupt(db->sql);
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

int maildex__pragma_int(sqlite3 *sql, const char *pragma, int64_t *value)
{
    sqlite3_stmt *stmt = NULL;
    int rc = sqlite3_prepare_v2(sql, pragma, -1, &stmt, NULL);

    if (rc == SQLITE_OK && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        *value = sqlite3_column_int64(stmt, 0);
        rc = SQLITE_OK;
    }
    sqlite3_finalize(stmt);
    return rc;
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
            st = corrupt(db, reason ? reason : "truncated");
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

maildex_status_t maildex__begin(maildex_db_t *db)
{
    sqlite3_stmt *stmt;
    maildex_status_t st;
    int rc;

    if (db->mode == MAILDEX_DB_READ_ONLY)
        return maildex__error(db, MAILDEX_STATUS_READ_ONLY, "database '%s' was opened read-only",
                              db->path);
    if (db->reading)
        return maildex__error(db, MAILDEX_STATUS_INVALID_ARGUMENT,
                              "cannot write to database '%s' inside a read transaction", db->path);
    if (db->in_transaction++ > 0)
        return MAILDEX_STATUS_OK;
    st = maildex__stmt(db, MAILDEX__STMT_BEGIN, &stmt);
    if (st == MAILDEX_STATUS_OK) {
        rc = sqlite3_step(stmt);
        sqlite3_reset(stmt);
        maildex__turn_begun(db, rc == SQLITE_DONE);
        if (rc != SQLITE_DONE)
            st = maildex__sql_error(db, rc, "cannot start a write transaction");
    }
    if (st != MAILDEX_STATUS_OK)
        db->in_transaction = 0;
    db->revision_bumped = 0;
    return st;
}

maildex_status_t maildex__commit(maildex_db_t *db)
{
    sqlite3_stmt *stmt;
    maildex_status_t st;
    int rc;

    if (db->in_transaction == 0 || --db->in_transaction > 0)
        return MAILDEX_STATUS_OK;
    st = maildex__text_write_held(db);
    if (st == MAILDEX_STATUS_OK)
        st = maildex__tags_before_commit(db);
    if (st == MAILDEX_STATUS_OK && db->message_delta != 0) {
        st = maildex__run_ids(db, MAILDEX__STMT_MESSAGE_COUNT_ADD, db->message_delta, 0,
                              "cannot count messages");
        db->message_delta = 0;
    }
    if (st == MAILDEX_STATUS_OK)
        st = maildex__stmt(db, MAILDEX__STMT_COMMIT, &stmt);
    if (st) {
        maildex__rollback(db);
        return st;
    }
    maildex__turn_ending(db);
    rc = sqlite3_step(stmt);
    sqlite3_reset(stmt);
    if (rc != SQLITE_DONE) {
        st = maildex__sql_error(db, rc, "cannot commit");
        maildex__rollback(db);
    } else if (db->renames_owed) {
        db->renames_owed = false;
        /* The change is committed with its renames recorded: a rename that cannot be made now (the
         * database busy past the wait) is made by the next writer, so this commit still succeeded. */
        maildex__renames_finish(db);
    }
    return st;
}

maildex_status_t maildex__commit_and_begin(maildex_db_t *db)
{
    maildex_status_t st = maildex__commit(db);

    if (st == MAILDEX_STATUS_OK && db->in_transaction == 0) /* writers waiting go first */
        maildex__turn_yield(db);
    return st == MAILDEX_STATUS_OK ? maildex__begin(db) : st;
}

void maildex__rollback(maildex_db_t *db)
{
    db->in_transaction = 0;
    db->revision_bumped = 0;
    db->renames_owed = false;
    db->message_delta = 0;
    maildex__tags_after_rollback(db);
    maildex__text_drop_held(db);
    if (!sqlite3_get_autocommit(db->sql)) {
        maildex__turn_ending(db);
        sqlite3_exec(db->sql, "ROLLBACK", NULL, NULL, NULL);
    }
}

maildex_status_t maildex__bump_revision(maildex_db_t *db, int64_t *revision)
{
    sqlite3_stmt *stmt;
    maildex_status_t st = maildex__stmt(db, MAILDEX__STMT_REVISION_BUMP, &stmt);
    int rc;

    if (st)
        return st;
    rc = sqlite3_step(stmt);
    if (rc != SQLITE_ROW) {
        st = maildex__sql_error(db, sqlite3_reset(stmt), "cannot update the database revision");
        return st;
    }
    *revision = sqlite3_column_int64(stmt, 0);
    sqlite3_reset(stmt);
    db->revision_bumped = 1;
    db->revision = *revision;
    return MAILDEX_STATUS_OK;
}

maildex_status_t maildex__current_revision(maildex_db_t *db, int64_t *revision)
{
    if (db->revision_bumped) {
        *revision = db->revision;
        return MAILDEX_STATUS_OK;
    }
    return maildex__bump_revision(db, revision);
}

maildex_status_t maildex_db_revision(maildex_db_t *db, const char **uuid, uint64_t *revision)
{
    sqlite3_stmt *stmt;
    maildex_status_t st;
    const char *keys[2] = {"uuid", "revision"};

    for (int i = 0; i < 2; i++) {
        st = maildex__stmt(db, MAILDEX__STMT_META_GET, &stmt);
        if (st)
            return st;
        sqlite3_bind_text(stmt, 1, keys[i], -1, SQLITE_STATIC);
        if (sqlite3_step(stmt) != SQLITE_ROW)
            return maildex__sql_error(db, sqlite3_reset(stmt), "cannot read the database revision");
        if (i == 0) {
            talloc_free(db->uuid);
            db->uuid = talloc_strdup(db, (const char *) sqlite3_column_text(stmt, 0));
            if (uuid)
                *uuid = db->uuid;
        } else if (revision) {
            *revision = (uint64_t) sqlite3_column_int64(stmt, 0);
        }
        sqlite3_reset(stmt);
    }
    return MAILDEX_STATUS_OK;
}

maildex_status_t maildex_db_config_get(maildex_db_t *db, const char *key, const char **value)
{
    sqlite3_stmt *stmt;
    maildex_status_t st = maildex__stmt(db, MAILDEX__STMT_CONFIG_GET, &stmt);
    int rc;

    *value = NULL;
    if (st)
        return st;
    sqlite3_bind_text(stmt, 1, key, -1, SQLITE_STATIC);
    rc = sqlite3_step(stmt);
    if (rc == SQLITE_ROW) {
        talloc_free(db->config_value);
        db->config_value = talloc_strdup(db, (const char *) sqlite3_column_text(stmt, 0));
        *value = db->config_value;
    } else if (rc != SQLITE_DONE) {
        st = maildex__sql_error(db, sqlite3_reset(stmt), "cannot read config");
    }
    sqlite3_reset(stmt);
    return st;
}

maildex_status_t maildex_db_config_set(maildex_db_t *db, const char *key, const char *value)
{
    sqlite3_stmt *stmt;
    maildex_status_t st = maildex__begin(db);
    int rc;

    if (st)
        return st;
    st = maildex__stmt(db, value ? MAILDEX__STMT_CONFIG_SET : MAILDEX__STMT_CONFIG_DELETE, &stmt);
    if (st == MAILDEX_STATUS_OK) {
        sqlite3_bind_text(stmt, 1, key, -1, SQLITE_STATIC);
        if (value)
            sqlite3_bind_text(stmt, 2, value, -1, SQLITE_STATIC);
        rc = sqlite3_step(stmt);
        if (rc != SQLITE_DONE)
            st = maildex__sql_error(db, sqlite3_reset(stmt), "cannot store config");
        sqlite3_reset(stmt);
    }
    if (st) {
        maildex__rollback(db);
        return st;
    }
    return maildex__commit(db);
}

maildex_status_t maildex_db_set_user_fields(maildex_db_t *db, const maildex_pair_t *fields)
{
    size_t n = 0;
    maildex_pair_t *copy;

    while (fields && fields[n].key)
        n++;
    talloc_free(db->user_fields);
    db->user_fields = NULL;
    if (n == 0)
        return MAILDEX_STATUS_OK;
    if ((copy = talloc_zero_array(db, maildex_pair_t, n + 1)) == NULL)
        return maildex__error(db, MAILDEX_STATUS_NO_MEMORY, "out of memory");
    for (size_t i = 0; i < n; i++) {
        copy[i].key = talloc_strdup(copy, fields[i].key);
        copy[i].value = talloc_strdup(copy, fields[i].value ? fields[i].value : "");
        if (copy[i].key == NULL || copy[i].value == NULL) {
            talloc_free(copy);
            return maildex__error(db, MAILDEX_STATUS_NO_MEMORY, "out of memory");
        }
    }
    db->user_fields = copy;
    return MAILDEX_STATUS_OK;
}

maildex_status_t maildex_db_config_list(maildex_db_t *db, const char *prefix,
                                        const maildex_pair_t **out)
{
    sqlite3_stmt *stmt;
    maildex_pair_t *pairs = talloc_zero_array(db, maildex_pair_t, 1);
    size_t n = 0, plen = strlen(prefix);
    bool row;
    maildex_status_t st = maildex__stmt(db, MAILDEX__STMT_CONFIG_LIST, &stmt);

    *out = NULL;
    if (st == MAILDEX_STATUS_OK && pairs == NULL)
        st = maildex__error(db, MAILDEX_STATUS_NO_MEMORY, "out of memory");
    if (st) {
        talloc_free(pairs);
        return st;
    }
    sqlite3_bind_text(stmt, 1, prefix, -1, SQLITE_STATIC);
    while ((st = maildex__step_row(db, stmt, &row, "cannot list config")) == MAILDEX_STATUS_OK && row) {
        const char *key = (const char *) sqlite3_column_text(stmt, 0);
        maildex_pair_t *grown;
        if (strncmp(key, prefix, plen) != 0)
            break; /* past the keys with this prefix: they sort together */
        grown = talloc_realloc(db, pairs, maildex_pair_t, n + 2);
        if (grown == NULL) {
            st = maildex__error(db, MAILDEX_STATUS_NO_MEMORY, "out of memory");
            break;
        }
        pairs = grown;
        pairs[n].key = talloc_strdup(pairs, key);
        pairs[n].value = talloc_strdup(pairs, (const char *) sqlite3_column_text(stmt, 1));
        pairs[++n] = (maildex_pair_t){NULL, NULL};
    }
    sqlite3_reset(stmt);
    if (st) {
        talloc_free(pairs);
        return st;
    }
    talloc_free(db->config_pairs);
    db->config_pairs = pairs;
    *out = pairs;
    return MAILDEX_STATUS_OK;
}

maildex_status_t maildex_db_begin_read(maildex_db_t *db)
{
    maildex_status_t st;

    if (db->in_transaction || db->reading)
        return maildex__error(db, MAILDEX_STATUS_INVALID_ARGUMENT,
                              "cannot start a read transaction on database '%s' inside another one",
                              db->path);
    /* BEGIN alone takes no snapshot: the first read does, so read at once. */
    st = maildex__exec(db, "BEGIN; SELECT value FROM meta WHERE key = 'revision'");
    if (st != MAILDEX_STATUS_OK) {
        if (!sqlite3_get_autocommit(db->sql))
            sqlite3_exec(db->sql, "ROLLBACK", NULL, NULL, NULL);
        return st;
    }
    db->reading = true;
    return MAILDEX_STATUS_OK;
}

maildex_status_t maildex_db_end_read(maildex_db_t *db)
{
    if (!db->reading)
        return MAILDEX_STATUS_OK;
    db->reading = false;
    return maildex__exec(db, "COMMIT");
}

maildex_status_t maildex_db_begin_atomic(maildex_db_t *db)
{
    return maildex__begin(db);
}

maildex_status_t maildex_db_end_atomic(maildex_db_t *db)
{
    return maildex__commit(db);
}
