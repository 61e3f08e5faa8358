/* SPDX-License-Identifier: GPL-3.0-or-later */
/* status.c: notmuch's status texts and the database's status string, and the two checks every call
 * makes first: may it read (the handle is not closed), may it write (open read-write). The messages
 * are notmuch 0.37's, word for word where a program may show them; the reason after "occurred ...:"
 * is maildex's own. Nothing here reaches the store. */
#include "abi.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *notmuch_status_to_string(notmuch_status_t status)
{
    /* notmuch 0.37 has no text for CLOSED_DATABASE: it answers the default, as here. */
    static const char *const text[NOTMUCH_STATUS_LAST_STATUS] = {
        [NOTMUCH_STATUS_SUCCESS] = "No error occurred",
        [NOTMUCH_STATUS_OUT_OF_MEMORY] = "Out of memory",
        [NOTMUCH_STATUS_READ_ONLY_DATABASE] = "Attempt to write to a read-only database",
        [NOTMUCH_STATUS_XAPIAN_EXCEPTION] = "A Xapian exception occurred",
        [NOTMUCH_STATUS_FILE_ERROR] = "Something went wrong trying to read or write a file",
        [NOTMUCH_STATUS_FILE_NOT_EMAIL] = "File is not an email",
        [NOTMUCH_STATUS_DUPLICATE_MESSAGE_ID] = "Message ID is identical to a message in database",
        [NOTMUCH_STATUS_NULL_POINTER] = "Erroneous NULL pointer",
        [NOTMUCH_STATUS_TAG_TOO_LONG] = "Tag value is too long (exceeds NOTMUCH_TAG_MAX)",
        [NOTMUCH_STATUS_UNBALANCED_FREEZE_THAW] = "Unbalanced number of calls to notmuch_message_freeze/thaw",
        [NOTMUCH_STATUS_UNBALANCED_ATOMIC] =
            "Unbalanced number of calls to notmuch_database_begin_atomic/end_atomic",
        [NOTMUCH_STATUS_UNSUPPORTED_OPERATION] = "Unsupported operation",
        [NOTMUCH_STATUS_UPGRADE_REQUIRED] = "Operation requires a database upgrade",
        [NOTMUCH_STATUS_PATH_ERROR] = "Path supplied is illegal for this function",
        [NOTMUCH_STATUS_IGNORED] = "Argument was ignored",
        [NOTMUCH_STATUS_ILLEGAL_ARGUMENT] = "Illegal argument for function",
        [NOTMUCH_STATUS_MALFORMED_CRYPTO_PROTOCOL] = "Crypto protocol missing, malformed, or unintelligible",
        [NOTMUCH_STATUS_FAILED_CRYPTO_CONTEXT_CREATION] = "Crypto engine initialization failure",
        [NOTMUCH_STATUS_UNKNOWN_CRYPTO_PROTOCOL] = "Unknown crypto protocol",
        [NOTMUCH_STATUS_NO_CONFIG] = "No configuration file found",
        [NOTMUCH_STATUS_NO_DATABASE] = "No database found",
        [NOTMUCH_STATUS_DATABASE_EXISTS] = "Database exists, not recreated",
        [NOTMUCH_STATUS_BAD_QUERY_SYNTAX] = "Syntax error in query",
        [NOTMUCH_STATUS_NO_MAIL_ROOT] = "No mail root found",
    };

    if ((unsigned) status < NOTMUCH_STATUS_LAST_STATUS && text[status])
        return text[status];
    return "Unknown error status value";
}

/* notmuch's answers for a library built with every feature; retry_lock: writers wait for each other
 * (maildex_db_set_waiting). */
notmuch_bool_t notmuch_built_with(const char *name)
{
    static const char *const features[] = {"compact", "field_processor", "retry_lock", "session_key",
                                           "sexp_queries"};

    for (size_t i = 0; name && i < sizeof features / sizeof *features; i++)
        if (strncmp(name, features[i], strlen(features[i])) == 0)
            return TRUE;
    return FALSE;
}

const char *notmuch_database_status_string(const notmuch_database_t *db)
{
    return db->status_string;
}

static void vlog(notmuch_database_t *db, bool append, const char *fmt, va_list ap)
{
    char *text = talloc_vasprintf(db, fmt, ap);

    if (text == NULL)
        return;
    if (append && db->status_string) {
        char *joined = talloc_asprintf(db, "%s%s", db->status_string, text);
        talloc_free(text);
        text = joined;
    }
    talloc_free(db->status_string);
    db->status_string = text;
}

void nm_log(notmuch_database_t *db, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vlog(db, false, fmt, ap);
    va_end(ap);
}

void nm_log_append(notmuch_database_t *db, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vlog(db, true, fmt, ap);
    va_end(ap);
}

/* How maildex's statuses come out of a call that failed on the store: notmuch reports a failure of its
 * store as a Xapian exception, whatever its cause. */
notmuch_status_t nm_error(notmuch_database_t *db, maildex_status_t st, const char *what)
{
    switch (st) {
    case MAILDEX_STATUS_OK:
        return NOTMUCH_STATUS_SUCCESS;
    case MAILDEX_STATUS_NO_MEMORY:
        return NOTMUCH_STATUS_OUT_OF_MEMORY;
    case MAILDEX_STATUS_READ_ONLY:
        nm_log(db, "Cannot write to a read-only database.\n");
        return NOTMUCH_STATUS_READ_ONLY_DATABASE;
    default:
        nm_log(db, "A Xapian exception occurred %s: %s.\n", what,
               db->mdb ? maildex_db_errmsg(db->mdb) : "Database has been closed");
        return NOTMUCH_STATUS_XAPIAN_EXCEPTION;
    }
}

notmuch_status_t nm_readable(notmuch_database_t *db, const char *what)
{
    if (db->mdb)
        return NOTMUCH_STATUS_SUCCESS;
    nm_log(db, "A Xapian exception occurred %s: Database has been closed.\n", what);
    return NOTMUCH_STATUS_XAPIAN_EXCEPTION;
}

notmuch_status_t nm_writable(notmuch_database_t *db)
{
    if (db->mode == NOTMUCH_DATABASE_MODE_READ_ONLY) {
        nm_log(db, "Cannot write to a read-only database.\n");
        return NOTMUCH_STATUS_READ_ONLY_DATABASE;
    }
    if (!db->open || db->mdb == NULL) {
        nm_log(db, "Cannot write to a closed database.\n");
        return NOTMUCH_STATUS_CLOSED_DATABASE;
    }
    return NOTMUCH_STATUS_SUCCESS;
}

char *nm_mail_path(void *ctx, notmuch_database_t *db, const char *path)
{
    const char *root = nm_map_get(db->config, "database.mail_root");

    if (path[0] == '/' || root == NULL)
        return talloc_strdup(ctx, path);
    return talloc_asprintf(ctx, "%s/%s", root, path);
}
