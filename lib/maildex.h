/* maildex.h: the whole public API of libmaildex.
 *
 * If it does not appear in this file, it is not a published API. The library is synchronous and pure: it
 * never reads a config file, never prints, never exits. Every fallible call returns maildex_status_t and
 * hands objects out through a final `**out` parameter, set to NULL on failure; the detailed message is
 * owned by the database handle (maildex_db_errmsg). Every object hangs off the database handle, so
 * maildex_db_close() frees everything; destroy functions only free memory sooner, and accept NULL.
 */
#ifndef MAILDEX_H
#define MAILDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MAILDEX_VERSION_MAJOR 0
#define MAILDEX_VERSION_MINOR 1
#define MAILDEX_VERSION_PATCH 0

/* Every status, with the text maildex_status_to_string() returns for it. */
#define MAILDEX_STATUS_MAP(XX)                                                               \
    XX(OK, "success")                                                                        \
    XX(NO_MEMORY, "out of memory")                                                           \
    XX(INVALID_ARGUMENT, "invalid argument")                                                 \
    XX(IO_ERROR, "input/output error")                                                       \
    XX(FILE_NOT_FOUND, "no such file or directory")                                          \
    XX(FILE_NOT_EMAIL, "not an email message")                                               \
    XX(DATABASE_ERROR, "database error")                                                     \
    XX(DATABASE_BUSY, "database is locked by another writer")                                \
    XX(DATABASE_CORRUPT, "database is corrupt")                                              \
    XX(DATABASE_TOO_NEW, "database was written by a newer maildex")                          \
    XX(READ_ONLY, "database was opened read-only")                                           \
    XX(QUERY_SYNTAX, "query syntax error")                                                   \
    XX(NOT_FOUND, "not found")                                                               \
    XX(INTERRUPTED, "interrupted")

typedef enum {
#define MAILDEX__STATUS_ENUM(name, text) MAILDEX_STATUS_##name,
    MAILDEX_STATUS_MAP(MAILDEX__STATUS_ENUM)
#undef MAILDEX__STATUS_ENUM
    MAILDEX_STATUS_LAST
} maildex_status_t;

/* Returns a static, lower-case English description of status ("database is locked by another
 * writer"), or "unknown status" for a value outside the enum. */
const char *maildex_status_to_string(maildex_status_t status);

/* Returns the library version as a static string "X.Y.Z". */
const char *maildex_version(void);

/* ---- the database --------------------------------------------------------------------------------- */

typedef struct maildex_db maildex_db_t;

typedef enum {
    MAILDEX_DB_READ_ONLY = 0,  /* never writes; never blocks on a writer (WAL) */
    MAILDEX_DB_READ_WRITE = 1, /* may write; waits up to the busy timeout for another writer */
    MAILDEX_DB_CREATE = 2,     /* read-write, creating the file (mode 0600) and schema if missing */
} maildex_db_mode_t;

/* Opens the database file at db_path for the mail under mail_root (an absolute directory; file paths
 * in the database are relative to it) and brings its schema up to date.
 *
 * Returns MAILDEX_STATUS_OK and sets *out on success. Otherwise *out is NULL and, if error_message is
 * not NULL, *error_message is set to a description naming the file and the reason (free it with
 * free()):
 *   MAILDEX_STATUS_FILE_NOT_FOUND   the file does not exist and mode is not MAILDEX_DB_CREATE
 *   MAILDEX_STATUS_DATABASE_TOO_NEW the file was written by a newer maildex; it is left untouched
 *   MAILDEX_STATUS_DATABASE_BUSY    another writer held the database past the busy timeout
 *   MAILDEX_STATUS_DATABASE_ERROR   anything else SQLite reported
 * The handle is closed with maildex_db_close(). */
maildex_status_t maildex_db_open(const char *db_path, const char *mail_root, maildex_db_mode_t mode,
                                 maildex_db_t **out, char **error_message);

/* Closes the database and frees every object that hangs off it. Accepts NULL. Returns
 * MAILDEX_STATUS_OK, or MAILDEX_STATUS_DATABASE_ERROR if SQLite could not close cleanly (the handle is
 * freed either way). */
maildex_status_t maildex_db_close(maildex_db_t *db);

/* The message describing the last failure on db, owned by db; valid until the next call on db. Never
 * NULL (empty when there was no failure). */
const char *maildex_db_errmsg(maildex_db_t *db);

/* The path the database was opened at, and the mail root, owned by db. */
const char *maildex_db_path(maildex_db_t *db);
const char *maildex_db_mail_root(maildex_db_t *db);

/* Schema version of the open database (PRAGMA user_version), and the newest this library knows. */
int maildex_db_schema_version(maildex_db_t *db);
int maildex_schema_version_supported(void);

/* The database's UUID (36 characters, fixed at creation) and its revision (bumped by every write
 * transaction that changes messages or tags), as notmuch's `count --lastmod` prints them. */
maildex_status_t maildex_db_revision(maildex_db_t *db, const char **uuid, uint64_t *revision);

/* Configuration stored in the database (notmuch's `config set --database`). get sets *value to NULL
 * for an unset key; the string is owned by db and valid until the next call on db. set with a NULL
 * value removes the key. */
maildex_status_t maildex_db_config_get(maildex_db_t *db, const char *key, const char **value);
maildex_status_t maildex_db_config_set(maildex_db_t *db, const char *key, const char *value);

#ifdef __cplusplus
}
#endif
#endif
