/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The handle's error messages: every failure on a handle ends here, so that the message names what
 * failed, the database file, and what the user can do about it. The lowest file of lib/store: it
 * calls nothing of the library, so that every other file may call it. */
#include "maildex-private.h"

#include <errno.h>
#include <glib.h>
#include <stdarg.h>

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
maildex_status_t maildex__corrupt(maildex_db_t *db, const char *reason)
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
    const int cancel = maildex__cancelled(db);

    /* Whatever stopped a statement of a handle cancelled outright; a wait the busy handler gave up
     * because the handle was cancelled at all. */
    if (cancel == MAILDEX_CANCEL_ALL ||
        (cancel && ((rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED)))
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
        return maildex__corrupt(db, sqlite3_errmsg(db->sql));
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
