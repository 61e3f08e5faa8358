/* SPDX-License-Identifier: GPL-3.0-or-later */
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
    MAILDEX_DB_READ_WRITE = 1, /* may write; waits for another writer (maildex_db_set_waiting) */
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
 *   MAILDEX_STATUS_DATABASE_BUSY    another writer held the database past the wait (a minute)
 *   MAILDEX_STATUS_DATABASE_CORRUPT the file is not a database, is damaged, or lost its tail (the
 *                                   message names it and says to move it aside and index again);
 *                                   any later call that reads damaged pages returns this status too
 *   MAILDEX_STATUS_DATABASE_ERROR   anything else SQLite reported (the message says what maildex
 *                                   was doing and names the file)
 * The handle is closed with maildex_db_close(). */
maildex_status_t maildex_db_open(const char *db_path, const char *mail_root, maildex_db_mode_t mode,
                                 maildex_db_t **out, char **error_message);

/* Closes the database and frees every object that hangs off it. Accepts NULL. Returns
 * MAILDEX_STATUS_OK, or MAILDEX_STATUS_DATABASE_ERROR if SQLite could not close cleanly (the handle is
 * freed either way). */
maildex_status_t maildex_db_close(maildex_db_t *db);

/* How far maildex_db_cancel stops the work on a handle. */
typedef enum {
    /* A long write (maildex_index) commits the batch in hand and returns MAILDEX_STATUS_INTERRUPTED;
     * a write waiting for another writer stops waiting and fails with MAILDEX_STATUS_INTERRUPTED.
     * Other statements run to their end. */
    MAILDEX_CANCEL_BATCH = 1,
    /* As MAILDEX_CANCEL_BATCH, and every SQLite statement running on db, and every one started
     * later, fails with MAILDEX_STATUS_INTERRUPTED within a few thousand steps (a write rolls back
     * what it had not committed; maildex_index's last batch too). */
    MAILDEX_CANCEL_ALL = 2
} maildex_cancel_t;

/* Cancels the work on db as far as how says: db's one cancellation token. The one call that may be
 * made from another thread while db is in use (a server cancelling a request, a watch stopping) and
 * from a signal handler: it is async-signal-safe (a lock-free atomic, nothing else). db must stay
 * open until it returns. The token only grows (a MAILDEX_CANCEL_BATCH after MAILDEX_CANCEL_ALL
 * changes nothing) and is never reset: close the handle. */
void maildex_db_cancel(maildex_db_t *db, maildex_cancel_t how);

/* The message describing the last failure on db, owned by db; valid until the next call on db. Never
 * NULL (empty when there was no failure). */
const char *maildex_db_errmsg(maildex_db_t *db);

/* Sets a function called when a write has to wait for another process: another indexer (`new`,
 * `reindex`) holding the indexer lock, or another writer holding SQLite's write lock for more than
 * half a second. what is a lower-case phrase naming the other writer when it is maildex ("waiting
 * for another maildex writer (pid 4242)", "... (pid 4242) to finish indexing"; "waiting for another
 * process writing to the database" otherwise), valid during the call. Called at most once per wait;
 * it must not call into db. NULL removes it. A host on a terminal prints it.
 *
 * How long writers wait: a write waits up to a minute for SQLite's write lock, an indexer up to ten
 * minutes for another indexer; then the call returns MAILDEX_STATUS_DATABASE_BUSY, naming the
 * other writer, and nothing of it was written. An indexer commits in batches and lets the writes
 * that wait go first between two of them, so a tag waits for one batch of `new`, not for the run. */
void maildex_db_set_waiting(maildex_db_t *db, void (*waiting)(void *data, const char *what),
                            void *data);

/* The path the database was opened at, and the mail root, owned by db. */
const char *maildex_db_path(maildex_db_t *db);
const char *maildex_db_mail_root(maildex_db_t *db);

/* Where maildex keeps its database for notmuch's database directory dir (notmuch's database.path as
 * notmuch resolves it), so that the command line and libnotmuch.so.5 open the same file for one
 * notmuch configuration: dir/maildex.db where notmuch keeps dir/xapian (split true: the mail lives
 * elsewhere, in database.mail_root or notmuch's XDG place), else dir/.maildex/maildex.db where
 * notmuch keeps dir/.notmuch/xapian -- unless that file does not exist and dir/maildex.db does (a
 * database made before .maildex/ was maildex's place), which is then the one. Does not create
 * anything. Returns the path, malloc'd (free it with free()), or NULL when out of memory. */
char *maildex_database_file(const char *dir, bool split);

/* Schema version of the open database (PRAGMA user_version), and the newest this library knows. */
int maildex_db_schema_version(maildex_db_t *db);
int maildex_schema_version_supported(void);

/* The database's UUID (36 characters, fixed at creation) and its revision (bumped by every write
 * transaction that changes messages or tags), as notmuch's `count --lastmod` prints them. */
maildex_status_t maildex_db_revision(maildex_db_t *db, const char **uuid, uint64_t *revision);

/* A key and its value: a message property, or a config key stored in the database. */
typedef struct {
    const char *key;
    const char *value;
} maildex_pair_t;

/* Configuration stored in the database (notmuch's `config set --database`). get sets *value to NULL
 * for an unset key; the string is owned by db and valid until the next call on db. set with a NULL
 * value removes the key. list sets *out to every stored key starting with prefix ("" for all) and
 * its value, sorted bytewise by key, ended by a pair of NULLs; owned by db and valid until the next
 * call on db. */
maildex_status_t maildex_db_config_get(maildex_db_t *db, const char *key, const char **value);
maildex_status_t maildex_db_config_set(maildex_db_t *db, const char *key, const char *value);
maildex_status_t maildex_db_config_list(maildex_db_t *db, const char *prefix,
                                        const maildex_pair_t **out);

/* Whether notmuch's tags were carried over into this store: a word the host writes and reads back
 * (maildex's `new` writes "done" in the transaction that imports them, or says why there was nothing
 * to import). The library writes only the first word: "pending" for a store made empty, "before" for
 * one that held mail when the record was added to the schema. get sets *state to the word (never
 * NULL), owned by db and valid until the next call on db; set is one transaction, or part of the
 * caller's atomic section. Return MAILDEX_STATUS_OK, INVALID_ARGUMENT (a NULL state), READ_ONLY
 * (set), DATABASE_BUSY or a database status. */
maildex_status_t maildex_db_notmuch_import_get(maildex_db_t *db, const char **state);
maildex_status_t maildex_db_notmuch_import_set(maildex_db_t *db, const char *state);

/* User-defined fields (notmuch's index.header.PREFIX=Header): each pair's key is a PREFIX (a query
 * prefix such as "List"), its value the name of the header it indexes ("List-Id"); the array ends with
 * a pair of NULLs, or fields is NULL for none. Copied. Indexing (maildex_index, maildex_insert,
 * maildex_reindex) stores each header's decoded value as words searchable as PREFIX:word only, and
 * queries made afterwards know the prefixes; messages indexed before a field was set have no value for
 * it until they are re-indexed (as with notmuch). Returns MAILDEX_STATUS_OK, or
 * MAILDEX_STATUS_NO_MEMORY. */
maildex_status_t maildex_db_set_user_fields(maildex_db_t *db, const maildex_pair_t *fields);

/* A read transaction: from maildex_db_begin_read until maildex_db_end_read every read on db sees the
 * database as it was at the begin (a snapshot), whatever other processes commit meanwhile, and
 * nobody waits for it (WAL). How `dump` stays consistent while `new` writes. Not for a handle in a
 * write (MAILDEX_STATUS_INVALID_ARGUMENT); calls do not nest. Both return MAILDEX_STATUS_OK or a
 * database status. */
maildex_status_t maildex_db_begin_read(maildex_db_t *db);
maildex_status_t maildex_db_end_read(maildex_db_t *db);

/* An atomic section (notmuch_database_begin_atomic): the writes between begin and end are one
 * transaction, committed at the outermost end; sections nest. A call that fails inside rolls the
 * whole section back, and end then only closes it: stop at the first failure. Other writers wait
 * for the section (up to their busy timeout), so keep sections to bounded batches. Return
 * MAILDEX_STATUS_OK, READ_ONLY, DATABASE_BUSY or a database status. */
maildex_status_t maildex_db_begin_atomic(maildex_db_t *db);
maildex_status_t maildex_db_end_atomic(maildex_db_t *db);

/* Which encrypted parts are decrypted, when showing (show --decrypt) and when indexing
 * (index.decrypt, new/insert/reindex --decrypt): none; only those a session key stored with the
 * message opens (its "session-key" properties); every one the user's gpg-agent can decrypt; or those,
 * keeping the session key of each as a "session-key" property (show's --decrypt=stash, and index's
 * true: notmuch's names differ between the two, index's nostash is TRUE here). */
typedef enum {
    MAILDEX_DECRYPT_FALSE = 0,
    MAILDEX_DECRYPT_AUTO,
    MAILDEX_DECRYPT_TRUE,
    MAILDEX_DECRYPT_STASH,
} maildex_decrypt_t;

/* ---- indexing ---------------------------------------------------------------------------------- */

/* What one maildex_index() run did. */
typedef struct {
    uint64_t files_found;      /* files to look at: new ones in changed directories (all, first time) */
    uint64_t files_processed;  /* new names in changed directories: files read and parsed, and
                                  known files found renamed (notmuch's "Processed") */
    uint64_t messages_added;   /* new Message-IDs */
    uint64_t messages_removed; /* messages whose last file disappeared */
    uint64_t renames;          /* files that moved, or were added to or removed from a message that
                                  kept another file (notmuch's "file renames") */
    uint64_t files_vanished;   /* listed, then gone before they could be read */
    uint64_t files_unreadable; /* files that exist but could not be read (or stat'ed): warned
                                  about, retried next run */
    uint64_t directories_unreadable; /* directories that exist but could not be read: warned
                                  about; what the index knows of them is kept as it is */
    uint64_t dangling_symlinks; /* symbolic links whose target does not exist (MAILDEX_INDEX_DANGLING):
                                  what the database knows by their names is kept */
    uint64_t removals_held;    /* messages whose last file is gone, kept because some mail could
                                  not be read this run (it may be where they moved); removed by
                                  the first run that reads everything */
    uint64_t warnings;         /* entries skipped with a warning (see warning below) */
    uint64_t directories;      /* directories walked */
    uint64_t directories_listed; /* ... of which listed because they changed */
    bool first_run;            /* the database had never indexed the mail root before */
} maildex_index_stats_t;

/* What a maildex_index() run decided about one entry of the mail root: the decisions notmuch's
 * `new --debug` prints, and the entries notmuch reports by name. */
typedef enum {
    /* An entry of a listed directory matched new.ignore: not walked, not indexed, not counted, not
     * even stat'ed (so an ignored dangling symlink is no DANGLING). A file or directory the database
     * knew by that name is gone from it (FILE_GONE, DIR_GONE). */
    MAILDEX_INDEX_IGNORED,
    /* A file the database knows is missing from its listed directory: its file is removed after the
     * new files are added, so a message that was renamed or moved keeps its tags. */
    MAILDEX_INDEX_FILE_GONE,
    /* A directory the database knows is gone, with files under it: every file and directory under
     * it is removed, as for FILE_GONE (one event for the directory, none for what was under it). */
    MAILDEX_INDEX_DIR_GONE,
    /* A symbolic link whose target does not exist. What the database knows by its name is kept, and
     * no message loses its last file in this run (the target may be mail on a disk not mounted);
     * counted in dangling_symlinks. */
    MAILDEX_INDEX_DANGLING,
    /* A file the walk listed was gone when its turn to be read came (a mail program moved it):
     * counted in files_vanished; its directory is listed again next run. */
    MAILDEX_INDEX_VANISHED,
} maildex_index_event_kind_t;

typedef struct {
    maildex_index_event_kind_t kind;
    const char *path; /* absolute; valid during the call */
    /* FILE_GONE, DIR_GONE: its name sorts (bytewise) after every name still in its directory, or
     * that directory was not listed (notmuch's "leftover" rather than "passed" entries). */
    bool sorts_last;
    /* IGNORED: its directory was listed and diffed (changed, new to the database, or a full scan).
     * false: the directory did not change and was only looked into because it has subdirectories,
     * as notmuch looks into every such directory (its first pass, not its second). */
    bool listed;
} maildex_index_event_t;

typedef struct {
    const char *const *new_tags;    /* NULL-terminated: tags of new messages (notmuch's new.tags) */
    const char *const *ignore;      /* NULL-terminated new.ignore entries: names, or "/regex/" matched
                                       against the path relative to the mail root */
    bool synchronize_flags;         /* Maildir flags <-> tags (maildir.synchronize_flags) */
    bool full_scan;                 /* list every directory, even unchanged ones */
    /* Called for each entry skipped (a symlink loop, a FIFO, an unreadable file ...), once per run:
     * reason is a lower-case phrase. Dangling symlinks and vanished files come here too when event
     * is NULL. */
    void (*warning)(void *data, const char *path, const char *reason);
    /* Called for each decision of maildex_index_event_kind_t, in the order the run makes them; it
     * must not call into the database. NULL for none. */
    void (*event)(void *data, const maildex_index_event_t *event);
    /* Called for each file that is not mail (notmuch's "Ignoring non-mail file" note). */
    void (*not_mail)(void *data, const char *path);
    /* Called after each file is done (verbose output, progress): done of total so far. */
    void (*progress)(void *data, const maildex_index_stats_t *stats, uint64_t done, uint64_t total,
                     const char *path);
    void *data;
    /* Encrypted parts of new messages (index.decrypt; maildex_decrypt_t): decrypted ones have their
     * cleartext indexed and get the property index.decryption=success (failure when decryption was
     * tried and failed); with STASH their session keys are kept as "session-key" properties. FALSE
     * (zero) decrypts nothing. */
    maildex_decrypt_t decrypt;
    /* NULL-terminated paths relative to the mail root ("" is the root itself) of the only subtrees
     * to walk: each is walked as the whole mail root is (a directory listed when its mtime changed,
     * new subdirectories found, gone ones removed), the rest of the mail root is not looked at. A
     * path inside another one listed is walked once. NULL walks the whole mail root. How `watch`
     * indexes only the directories inotify named; a file moved between two folders is recognised as
     * a rename only when both are walked in the same run. */
    const char *const *directories;
    /* Called after the run's last commit, once for each thread whose messages changed: a message
     * added or removed, a file added to, moved within or taken from a message, and both threads of
     * a merge (the one merged away no longer exists). thread is maildex_thread_id()'s value. Not
     * called for a run that failed (an interrupted run tells what it committed). NULL for none. */
    void (*thread_changed)(void *data, uint64_t thread);
    /* The directory the mail root must be (its st_dev and st_ino, as `watch` noted them when it
     * started), or both 0 for whatever directory is at its path. A run that finds none there, or
     * another one (the mail root moved away and something made in its place, a disk not mounted),
     * changes nothing and returns MAILDEX_STATUS_FILE_NOT_FOUND. */
    uint64_t mail_root_device, mail_root_inode;
    /* The wall-clock time (ns since the epoch) since which changes outside `directories` may not
     * have been reported to the caller: a directory outside the walk that changed since then may
     * be where a removed message went, so a message's last file is not removed. `watch` passes the
     * moment it took a round's directories (it may then wait for another writer); 0 is the run's
     * start, right for a run that walks everything. */
    uint64_t changes_since;
    /* Called as the run ends for each directory the run must list again (a removal
     * held, a file that vanished or could not be read): its mtime was not recorded, so `new` lists
     * it next time; `watch`, which walks only directories its events name, adds it to its next
     * round. NULL for none. */
    void (*relist)(void *data, const char *path);
} maildex_index_options_t;

/* Brings the database up to date with the mail under the mail root: new files are parsed (on a
 * thread pool) and indexed, renamed and moved files are recognised without reading them again where
 * their unique name and size match, removed files leave the index, and directories whose mtime did
 * not change are not listed. Writes in batched transactions; a crash at any point leaves a
 * consistent database and the next run finishes the job.
 *
 * maildex_db_cancel(db, MAILDEX_CANCEL_BATCH) from another thread or a signal handler ends the run
 * after the batch in hand is committed.
 *
 * What the walk found gone is checked again just before it is removed (doc/reliability.md): a file
 * is removed only when its row still has the name the walk read, no tag change owes it a rename and
 * nothing is at that name now; a message keeps its last file while a new name of the same Maildir
 * unique name vanished before it could be read (a file renamed again, by `tag` or a sync tool: not
 * counted in files_vanished, nor is new mail renamed from new/ to cur/ before it was read), and
 * while a directory changed after the walk looked at it (the message may have moved there under
 * another name); and nothing is removed when the mail root was moved away or replaced during the
 * run.
 *
 * Returns MAILDEX_STATUS_OK (stats filled in; warnings do not make the run fail),
 * MAILDEX_STATUS_INTERRUPTED (db was cancelled: what was done is committed),
 * MAILDEX_STATUS_FILE_NOT_FOUND (the mail root is missing, is not the directory mail_root_device
 * and mail_root_inode name, or was moved away during the run: nothing was removed, what earlier
 * batches added is kept), MAILDEX_STATUS_READ_ONLY, or a database error. stats may be NULL. */
maildex_status_t maildex_index(maildex_db_t *db, const maildex_index_options_t *opts,
                               maildex_index_stats_t *stats);

/* Sets *out to the directories of the mail root the index knows, as paths relative to it ("" is
 * the mail root itself), sorted bytewise, NULL-terminated, allocated as a child of db (free with
 * maildex_strings_free): the directories maildex_index walks, so none that new.ignore names, no
 * Maildir's tmp/ and not the database's own. `watch` watches these. Returns MAILDEX_STATUS_OK, or a
 * database status with *out NULL. */
maildex_status_t maildex_db_directories(maildex_db_t *db, char ***out);

/* notmuch's notmuch_database_index_file: indexes the one file at path (absolute and under the mail
 * root, or relative to it) through the calls `new` makes for a file it finds, in one write
 * transaction (or as part of the caller's atomic section), with encrypted parts decrypted as decrypt
 * says (maildex_index_options_t). A new Message-ID becomes a message, tagged only with what indexing
 * finds (attachment, signed, encrypted): unlike `new` no new.tags are added, and Maildir flags and
 * tags are left alone (maildex_db_message_flags_to_tags does that). A Message-ID the store has
 * already only gains the file; a file the store has already changes nothing. The file's directory
 * (and its parents) become known directories with no mtime, so the next `new` lists them. *added (may
 * be NULL) tells whether a message was added; *out (may be NULL) is set to the message, as
 * maildex_db_find_message finds it (free it with maildex_message_destroy). Returns
 * MAILDEX_STATUS_OK; INVALID_ARGUMENT (path is not under the mail root); FILE_NOT_FOUND (no such
 * file); IO_ERROR (it cannot be read, or the parser module cannot be loaded); FILE_NOT_EMAIL (none of
 * From, Subject, To, or not one message); READ_ONLY, DATABASE_BUSY or a database status. The message
 * on db names the file and the reason. */
typedef struct maildex_message maildex_message_t; /* see "queries" below */
maildex_status_t maildex_db_index_file(maildex_db_t *db, const char *path, maildex_decrypt_t decrypt,
                                       bool *added, maildex_message_t **out);

/* notmuch's notmuch_database_remove_message: forgets the file at path (as maildex_db_index_file names
 * it) as `new` forgets a file that is gone, whether or not it still exists: with its message's last
 * file the message leaves the store, tags and all (*message_removed, which may be NULL, is then true).
 * One write transaction, or part of the caller's atomic section. Returns MAILDEX_STATUS_OK, NOT_FOUND
 * (the store has no such file: nothing changed), READ_ONLY, DATABASE_BUSY or a database status. */
maildex_status_t maildex_db_remove_file(maildex_db_t *db, const char *path, bool *message_removed);

/* ---- directories ---------------------------------------------------------------------------------- */

/* A directory of the mail root as the store knows it (notmuch's directory objects): `new` lists a
 * directory only when its mtime differs from the stored one.
 *
 * Usage (the subdirectories the store knows in the mail root; make check compiles and runs it):
 *     maildex_directory_t *d;
 *     char **names;
 *     if (maildex_db_directory(db, "", &d) != MAILDEX_STATUS_OK || d == NULL)
 *         return 1;
 *     if (maildex_directory_children(d, true, &names) == MAILDEX_STATUS_OK) {
 *         for (char **name = names; *name; name++)
 *             puts(*name);
 *         maildex_strings_free(names);
 *     }
 *     maildex_directory_free(d); */
typedef struct maildex_directory maildex_directory_t;

/* Sets *out to the directory at path (relative to the mail root, "" for the root, or absolute under
 * it), a child of db (free it with maildex_directory_free, or it goes with db), or to NULL when the
 * store knows no such directory. Returns MAILDEX_STATUS_OK, or a database status with *out NULL. */
maildex_status_t maildex_db_directory(maildex_db_t *db, const char *path, maildex_directory_t **out);

/* The directory's stored mtime, in seconds since the epoch (0: list it next time), as it was when d
 * was found or last set. */
int64_t maildex_directory_mtime(const maildex_directory_t *d);

/* Stores mtime (seconds) as the directory's. The store keeps nanoseconds, and `new` lists a directory
 * whose mtime differs from the stored one: a directory set to its mtime in whole seconds is listed
 * once more. Returns MAILDEX_STATUS_OK, READ_ONLY, DATABASE_BUSY or a database status. */
maildex_status_t maildex_directory_set_mtime(maildex_directory_t *d, int64_t mtime);

/* Sets *out to the names (last components, sorted bytewise, NULL-terminated) of the directory's
 * subdirectories (directories true) or of its files the store knows, allocated as a child of db (free
 * with maildex_strings_free). Returns MAILDEX_STATUS_OK, or a database status with *out NULL. */
maildex_status_t maildex_directory_children(maildex_directory_t *d, bool directories, char ***out);

/* Removes the directory's row, when the store knows no file in it and no subdirectory (they are
 * removed first, as `new` removes them); otherwise nothing changes. d stays valid. Returns
 * MAILDEX_STATUS_OK, READ_ONLY, DATABASE_BUSY or a database status. */
maildex_status_t maildex_directory_delete(maildex_directory_t *d);

/* Frees d. Accepts NULL. */
void maildex_directory_free(maildex_directory_t *d);

/* ---- queries ---------------------------------------------------------------------------------------- */

/* A parsed and planned notmuch query (doc/query-syntax.md). Results stream from the indexes in date
 * order and stop where the caller stops: asking for 50 results reads about 50 index entries.
 *
 * Usage (print the Message-IDs of the newest 50 unread messages; make check compiles and runs it):
 *     maildex_query_options_t opts = MAILDEX_QUERY_OPTIONS_INIT;
 *     maildex_query_t *q;
 *     maildex_messages_t *it;
 *     maildex_message_t *m;
 *     opts.limit = 50;
 *     if (maildex_query_create(db, "tag:unread", &opts, &q) != MAILDEX_STATUS_OK) {
 *         fprintf(stderr, "%s\n", maildex_db_errmsg(db));
 *         return 1;
 *     }
 *     if (maildex_query_search_messages(q, &it) == MAILDEX_STATUS_OK)
 *         while (maildex_messages_next(it, &m) == MAILDEX_STATUS_OK && m)
 *             puts(maildex_message_id(m));
 *     maildex_query_destroy(q);
 * Every object below is a talloc child of its query; maildex_query_destroy frees them all. */
typedef struct maildex_query maildex_query_t;
typedef struct maildex_messages maildex_messages_t;
typedef struct maildex_message maildex_message_t;
typedef struct maildex_threads maildex_threads_t;
typedef struct maildex_thread maildex_thread_t;

/* The order of a query's results: by date, and messages of the same date in the order they were
 * indexed in both directions, as notmuch lists them; offset and limit cut that list. */
typedef enum {
    MAILDEX_SORT_NEWEST_FIRST = 0,
    MAILDEX_SORT_OLDEST_FIRST = 1,
} maildex_sort_t;

/* What happens to messages carrying one of exclude_tags (notmuch's search.exclude_tags), unless the
 * query names the tag itself. */
typedef enum {
    MAILDEX_EXCLUDE_TRUE = 0, /* they are not results, and not "matched" in thread summaries */
    MAILDEX_EXCLUDE_FALSE,    /* exclude_tags are ignored */
    MAILDEX_EXCLUDE_FLAG,     /* they are results, flagged (maildex_message_excluded) */
    MAILDEX_EXCLUDE_ALL,      /* as TRUE, and they vanish from threads (total, authors, tags) too */
} maildex_exclude_t;

/* The language of a query's text. */
typedef enum {
    MAILDEX_QUERY_INFIX = 0, /* notmuch-search-terms(7): `tag:inbox and from:bob` */
    MAILDEX_QUERY_SEXP = 1,  /* notmuch-sexp-queries(7): `(and (tag inbox) (from bob))` */
} maildex_query_syntax_t;

typedef struct {
    maildex_sort_t sort;
    maildex_exclude_t exclude;
    const char *const *exclude_tags; /* NULL-terminated; NULL for none. Copied. */
    uint64_t offset;                 /* results (messages, or threads) to skip */
    int64_t limit;                   /* most results to return; negative for all */
    /* Returns the text of the named query NAME (config key query.NAME) for query:NAME, or NULL when
     * there is none. The library never reads config. May be NULL. */
    const char *(*lookup)(void *data, const char *name);
    void *lookup_data;
    int64_t now; /* "now" for relative dates (seconds since the epoch); 0 for the current time */
    maildex_query_syntax_t syntax;
    /* MAILDEX_QUERY_SEXP: returns the text of the saved query NAME (config key squery.NAME), which a
     * query uses as `(NAME args...)`, or NULL when there is none; called with lookup_data. May be NULL. */
    const char *(*squery)(void *data, const char *name);
} maildex_query_options_t;

/* The defaults: infix syntax, newest first, exclusions on (but no exclude tags), no offset, no
 * limit. */
#define MAILDEX_QUERY_OPTIONS_INIT                                                                \
    {                                                                                             \
        .sort = MAILDEX_SORT_NEWEST_FIRST, .exclude = MAILDEX_EXCLUDE_TRUE, .exclude_tags = NULL, \
        .offset = 0, .limit = -1, .lookup = NULL, .lookup_data = NULL, .now = 0,                 \
        .syntax = MAILDEX_QUERY_INFIX, .squery = NULL                                            \
    }

/* Parses text in opts->syntax and plans it. opts may be NULL (the defaults above). Returns
 * MAILDEX_STATUS_OK and sets *out, or sets *out to NULL and returns MAILDEX_STATUS_QUERY_SYNTAX
 * (maildex_db_errmsg(db) says what: for infix also where, e.g. "syntax error at position 14:
 * expected a term after 'and'"; for sexp notmuch's message, e.g. "unknown prefix 'foo'"), or
 * MAILDEX_STATUS_NO_MEMORY or a database status. The query is a child of db. */
maildex_status_t maildex_query_create(maildex_db_t *db, const char *text,
                                      const maildex_query_options_t *opts, maildex_query_t **out);

/* Frees q and everything obtained from it. Accepts NULL. */
void maildex_query_destroy(maildex_query_t *q);

/* Starts a message iteration in the query's sort order, honouring offset and limit. Several
 * iterations of one query may be open at once. Returns MAILDEX_STATUS_OK and sets *out, or a status
 * (message on the db). */
maildex_status_t maildex_query_search_messages(maildex_query_t *q, maildex_messages_t **out);

/* Sets *out to the next message, or to NULL at the end. The message is owned by the iterator and
 * valid until the next call. Returns MAILDEX_STATUS_OK, or a database status with *out NULL. */
maildex_status_t maildex_messages_next(maildex_messages_t *it, maildex_message_t **out);

/* Frees the iterator early. Accepts NULL. */
void maildex_messages_destroy(maildex_messages_t *it);

/* The message's Message-ID (no angle brackets), thread id, Date header (seconds; 0 when it could not
 * be parsed), whether it matched the query (false only for thread members that did not) and whether
 * it carries an excluded tag (with MAILDEX_EXCLUDE_FLAG; for a thread's members also with
 * MAILDEX_EXCLUDE_TRUE and ALL, see maildex_thread_toplevel_messages). Strings are owned by the
 * message. */
const char *maildex_message_id(const maildex_message_t *m);
uint64_t maildex_message_thread(const maildex_message_t *m);
int64_t maildex_message_date(const maildex_message_t *m);
bool maildex_message_matched(const maildex_message_t *m);
bool maildex_message_excluded(const maildex_message_t *m);

/* The message's files as absolute paths in notmuch's order (by directory, in the order the index first
 * had a file in it, then by name: the first is the one show reads), and its tags sorted bytewise; each a
 * NULL-terminated array owned by the message (loaded on first call). Return MAILDEX_STATUS_OK or a
 * database status with *out NULL. */
maildex_status_t maildex_message_files(maildex_message_t *m, const char *const **out);
maildex_status_t maildex_message_tags(maildex_message_t *m, const char *const **out);

/* The message's properties, sorted by key and then value (bytewise), ended by a pair of NULLs; owned
 * by the message (loaded on first call). Returns MAILDEX_STATUS_OK or a database status with *out
 * NULL. */
maildex_status_t maildex_message_properties(maildex_message_t *m, const maildex_pair_t **out);

/* ---- one message, without a query ---- */

/* Finds the message whose Message-ID is message_id (no angle brackets), or the message one of whose
 * files is path (absolute under the mail root, or relative to it), without parsing or planning a
 * query. *out is a message object as a query hands them out (matched, not excluded; its files, tags
 * and properties are read on first call), a child of db: free it with maildex_message_destroy, or it
 * goes with db. A Message-ID that only other messages' References and In-Reply-To name (notmuch's
 * ghost message) is found by maildex_db_find_message too: it has its thread and nothing else (no
 * date, file, tag or property; maildex_message_ghost is true). Returns MAILDEX_STATUS_OK and sets
 * *out, MAILDEX_STATUS_OK with *out NULL when there is no such message (or path is not under the
 * mail root), or a database status with *out NULL.
 *
 * Usage (the tags and Subject of one message; make check compiles and runs it):
 *     maildex_message_t *m;
 *     const char *const *tags;
 *     const char *subject;
 *     if (maildex_db_find_message(db, "m7@example.org", &m) != MAILDEX_STATUS_OK || m == NULL)
 *         return 1;
 *     if (maildex_message_tags(m, &tags) == MAILDEX_STATUS_OK)
 *         for (; *tags; tags++)
 *             puts(*tags);
 *     if (maildex_message_header(m, "Subject", &subject) == MAILDEX_STATUS_OK)
 *         puts(subject);
 *     maildex_message_destroy(m); */
maildex_status_t maildex_db_find_message(maildex_db_t *db, const char *message_id, maildex_message_t **out);
maildex_status_t maildex_db_find_message_by_file(maildex_db_t *db, const char *path, maildex_message_t **out);

/* Whether m is a ghost (see maildex_db_find_message); false for every message a query hands out. */
bool maildex_message_ghost(const maildex_message_t *m);

/* Frees a message found by maildex_db_find_message*, maildex_db_index_file, and all that was read of
 * it. Accepts NULL. Does nothing to a query's messages, which their iterator or thread owns. */
void maildex_message_destroy(maildex_message_t *m);

/* The header name (any case) of m as notmuch_message_get_header answers: Message-ID, and the Subject
 * and From the message was indexed with (its first file indexed, or the file reindex read), from the
 * store; every other header from the first of its files that can be read, decoded (RFC 2047) by the
 * parser module, every Received or Delivered-To joined by spaces; "" when the file has no such header.
 * That file is parsed once, on the first such call: every header of it stays with m for the next.
 * Sets *value (owned by m, valid until m goes) and returns MAILDEX_STATUS_OK; FILE_NOT_FOUND (none of
 * its files can be opened), FILE_NOT_EMAIL, IO_ERROR (the parser module cannot be loaded) or a
 * database status with *value NULL. */
maildex_status_t maildex_message_header(maildex_message_t *m, const char *name, const char **value);

/* The Maildir flags of m's files as notmuch reads them (notmuch_message_has_maildir_flag): the flags
 * after ":2," of each file in a Maildir's cur/ or new/, one after the other; "" when the only such
 * files are in new/ without flags; NULL (no file in a Maildir) when no file counts. Sets *flags (owned
 * by m) and returns MAILDEX_STATUS_OK, or a database status. */
maildex_status_t maildex_message_maildir_flags(maildex_message_t *m, const char **flags);

/* Starts a thread iteration: the threads of the matching messages, in the order of each thread's
 * first message in the query's sort order, each once; offset and limit count threads. Reading stops
 * as soon as `limit` threads were found. */
maildex_status_t maildex_query_search_threads(maildex_query_t *q, maildex_threads_t **out);

/* Sets *out to the next thread, or to NULL at the end; owned by the iterator, valid until the next
 * call. Returns MAILDEX_STATUS_OK or a database status with *out NULL. */
maildex_status_t maildex_threads_next(maildex_threads_t *it, maildex_thread_t **out);

/* Frees the iterator early. Accepts NULL. */
void maildex_threads_destroy(maildex_threads_t *it);

/* notmuch's thread summary (notmuch-compat.md 2.3):
 *   id          the thread id (printed as 16 hex digits)
 *   timestamp   the date of the newest matched message (the oldest for MAILDEX_SORT_OLDEST_FIRST)
 *   matched     matched messages that are not excluded; total: the thread's messages (minus the
 *               excluded ones with MAILDEX_EXCLUDE_ALL); files: their files
 *   authors     matched authors in date order, ", "-joined, then "| " and the others
 *   subject     the newest (oldest) matched message's, minus one leading "Re: ", "Aw: ", "Vs: ", "Sv: "
 *   tags        the union over the thread's messages, sorted bytewise, NULL-terminated
 *   matched_query / unmatched_query   "id:a id:b" terms (quoted as notmuch quotes them) of the matched
 *               and the other messages, oldest first; NULL when there are none
 * Strings and arrays are owned by the thread. */
uint64_t maildex_thread_id(const maildex_thread_t *t);
int64_t maildex_thread_timestamp(const maildex_thread_t *t);
int maildex_thread_matched(const maildex_thread_t *t);
int maildex_thread_total(const maildex_thread_t *t);
int maildex_thread_files(const maildex_thread_t *t);
const char *maildex_thread_authors(const maildex_thread_t *t);
const char *maildex_thread_subject(const maildex_thread_t *t);
const char *const *maildex_thread_tags(const maildex_thread_t *t);
const char *maildex_thread_matched_query(const maildex_thread_t *t);
const char *maildex_thread_unmatched_query(const maildex_thread_t *t);

/* The thread's messages arranged as notmuch 0.37 arranges them for `show` (lib/thread.cc): each message
 * is a reply of the message its In-Reply-To (the parent chosen when it was indexed) names when that one
 * is in the thread; a message without such a parent hangs under the deepest thread member its
 * References name (their ids read from its file), or is a top-level message; replies and top-level
 * messages are in date order. Every message of the thread is there, matched or not
 * (maildex_message_matched), but for a query created with MAILDEX_EXCLUDE_ALL the members that carry
 * an excluded tag, which notmuch leaves out of its threads; maildex_message_excluded is set for the
 * members that carry an excluded tag unless the query was created with MAILDEX_EXCLUDE_FALSE. The
 * arrangement is of the members there. Sets *out to the top-level messages,
 * NULL-terminated, owned by the thread (valid until the next maildex_threads_next). Reads the thread's
 * messages through the thread index, and the files of only the messages whose In-Reply-To is not in
 * the thread. Returns MAILDEX_STATUS_OK, or a database status (or MAILDEX_STATUS_IO_ERROR when the
 * parser module cannot be loaded) with *out NULL. */
maildex_status_t maildex_thread_toplevel_messages(maildex_thread_t *t, maildex_message_t *const **out);

/* The replies of a message of maildex_thread_toplevel_messages (date order), NULL-terminated; never
 * NULL (empty for a message from maildex_messages_next). Owned by the thread. */
maildex_message_t *const *maildex_message_replies(const maildex_message_t *m);

/* Every message of the thread, oldest first (ties in the order they were indexed), NULL-terminated:
 * the message objects of maildex_thread_toplevel_messages (which arranges them first) and their
 * replies, as notmuch_thread_get_messages lists them. Owned by the thread. Returns the statuses of
 * maildex_thread_toplevel_messages. */
maildex_status_t maildex_thread_messages(maildex_thread_t *t, maildex_message_t *const **out);

/* Counts the matching messages, their threads, or their files (offset and limit do not apply).
 * Returns MAILDEX_STATUS_OK and sets *count, or a database status. */
maildex_status_t maildex_query_count_messages(maildex_query_t *q, uint64_t *count);
maildex_status_t maildex_query_count_threads(maildex_query_t *q, uint64_t *count);
maildex_status_t maildex_query_count_files(maildex_query_t *q, uint64_t *count);

/* Sets *out to the tags of the matching messages, sorted bytewise, unique, NULL-terminated, owned by
 * q (valid until maildex_query_destroy). For the query text "*" exactly, as in notmuch, every tag in
 * use, excluded messages' included. Returns MAILDEX_STATUS_OK or a database status. */
maildex_status_t maildex_query_tags(maildex_query_t *q, const char *const **out);

/* ---- addresses -------------------------------------------------------------------------------------- */

/* notmuch's `address`: the mailboxes (display name and address) of the From header, or of the To, Cc
 * and Bcc headers, of a query's matches, read as notmuch 0.37 reads them: each header RFC 2047
 * decoded, then parsed as an address list, the members of a group in its place. They come from the
 * index, not from the mail files.
 *
 * Usage (each correspondent once, as notmuch.el's completion asks; make check compiles and runs it):
 *     maildex_address_options_t opts = MAILDEX_ADDRESS_OPTIONS_INIT;
 *     maildex_query_t *q;
 *     maildex_addresses_t *it;
 *     const maildex_mailbox_t *mb;
 *     opts.headers = MAILDEX_ADDRESS_SENDER | MAILDEX_ADDRESS_RECIPIENTS;
 *     opts.dedup = MAILDEX_DEDUP_ADDRESS;
 *     if (maildex_query_create(db, "*", NULL, &q) != MAILDEX_STATUS_OK)
 *         return 1;
 *     if (maildex_query_addresses(q, &opts, &it) == MAILDEX_STATUS_OK)
 *         while (maildex_addresses_next(it, &mb) == MAILDEX_STATUS_OK && mb)
 *             puts(maildex_mailbox_name_addr(mb));
 *     maildex_query_destroy(q);
 * The iterator and its mailboxes are talloc children of the query. */
typedef struct maildex_addresses maildex_addresses_t;
typedef struct maildex_mailbox maildex_mailbox_t;

enum {
    MAILDEX_ADDRESS_SENDER = 1 << 0,     /* the From header */
    MAILDEX_ADDRESS_RECIPIENTS = 1 << 1, /* the To, Cc and Bcc headers, in that order */
};

typedef enum {
    MAILDEX_DEDUP_NONE = 0, /* every mailbox as often as it occurs */
    MAILDEX_DEDUP_MAILBOX,  /* each (name, address) pair once, both compared bytewise */
    MAILDEX_DEDUP_ADDRESS,  /* each address once, compared ASCII case-insensitively, with the name
                               and spelling of its most frequent pair (the first seen of equals) */
} maildex_dedup_t;

typedef struct {
    unsigned headers;      /* MAILDEX_ADDRESS_SENDER and/or MAILDEX_ADDRESS_RECIPIENTS; 0: SENDER */
    maildex_dedup_t dedup;
    bool count;            /* count the occurrences of each mailbox (needs dedup) */
} maildex_address_options_t;

/* The defaults, notmuch's: senders, each (name, address) pair once, no counts. */
#define MAILDEX_ADDRESS_OPTIONS_INIT \
    { .headers = MAILDEX_ADDRESS_SENDER, .dedup = MAILDEX_DEDUP_MAILBOX, .count = false }

/* Starts an iteration over the mailboxes of q's matches, read in the query's sort order (offset and
 * limit count messages). Without count and with MAILDEX_DEDUP_NONE or MAILDEX_DEDUP_MAILBOX, each
 * mailbox comes as its message is read. With count or MAILDEX_DEDUP_ADDRESS every match is read at
 * the first call, in the order the messages' first files were indexed whatever the sort (nearly
 * notmuch's document order), and the mailboxes come in the order of notmuch's hash table of
 * addresses, which is no sort order (the same as notmuch's for the same reading order); with count
 * and MAILDEX_DEDUP_MAILBOX the pairs of one address follow each other, first seen first. opts may be
 * NULL (the defaults). Returns MAILDEX_STATUS_OK and sets *out; MAILDEX_STATUS_INVALID_ARGUMENT for
 * count with MAILDEX_DEDUP_NONE; or a database status (message on the db). */
maildex_status_t maildex_query_addresses(maildex_query_t *q, const maildex_address_options_t *opts,
                                         maildex_addresses_t **out);

/* Sets *out to the next mailbox, or to NULL at the end. With MAILDEX_DEDUP_NONE the mailbox is valid
 * until the next call; otherwise until the iterator goes. A message indexed by a maildex older than
 * the stored addresses has its first file parsed instead (MAILDEX_STATUS_IO_ERROR if the parser
 * cannot be loaded). Returns MAILDEX_STATUS_OK, or a status with *out NULL. */
maildex_status_t maildex_addresses_next(maildex_addresses_t *it, const maildex_mailbox_t **out);

/* Frees the iterator early. Accepts NULL. */
void maildex_addresses_destroy(maildex_addresses_t *it);

/* A mailbox: the display name ("" when there is none), the address, and notmuch's name-addr: the
 * two as an RFC 5322 mailbox with the name quoted when it needs to be ("Doe, John" <j@d>), or the
 * address alone for an empty name. count: its occurrences in the matches (with
 * MAILDEX_DEDUP_ADDRESS, those of every name and spelling of the address) when the options asked
 * for count or MAILDEX_DEDUP_ADDRESS; otherwise 1. Strings are owned by the mailbox. */
const char *maildex_mailbox_name(const maildex_mailbox_t *mb);
const char *maildex_mailbox_address(const maildex_mailbox_t *mb);
const char *maildex_mailbox_name_addr(const maildex_mailbox_t *mb);
int64_t maildex_mailbox_count(const maildex_mailbox_t *mb);

/* ---- tagging ---------------------------------------------------------------------------------------- */

/* One tag change: add tag (add true) or remove it. */
typedef struct {
    const char *tag;
    bool add;
} maildex_tag_op_t;

enum {
    MAILDEX_TAG_REMOVE_ALL = 1 << 0, /* start each message from no tags, then apply the ops */
    MAILDEX_TAG_SYNC_FLAGS = 1 << 1, /* rename Maildir files to match the tags (maildir.synchronize_flags) */
    MAILDEX_TAG_RENAME_ALWAYS = 1 << 2, /* maildex_db_tag_message with SYNC_FLAGS: rename the files even
                                          when the tags did not change (tags_to_maildir_flags) */
};

/* The longest tag, in bytes (notmuch's NOTMUCH_TAG_MAX). */
#define MAILDEX_TAG_MAX 200

/* Checks one tag change as notmuch's command line checks what a user typed, before anything is
 * changed (its illegal_tag): a tag to add must be neither empty nor start with '-'; any tag may be
 * removed; tag must not be NULL. Returns MAILDEX_STATUS_OK, or MAILDEX_STATUS_INVALID_ARGUMENT. If why
 * is not NULL, *why is set to a static, lower-case reason in notmuch's words ("empty tag forbidden",
 * "tag starting with '-' forbidden", "tag is NULL"), or NULL when the change is allowed. A batch line's
 * tags are checked before they are hex-decoded, so "+%2dx" adds the tag "-x", as in notmuch. */
maildex_status_t maildex_tag_check(const char *tag, bool add, const char **why);

/* notmuch's `tag`: applies ops, in order, to every message q matches (create q with
 * MAILDEX_EXCLUDE_FALSE to reach excluded messages too, as notmuch does). A message whose tags
 * change gets a new revision (lastmod); with MAILDEX_TAG_SYNC_FLAGS, each of its files in a Maildir's
 * cur/ or new/ is renamed to the flags of its draft, flagged, passed, replied and unread tags (D, F, P,
 * R, S when not unread; other flags kept, ASCII order), and a file in new/ whose name changes moves
 * to cur/. All the tag changes are one transaction, however many messages match: they are all made
 * or none is. The renames are recorded in that transaction and made right after it commits, then
 * recorded as done: killed in between, the call leaves its tag change committed and the renames it
 * owes, which the next writer (maildex_index, maildex_query_tag, maildex_reindex, maildex_insert)
 * makes before anything else; until then readers see the old file names. A file that cannot be
 * renamed (the new name is taken, it has moved or gone meanwhile) keeps its name, and the next
 * `new` reconciles names and tags. The library applies notmuch's
 * library rules, not maildex_tag_check's: a tag may be empty or start with '-' (a front end checks
 * what its user typed), but a NULL tag, or one longer than MAILDEX_TAG_MAX bytes to add to a message
 * the query matches, is MAILDEX_STATUS_INVALID_ARGUMENT and changes nothing. Sets *changed (may be
 * NULL) to the number of messages whose tags changed. Returns MAILDEX_STATUS_OK, INVALID_ARGUMENT,
 * READ_ONLY, DATABASE_BUSY (another writer held the database past the wait) or a database error;
 * the message is on the database handle. */
maildex_status_t maildex_query_tag(maildex_query_t *q, const maildex_tag_op_t *ops, size_t nops,
                                   unsigned flags, uint64_t *changed);

/* maildex_query_tag's changes for the one message whose Message-ID is message_id (restore, and any
 * caller that knows its messages by id): no query is parsed or planned. Files are renamed only when
 * the tags changed (with MAILDEX_TAG_REMOVE_ALL too, as notmuch's restore). Returns
 * MAILDEX_STATUS_OK (*changed, which may be NULL, tells whether the tags changed), NOT_FOUND when
 * no message has that id (nothing changed; the message on db names the id), INVALID_ARGUMENT for an
 * op maildex_tag_check refuses, READ_ONLY or a database error. One transaction, or part of the
 * caller's atomic section. */
maildex_status_t maildex_db_tag_message(maildex_db_t *db, const char *message_id,
                                        const maildex_tag_op_t *ops, size_t nops, unsigned flags,
                                        bool *changed);

/* notmuch's notmuch_message_maildir_flags_to_tags for the message whose Message-ID is message_id: the
 * Maildir flags of its files (maildex_message_maildir_flags) decide its draft, flagged, passed,
 * replied and unread tags, as `new` decides them with maildir.synchronize_flags; nothing changes when
 * no file is in a Maildir. One transaction, or part of the caller's atomic section. Returns
 * MAILDEX_STATUS_OK, NOT_FOUND (no such message), READ_ONLY, DATABASE_BUSY or a database status. */
maildex_status_t maildex_db_message_flags_to_tags(maildex_db_t *db, const char *message_id);

/* ---- message properties ------------------------------------------------------------------------- */

/* notmuch's message properties: key=value pairs on a message, a key may hold several values. They
 * are searched with property:KEY=VALUE, kept through renames and `reindex` (which drops the keys
 * starting with "index.", as notmuch does), and leave the store with the message.
 *
 * set adds the pairs to the message whose Message-ID is message_id (a pair it has already is no
 * change), after removing all of its properties when replace is true. remove removes the pair key,
 * value; with value NULL every value of key; with key NULL every property (value is ignored). A key may not
 * contain '=' (nor be NULL in set). Both give the message a new revision when something changed,
 * and return MAILDEX_STATUS_OK, NOT_FOUND (no such message; nothing changed), INVALID_ARGUMENT,
 * READ_ONLY or a database error. One transaction, or part of the caller's atomic section. */
maildex_status_t maildex_db_set_properties(maildex_db_t *db, const char *message_id,
                                           const maildex_pair_t *pairs, size_t n, bool replace);
maildex_status_t maildex_db_remove_properties(maildex_db_t *db, const char *message_id,
                                              const char *key, const char *value);

/* notmuch's `reindex`: re-parses a file of every message q matches (create q with
 * MAILDEX_EXCLUDE_FALSE to reach excluded messages too, as notmuch does) and re-indexes it: text,
 * headers, date, thread links and the "attachment", "signed" and "encrypted" tags; every other tag
 * is kept. Encrypted parts are decrypted as decrypt says (maildex_index_options_t): the message's
 * "index.*" properties are replaced by what this indexing finds, and FALSE also drops its stored
 * session keys, so that its cleartext can no longer be indexed or shown without the user's key
 * (notmuch's `reindex --decrypt=false`). A file that is gone (no such file or directory) is dropped from its message, and a
 * message whose every file is gone leaves the store, tags and all, as notmuch's reindex does; a file
 * that exists but cannot be read is kept, and a message none of whose files can be read is left as
 * it was. Waits for another indexer (`new`, `reindex`) to finish first. Sets *reindexed (may be
 * NULL) to the number of messages re-indexed. Returns MAILDEX_STATUS_OK, READ_ONLY,
 * FILE_NOT_FOUND (the mail root is not there: nothing is taken for gone) or a database error; the
 * message is on the database handle. */
maildex_status_t maildex_reindex(maildex_query_t *q, maildex_decrypt_t decrypt, uint64_t *reindexed);

/* maildex_reindex for the one message whose Message-ID is message_id (excluded or not), without the
 * caller writing a query: *reindexed (may be NULL) tells whether it was re-indexed (false: no such
 * message, or none of its files could be read). Returns the statuses of maildex_reindex. */
maildex_status_t maildex_db_reindex_message(maildex_db_t *db, const char *message_id, maildex_decrypt_t decrypt,
                                            bool *reindexed);

/* ---- purging ------------------------------------------------------------------------------------- */

/* One file of a purge, as maildex_purge reports it: every file with dry_run, else the files that
 * could not go (error set). Strings are valid during the call only. */
typedef struct {
    const char *message_id;
    const char *path;   /* absolute, as the index records it */
    const char *to;     /* with to_folder: the absolute path it is moved to; else NULL */
    uint64_t size;      /* bytes (of the link itself, for a symbolic link) */
    int error;          /* 0, or the errno value why it cannot (dry_run) or could not go */
    const char *reason; /* NULL, or why in words: strerror(error), or "reached through a symbolic
                           link that leads out of the mail root" (error ELOOP) */
} maildex_purge_file_t;

typedef struct {
    bool dry_run;          /* only report: nothing is written, moved or removed, and no log */
    /* NULL: the files are removed. Else a Maildir folder relative to the mail root (insert's rules:
     * no "..", no cur, new or tmp component), created with its cur/, new/ and tmp/ when missing: each
     * file is moved into its cur/ (or new/, from a new/), keeping its name but for an mbsync UID
     * (",U=123"), and stays indexed there with its message's tags. Files already in the folder stay. */
    const char *to_folder;
    int64_t older_than;    /* > 0: keep the messages that gained a tag they still carry less than
                              this many seconds ago (the newest of their tags is younger) */
    int64_t now;           /* "now" for older_than; 0 for the current time */
    /* The purge log (NULL: "<database>-purge.log", beside the database): see maildex_purge. */
    const char *log_path;
    void (*file)(void *data, const maildex_purge_file_t *f); /* may be NULL */
    void *data;
} maildex_purge_options_t;

typedef struct {
    uint64_t messages;       /* messages that left the store (to_folder: whose every file moved) */
    uint64_t files;          /* files removed (moved) */
    uint64_t bytes;          /* their size */
    uint64_t messages_kept;  /* matched, but a file of theirs could not go: kept with their tags */
    uint64_t files_failed;   /* ... those files */
    uint64_t messages_young; /* matched, kept by older_than */
} maildex_purge_stats_t;

/* Removes the mail q matches from the disk and from the store: the messages, all their files (create
 * q with MAILDEX_EXCLUDE_FALSE: a purge should not skip what it was told to purge), their tags and
 * properties, or with to_folder moves their files. Safe by construction:
 *   - only files inside the mail root go: every directory on the way is opened without following a
 *     symbolic link that leads out of the root (one that leads to a directory inside it is taken
 *     there); a file that is itself a symbolic link is removed as a link, its target never touched;
 *   - before any file of a batch goes, each message's tags and properties are appended to the purge
 *     log as `dump` writes them (a "#notmuch-dump batch-tag:3" file; the log is moved to ".1" ..
 *     ".4" once past 4 MiB) and the log is fsynced: `maildex restore --input=LOG` puts them back on
 *     the messages once their files are back and indexed;
 *   - a file's row goes only after its unlink (rename) succeeded and its directory was synced; a
 *     file that cannot go keeps its row, and its message stays with its tags (messages_kept, and
 *     opts->file tells which and why); a file already gone (no such file) leaves the index;
 *   - it waits for `new` and `watch` and makes them wait (the indexer lock), and all of it is one
 *     transaction: killed at any point, the store holds the rows of files that were removed, which the
 *     next maildex_index removes as it would for any file deleted by hand, and every surviving message
 *     keeps its tags. Killed after a move, maildex_index finds the moved file and keeps it as a file
 *     of its message.
 * With opts->dry_run, only stats and opts->file (each file that would go, and each that could not)
 * are filled in. opts may be NULL. Sets *stats (may be NULL). Returns MAILDEX_STATUS_OK (even when
 * files could not go: see stats), READ_ONLY, INVALID_ARGUMENT (to_folder refused), FILE_NOT_FOUND
 * (the mail root is not there), IO_ERROR (the log or to_folder could not be written: nothing was
 * removed after that), DATABASE_BUSY, INTERRUPTED (maildex_db_cancel: the batches before it were
 * purged, the rest left as it was) or a database error; the message is on the database
 * handle. */
maildex_status_t maildex_purge(maildex_query_t *q, const maildex_purge_options_t *opts,
                               maildex_purge_stats_t *stats);

/* ---- compaction -------------------------------------------------------------------------------------- */

/* notmuch's `compact`: rebuilds the database without free pages (FTS5's index merged first, then
 * SQLite's VACUUM INTO a file beside the database) and puts the result in place in one write
 * transaction, so that every reader, in this process or another, sees the old database or the new
 * one and never an error. What another writer commits meanwhile is never lost: the copy is made
 * without holding the write lock (other writers wait only for the swap) and made again, holding it,
 * when something was committed during the first try. With backup_path, the old database is also
 * copied there (a new file, mode 0600; an existing file is refused). Waits for another indexer
 * (`new`, `reindex`) and makes them wait. Sets *size_before and *size_after (may be NULL) to the
 * database's size in bytes (file plus write-ahead log) before and after. Returns
 * MAILDEX_STATUS_OK, READ_ONLY, DATABASE_BUSY, IO_ERROR (no room for the copy: the database is
 * unchanged), INVALID_ARGUMENT (backup_path exists, or a transaction is open on db) or a database
 * error. */
maildex_status_t maildex_db_compact(maildex_db_t *db, const char *backup_path, uint64_t *size_before,
                                    uint64_t *size_after);

/* ---- batch-tag lines --------------------------------------------------------------------------------- */

/* notmuch's line format for `tag --batch`, `dump` and `restore` (notmuch-compat.md 5): a tag line
 * "+TAG -TAG ... [--] QUERY" with the tags hex-encoded (every byte outside [A-Za-z0-9+-_@=.,] as %xx)
 * and the query as written; in a dump the query is one id: term, quoted as notmuch quotes a boolean
 * term, each message's properties follow as "#= ID KEY=VALUE ..." and the database's config heads
 * the file as "#@ KEY VALUE" lines (all hex-encoded). `--format=sup` writes "ID (TAG TAG)" instead,
 * tags as they are. */
typedef enum {
    MAILDEX_BATCH_TAGS = 1,   /* ops and query (and message_id, with MAILDEX_BATCH_RESTORE) */
    MAILDEX_BATCH_PROPERTIES, /* message_id and its pairs ("#=") */
    MAILDEX_BATCH_CONFIG,     /* one pair ("#@") */
} maildex_batch_kind_t;

typedef struct {
    maildex_batch_kind_t kind;
    const maildex_tag_op_t *ops; /* decoded, in line order */
    size_t nops;
    const char *query;           /* the rest of the line, as written */
    const char *message_id;
    const maildex_pair_t *pairs; /* decoded */
    size_t npairs;
} maildex_batch_line_t;

enum {
    MAILDEX_BATCH_RESTORE = 1 << 0, /* restore's reading: "#=" and "#@" lines mean something, tags
                                       are not checked (notmuch's "generous" mode), and the query
                                       must be one id: term */
    MAILDEX_BATCH_SUP = 1 << 1,     /* a tag line is "ID (TAG TAG ...)": tags to add, as written */
};

/* Parses one line (a trailing newline is ignored). Returns MAILDEX_STATUS_OK and sets *out, or sets
 * *out to NULL for a line that holds nothing (empty, blank, a comment); MAILDEX_STATUS_INVALID_ARGUMENT
 * with *out NULL and *error set to notmuch's warning for a bad line, to print as it is ("Warning: no
 * query string [+0]", "Warning: cannot parse query: a (skipping)"); MAILDEX_STATUS_NO_MEMORY. *error
 * (may be NULL) is malloc'd: free it with free(). Free *out with maildex_batch_line_free. */
maildex_status_t maildex_batch_line_parse(const char *line, unsigned flags, maildex_batch_line_t **out,
                                          char **error);
void maildex_batch_line_free(maildex_batch_line_t *line);

/* The dump's lines, without the newline, malloc'd into *out (free it with free()): a message's tags
 * (tags sorted as given; sup true for the sup format), its properties (n pairs; nothing to write
 * when n is 0: *out is NULL), one config key. Return MAILDEX_STATUS_OK, INVALID_ARGUMENT (a
 * Message-ID holding a line break cannot be written: notmuch skips the message too) or NO_MEMORY. */
maildex_status_t maildex_batch_format_tags(const char *message_id, const char *const *tags, bool sup,
                                           char **out);
maildex_status_t maildex_batch_format_properties(const char *message_id, const maildex_pair_t *pairs,
                                                 size_t n, char **out);
maildex_status_t maildex_batch_format_config(const char *key, const char *value, char **out);

/* ---- delivering ------------------------------------------------------------------------------------ */

typedef struct {
    const char *folder;          /* the Maildir to deliver to, relative to the mail root ("" or NULL:
                                    the root; "/" and "." components are dropped); a ".." component
                                    or an absolute path is refused, and so is a component named cur,
                                    new or tmp (`new` would not look inside it) */
    bool create_folder;          /* create the folder (and its cur/, new/, tmp/) when missing */
    bool world_readable;         /* file mode 0644 and new directories 0755, not 0600 and 0700 (the
                                    umask applies) */
    bool keep;                   /* a message that cannot be indexed stays in the folder's new/ */
    bool synchronize_flags;      /* Maildir flags from tags (maildir.synchronize_flags) */
    const char *const *new_tags; /* NULL-terminated, added to a new message first (new.tags) */
    const maildex_tag_op_t *ops; /* then these, in order, as maildex_query_tag applies them */
    size_t nops;
    maildex_decrypt_t decrypt;   /* the message's encrypted parts, as maildex_index_options_t's */
} maildex_insert_options_t;

/* notmuch's `insert`: delivers the message read from fd (to its end; a first line "From ..." of an
 * mbox becomes "X-Envelope-From: ...", as notmuch does) into a Maildir and indexes it. The message is
 * written to the folder's tmp/ under a new unique name and fsynced; then, in one write transaction,
 * parsed and indexed as `new` indexes a file, its tags decided (a new Message-ID gets the structure
 * tags, new_tags, then ops; a known one keeps its tags and only gains the file), the file linked
 * into cur/ with the flags those tags imply (with synchronize_flags, notmuch's rule) or into new/,
 * its directory fsynced, and the transaction committed. Waits for another writer as every write
 * does (maildex_db_set_waiting). Nothing is left in tmp/.
 *
 * Returns MAILDEX_STATUS_OK, with *path (path may be NULL) set to the delivered file's absolute path
 * (malloc'd: free it with free()). Otherwise the message on db says why, and without keep no file
 * of the message is left anywhere; with keep, a message that was read but could not be indexed (not
 * mail, the database busy or failing) is left in the folder's Maildir for the next `new`, and *path
 * names it (NULL when nothing was kept):
 *   MAILDEX_STATUS_INVALID_ARGUMENT  the folder is outside the mail root, the input is empty, an op's
 *                                    tag is NULL or too long (MAILDEX_TAG_MAX)
 *   MAILDEX_STATUS_FILE_NOT_FOUND    the folder (or its tmp/) does not exist and create_folder is false
 *   MAILDEX_STATUS_FILE_NOT_EMAIL    the message has none of From, Subject, To (notmuch's rule)
 *   MAILDEX_STATUS_IO_ERROR          reading the input, creating the folder or writing the file failed
 *   MAILDEX_STATUS_DATABASE_BUSY, NO_MEMORY, READ_ONLY or a database error */
maildex_status_t maildex_insert(maildex_db_t *db, int fd, const maildex_insert_options_t *opts,
                                char **path);

/* "Did you mean": sets *out to at most max indexed words within edit distance 2 of word (compared
 * case- and accent-folded), most frequent first, NULL-terminated, allocated as a child of db (free with
 * maildex_strings_free). Empty when word itself is indexed. Returns MAILDEX_STATUS_OK or a database
 * status with *out NULL. */
maildex_status_t maildex_db_suggest(maildex_db_t *db, const char *word, size_t max, char ***out);

/* Frees a string array returned by maildex_db_suggest, maildex_db_directories or
 * maildex_directory_children. Accepts NULL. */
void maildex_strings_free(char **strings);

/* ---- reading a message: its MIME parts (show), a reply to it (reply) -------------------------------- */

/* A message file's MIME structure as notmuch 0.37 shows it (notmuch-show.c, mime-node.c), parsed by the
 * parser module and copied out of gmime into plain memory: a tree of parts numbered depth first (the
 * message itself 0, its root part 1; a message/rfc822 part and the root part of its message each get
 * a number), each with what `show` prints of it.
 *
 * Usage (the text of every text part of the newest message from Alice; make check compiles and runs it):
 *     maildex_query_options_t qopts = MAILDEX_QUERY_OPTIONS_INIT;
 *     maildex_parts_options_t popts = MAILDEX_PARTS_OPTIONS_INIT;
 *     maildex_query_t *q;
 *     maildex_messages_t *msgs;
 *     maildex_message_t *m;
 *     maildex_part_t *root, *part;
 *     qopts.limit = 1;
 *     if (maildex_query_create(db, "from:alice", &qopts, &q) != MAILDEX_STATUS_OK)
 *         return 1;
 *     if (maildex_query_search_messages(q, &msgs) == MAILDEX_STATUS_OK &&
 *         maildex_messages_next(msgs, &m) == MAILDEX_STATUS_OK && m &&
 *         maildex_message_parts(m, 0, &popts, &root) == MAILDEX_STATUS_OK) {
 *         for (int id = 1; (part = maildex_part_find(root, id)) != NULL; id++) {
 *             size_t len;
 *             const char *text = maildex_part_content(part, &len);
 *             if (text)
 *                 fwrite(text, 1, len, stdout);
 *         }
 *     }
 *     maildex_query_destroy(q);
 * A part tree is a talloc child of its message (freed with it, or sooner by maildex_part_free). */
typedef struct maildex_part maildex_part_t;

typedef enum {
    MAILDEX_PART_MESSAGE = 0, /* the file's message (id 0) or a message/rfc822 part: headers, one child */
    MAILDEX_PART_MULTIPART,   /* multipart/...: its parts as children */
    MAILDEX_PART_LEAF,        /* any other part: content, or its charset, encoding and length */
} maildex_part_kind_t;

/* One header as `show` prints it. */
typedef struct {
    const char *name;
    const char *value; /* NULL for a Subject or From the message lacks */
} maildex_header_t;

/* One signature of a verified part as notmuch 0.37 prints it (format_part_sigstatus_sprinter). */
typedef struct {
    const char *status;        /* "good", "bad", "error" or "unknown" */
    const char *fingerprint;   /* good: the signing key's fingerprint, NULL when unknown */
    const char *keyid;         /* not good: the last 16 hex digits of the fingerprint, or NULL */
    int64_t created;           /* good: seconds since the epoch, -1 when unknown */
    int64_t expires;           /* good: seconds since the epoch, 0 when it does not expire */
    const char *userid, *email; /* good: the key's user id and address when fully trusted, else NULL */
    unsigned errors;           /* non-zero: gmime's status bits (format-version 3 prints this number) */
    const char *const *error_names; /* NULL-terminated: "key-missing" etc. in notmuch's order */
} maildex_signature_t;

/* The cryptographic envelope of a message (notmuch's "crypto" map): the signatures that cover its
 * payload and whether it was decrypted. */
typedef struct {
    bool is_signed;                        /* false: not signed, or not verified */
    const maildex_signature_t *signatures; /* owned by the part tree */
    size_t nsignatures;
    bool signature_encrypted;              /* the signatures were inside the encryption */
    int decrypted;                         /* 0: not, 1: partially, 2: fully decrypted */
    /* The Subject of the payload's protected headers (then the message's Subject header shows it),
     * or NULL; outer_subject is the message's own Subject with it (NULL when it has none). */
    const char *payload_subject, *outer_subject;
} maildex_crypto_t;

typedef struct {
    bool body;          /* parse the parts under the message (false: the message and its headers
                           only, for show --body=false and the mbox "From " line) */
    bool include_html;  /* decode text/html parts too (show --include-html) */
    /* NULL-terminated names of headers to add to each message's headers after Date (notmuch's
     * show.extra_headers), or NULL. Not copied: valid while the tree is built. */
    const char *const *extra_headers;
    bool verify;                /* verify multipart/signed parts (show --verify, --decrypt=true) */
    maildex_decrypt_t decrypt;  /* decrypt multipart/encrypted parts with the user's gpg-agent */
} maildex_parts_options_t;

#define MAILDEX_PARTS_OPTIONS_INIT                                                                 \
    {.body = true, .include_html = false, .extra_headers = NULL, .verify = false,                  \
     .decrypt = MAILDEX_DECRYPT_AUTO}

/* Parses a file of m: file number duplicate (1 for the first, as maildex_message_files orders them)
 * or, for duplicate 0, the first that can be opened. opts may be NULL (the defaults above). A part
 * that cannot be parsed is shown as far as it parses. Returns MAILDEX_STATUS_OK and sets *out, or
 * sets *out to NULL and returns MAILDEX_STATUS_FILE_NOT_FOUND (m has no file number duplicate, or
 * none of its files can be opened; the message names the file and the reason), FILE_NOT_EMAIL (no
 * message could be read from it), IO_ERROR (the parser module could not be loaded), NO_MEMORY or a
 * database status; the message is on the database handle. */
maildex_status_t maildex_message_parts(maildex_message_t *m, int duplicate,
                                       const maildex_parts_options_t *opts, maildex_part_t **out);

/* Reading ahead: parses the files of the messages list[0..n) (of one query) on another core, a few
 * messages ahead of the caller, who then asks for each in list order with maildex_message_parts and
 * the same duplicate and opts (the same pointer, or NULL for both). A message already parsed is
 * handed over; one the other core has not reached is parsed by the caller as usual. The trees, the
 * statuses and the error messages are the same as without it; what changes is that the parse of the
 * next message overlaps the printing of this one (show of a thread: notmuch.el's whole-thread view).
 * Nothing is read ahead (*out NULL, MAILDEX_STATUS_OK) for fewer than two messages, on one core, or
 * while the query has a read-ahead already. Only the caller's thread decrypts or verifies PGP/MIME: a
 * message with a part opts would verify or decrypt is parsed by the caller (S/MIME signed data, which
 * gmime opens only by verifying, may be verified on the other thread too). Free it with
 * maildex_parts_prefetch_free, before the messages of list are freed (the query frees it too).
 * Returns MAILDEX_STATUS_OK, IO_ERROR (the parser module could not be loaded), NO_MEMORY or a
 * database status. */
typedef struct maildex_parts_prefetch maildex_parts_prefetch_t;
maildex_status_t maildex_parts_prefetch_start(maildex_message_t *const *list, size_t n, int duplicate,
                                              const maildex_parts_options_t *opts,
                                              maildex_parts_prefetch_t **out);

/* Stops the other core's parsing (waiting for the message it is at) and frees what it parsed that was
 * not asked for. Accepts NULL. */
void maildex_parts_prefetch_free(maildex_parts_prefetch_t *p);

/* Frees a part tree (root) early. Accepts NULL. */
void maildex_part_free(maildex_part_t *root);

/* The part numbered id in the tree under p (p itself when id is p's number), or NULL. */
maildex_part_t *maildex_part_find(maildex_part_t *p, int id);

/* Kind, depth-first number, children (count and the i-th, NULL past the end). */
maildex_part_kind_t maildex_part_kind(const maildex_part_t *p);
int maildex_part_id(const maildex_part_t *p);
size_t maildex_part_count(const maildex_part_t *p);
maildex_part_t *maildex_part_child(const maildex_part_t *p, size_t i);

/* What a part says of itself, each NULL when absent (all NULL for the message itself, id 0): its
 * type/subtype as written ("Text/PLAIN" stays), its Content-Disposition value, Content-ID and file
 * name (leaves only). Owned by the tree. */
const char *maildex_part_content_type(const maildex_part_t *p);
const char *maildex_part_disposition(const maildex_part_t *p);
const char *maildex_part_content_id(const maildex_part_t *p);
const char *maildex_part_filename(const maildex_part_t *p);

/* A leaf's text when it was decoded (a text/... part; text/html only with include_html): converted
 * to UTF-8 from its charset (a mislabelled ISO-8859 part as the Windows charset it really is), CRLF
 * turned into LF, exactly as notmuch prints it; *len bytes, NULs possible. NULL for every other
 * part. */
const char *maildex_part_content(const maildex_part_t *p, size_t *len);

/* A leaf whose content is not decoded: its charset parameter and Content-Transfer-Encoding (NULL when
 * absent), and the length of its content as encoded in the file (-1 when it has none). */
const char *maildex_part_charset(const maildex_part_t *p);
const char *maildex_part_transfer_encoding(const maildex_part_t *p);
int64_t maildex_part_length(const maildex_part_t *p);

/* A message part's headers in show's order: Subject, From, To, Cc, Bcc and Reply-To when present,
 * Date (reformatted by gmime; the epoch when it cannot be read), then the extra headers it has, each
 * named as the file spells it. *n is set to their number; NULL (and 0) for other parts. */
const maildex_header_t *maildex_part_headers(const maildex_part_t *p, size_t *n);

/* For the file's message (id 0) only, the headers as notmuch's notmuch_message_get_header reads them:
 * decoded From and Date ("" when absent), and the address of the first From mailbox (notmuch's mbox
 * "From " line; "MAILER-DAEMON" when there is none). From and the address are the message's, as it
 * was indexed (from its first file indexed, or its first file when re-indexed), even where another
 * copy is shown; Date is the shown file's. NULL for other parts. */
const char *maildex_part_from(const maildex_part_t *p);
const char *maildex_part_date(const maildex_part_t *p);
const char *maildex_part_sender_address(const maildex_part_t *p);

/* Crypto (notmuch's mime-node.c). A multipart/signed part that was verified, or a decrypted part that
 * carried signatures: maildex_part_verified is true and *n signatures are returned (none when gmime
 * could not verify). maildex_part_decrypt is 0 when decryption was not attempted, -1 when it failed,
 * 1 when the part's second child is the decrypted content. maildex_part_crypto_error is gmime's reason
 * a verification or decryption that was asked for failed ("no error explanation given" when it gave
 * none), NULL otherwise: notmuch reports it on stderr. maildex_part_crypto is the message's envelope,
 * for the file's message (id 0) only, else NULL. */
bool maildex_part_verified(const maildex_part_t *p);
const maildex_signature_t *maildex_part_signatures(const maildex_part_t *p, size_t *n);
int maildex_part_decrypt(const maildex_part_t *p);
const char *maildex_part_crypto_error(const maildex_part_t *p);
const maildex_crypto_t *maildex_part_crypto(const maildex_part_t *p);
/* A part decrypted with MAILDEX_DECRYPT_STASH: its session key, for the caller to keep as the message's
 * "session-key" property (maildex_db_set_properties); NULL otherwise. */
const char *maildex_part_session_key(const maildex_part_t *p);

/* Receives a part's bytes in pieces (maildex_message_part_write): len > 0 bytes at bytes, valid during
 * the call. Returns 0 to take more, anything else to stop. */
typedef int maildex_write_fn(void *data, const char *bytes, size_t len);

/* The bytes `show --format=raw --part=id` prints: for a leaf, its content decoded from its
 * Content-Transfer-Encoding (no charset conversion); for any other part, the part as gmime writes it
 * (headers and body; a message/rfc822 part's message without the enclosing part's headers). id must
 * be at least 1 (part 0 is the file itself). Encrypted parts are decrypted as decrypt says
 * (maildex_parts_options_t's decrypt), and the parts are numbered as maildex_message_parts numbers
 * them with it: the parts of a decrypted one can be had.
 *
 * maildex_message_part_write hands them to write(data, ...) in pieces (a few KB each) as they are
 * decoded from the file, so a part of any size costs a few KB of memory:
 *
 *     static int to_file(void *data, const char *bytes, size_t len)
 *     {
 *         return fwrite(bytes, 1, len, data) == len ? 0 : -1;
 *     }
 *     st = maildex_message_part_write(m, 0, 2, MAILDEX_DECRYPT_FALSE, to_file, stdout);
 *
 * It returns MAILDEX_STATUS_OK, NOT_FOUND when the message has no part id (write is not called),
 * IO_ERROR when write asked to stop (what it took stays taken), or a status of maildex_message_parts.
 * maildex_message_part_bytes holds them instead: it sets *data (owned by m, valid until the next call
 * on m; NUL-terminated after *len bytes) and *len, with the same statuses (NO_MEMORY for a part too
 * large to hold; *data NULL on failure). */
maildex_status_t maildex_message_part_write(maildex_message_t *m, int duplicate, int id, maildex_decrypt_t decrypt,
                                            maildex_write_fn *write, void *data);
maildex_status_t maildex_message_part_bytes(maildex_message_t *m, int duplicate, int id, maildex_decrypt_t decrypt,
                                            const char **data, size_t *len);

/* ---- replies ---- */

typedef struct maildex_reply maildex_reply_t;

typedef struct {
    const char *user_name;            /* user.name */
    const char *primary_email;        /* user.primary_email */
    const char *const *other_email;   /* user.other_email, NULL-terminated, or NULL */
    bool reply_all;                   /* --reply-to=all (true) or sender */
    bool headers_only;                /* --format=headers-only: only In-Reply-To, References and the
                                         recipients (notmuch's "limited" reply) */
    const char *const *extra_headers; /* the original's extra headers, as maildex_parts_options_t's */
    maildex_decrypt_t decrypt;        /* the original's encrypted parts (reply --decrypt); its
                                         signatures are not verified, as notmuch's reply does not */
} maildex_reply_options_t;

/* Builds notmuch's reply to file number duplicate of m (as maildex_message_parts picks it): Subject
 * with "Re: " unless it starts with "Re:", recipients from Reply-To (unless a mailing list munged it),
 * From, To, Cc and Bcc without the user's own addresses (only the first non-empty set with
 * reply_all false), From the user's name and the first address of theirs found in the message
 * (else in Envelope-To, X-Original-To, Delivered-To, the Received chain, else primary_email),
 * In-Reply-To and References. Returns MAILDEX_STATUS_OK and sets *out (a child of m), or the statuses
 * of maildex_message_parts. */
maildex_status_t maildex_message_reply(maildex_message_t *m, int duplicate,
                                       const maildex_reply_options_t *opts, maildex_reply_t **out);

/* The reply's headers as notmuch writes them for `reply --format=default|headers-only`: RFC 2822
 * text, encoded and folded by gmime, ending with the empty line. Owned by the reply. */
const char *maildex_reply_header_text(const maildex_reply_t *r);

/* The reply's headers as `reply --format=json|sexp` prints them: Subject, From, To, Cc, Bcc when
 * set, then In-reply-to and References. *n is set to their number. Owned by the reply. */
const maildex_header_t *maildex_reply_headers(const maildex_reply_t *r, size_t *n);

/* The message replied to, as maildex_message_parts parses it with the defaults and the options'
 * extra_headers (text decoded, no HTML). Owned by the reply. */
maildex_part_t *maildex_reply_original(const maildex_reply_t *r);

#ifdef __cplusplus
}
#endif
#endif
