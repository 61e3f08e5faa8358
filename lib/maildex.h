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

/* The message describing the last failure on db, owned by db; valid until the next call on db. Never
 * NULL (empty when there was no failure). */
const char *maildex_db_errmsg(maildex_db_t *db);

/* Sets a function called when a write has to wait for another process: another indexer (`new`,
 * `reindex`) holding the indexer lock, or another writer holding SQLite's write lock for more than
 * half a second. what is a lower-case phrase ("waiting for another process (pid 4242) indexing to
 * finish"), valid during the call. Called at most once per wait; it must not call into db. NULL
 * removes it. A host on a terminal prints it; indexers wait as long as the other one runs, other
 * writes up to ten seconds (then MAILDEX_STATUS_DATABASE_BUSY). */
void maildex_db_set_waiting(maildex_db_t *db, void (*waiting)(void *data, const char *what),
                            void *data);

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

/* ---- indexing ---------------------------------------------------------------------------------- */

/* What one maildex_index() run did. */
typedef struct {
    uint64_t files_found;      /* files to look at: new ones in changed directories (all, first time) */
    uint64_t files_processed;  /* files read and parsed */
    uint64_t messages_added;   /* new Message-IDs */
    uint64_t messages_removed; /* messages whose last file disappeared */
    uint64_t renames;          /* files that moved, or were added to or removed from a message that
                                  kept another file (notmuch's "file renames") */
    uint64_t files_vanished;   /* listed, then gone before they could be read */
    uint64_t files_unreadable; /* files that exist but could not be read (or stat'ed): warned
                                  about, retried next run */
    uint64_t directories_unreadable; /* directories that exist but could not be read: warned
                                  about; what the index knows of them is kept as it is */
    uint64_t removals_held;    /* messages whose last file is gone, kept because some mail could
                                  not be read this run (it may be where they moved); removed by
                                  the first run that reads everything */
    uint64_t warnings;         /* entries skipped with a warning (see warning below) */
    uint64_t directories;      /* directories walked */
    uint64_t directories_listed; /* ... of which listed because they changed */
    bool first_run;            /* the database had never indexed the mail root before */
} maildex_index_stats_t;

typedef struct {
    const char *const *new_tags;    /* NULL-terminated: tags of new messages (notmuch's new.tags) */
    const char *const *ignore;      /* NULL-terminated new.ignore entries: names, or "/regex/" matched
                                       against the path relative to the mail root */
    bool synchronize_flags;         /* Maildir flags <-> tags (maildir.synchronize_flags) */
    bool full_scan;                 /* list every directory, even unchanged ones */
    /* Called for each entry skipped (a symlink loop, a FIFO, an unreadable file ...), once per run:
     * reason is a lower-case phrase. */
    void (*warning)(void *data, const char *path, const char *reason);
    /* Called for each file that is not mail (notmuch's "Ignoring non-mail file" note). */
    void (*not_mail)(void *data, const char *path);
    /* Called after each file is done (verbose output, progress): done of total so far. */
    void (*progress)(void *data, const maildex_index_stats_t *stats, uint64_t done, uint64_t total,
                     const char *path);
    void *data;
    /* When set non-zero (from a signal handler), the run finishes the batch in hand, commits and
     * returns MAILDEX_STATUS_INTERRUPTED. */
    const volatile int *interrupted;
} maildex_index_options_t;

/* Brings the database up to date with the mail under the mail root: new files are parsed (on a
 * thread pool) and indexed, renamed and moved files are recognised without reading them again where
 * their unique name and size match, removed files leave the index, and directories whose mtime did
 * not change are not listed. Writes in batched transactions; a crash at any point leaves a
 * consistent database and the next run finishes the job.
 *
 * Returns MAILDEX_STATUS_OK (stats filled in; warnings do not make the run fail),
 * MAILDEX_STATUS_INTERRUPTED (what was done is committed), MAILDEX_STATUS_FILE_NOT_FOUND (the mail
 * root is missing), MAILDEX_STATUS_READ_ONLY, or a database error. stats may be NULL. */
maildex_status_t maildex_index(maildex_db_t *db, const maildex_index_options_t *opts,
                               maildex_index_stats_t *stats);



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
} maildex_query_options_t;

/* The defaults: newest first, exclusions on (but no exclude tags), no offset, no limit. */
#define MAILDEX_QUERY_OPTIONS_INIT                                                                \
    {                                                                                             \
        .sort = MAILDEX_SORT_NEWEST_FIRST, .exclude = MAILDEX_EXCLUDE_TRUE, .exclude_tags = NULL, \
        .offset = 0, .limit = -1, .lookup = NULL, .lookup_data = NULL, .now = 0                  \
    }

/* Parses and plans text. opts may be NULL (the defaults above). Returns MAILDEX_STATUS_OK and sets
 * *out, or sets *out to NULL and returns MAILDEX_STATUS_QUERY_SYNTAX (maildex_db_errmsg(db) says
 * what and where, e.g. "syntax error at position 14: expected a term after 'and'"), or
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

/* The message's files as absolute paths in discovery order, and its tags sorted bytewise; each a
 * NULL-terminated array owned by the message (loaded on first call). Return MAILDEX_STATUS_OK or a
 * database status with *out NULL. */
maildex_status_t maildex_message_files(maildex_message_t *m, const char *const **out);
maildex_status_t maildex_message_tags(maildex_message_t *m, const char *const **out);

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
 * (maildex_message_matched); maildex_message_excluded is set for the members that carry an excluded
 * tag unless the query was created with MAILDEX_EXCLUDE_FALSE. Sets *out to the top-level messages,
 * NULL-terminated, owned by the thread (valid until the next maildex_threads_next). Reads the thread's
 * messages through the thread index, and the files of only the messages whose In-Reply-To is not in
 * the thread. Returns MAILDEX_STATUS_OK, or a database status (or MAILDEX_STATUS_IO_ERROR when the
 * parser module cannot be loaded) with *out NULL. */
maildex_status_t maildex_thread_toplevel_messages(maildex_thread_t *t, maildex_message_t *const **out);

/* The replies of a message of maildex_thread_toplevel_messages (date order), NULL-terminated; never
 * NULL (empty for a message from maildex_messages_next). Owned by the thread. */
maildex_message_t *const *maildex_message_replies(const maildex_message_t *m);

/* Counts the matching messages, their threads, or their files (offset and limit do not apply).
 * Returns MAILDEX_STATUS_OK and sets *count, or a database status. */
maildex_status_t maildex_query_count_messages(maildex_query_t *q, uint64_t *count);
maildex_status_t maildex_query_count_threads(maildex_query_t *q, uint64_t *count);
maildex_status_t maildex_query_count_files(maildex_query_t *q, uint64_t *count);

/* Sets *out to the tags of the matching messages, sorted bytewise, unique, NULL-terminated, owned by
 * q (valid until maildex_query_destroy). Returns MAILDEX_STATUS_OK or a database status. */
maildex_status_t maildex_query_tags(maildex_query_t *q, const char *const **out);

/* ---- tagging ---------------------------------------------------------------------------------------- */

/* One tag change: add tag (add true) or remove it. */
typedef struct {
    const char *tag;
    bool add;
} maildex_tag_op_t;

enum {
    MAILDEX_TAG_REMOVE_ALL = 1 << 0, /* start each message from no tags, then apply the ops */
    MAILDEX_TAG_SYNC_FLAGS = 1 << 1, /* rename Maildir files to match the tags (maildir.synchronize_flags) */
};

/* Checks one tag change before anything is changed (notmuch's rule, and the one maildex_query_tag
 * applies): a tag to add must be neither empty nor start with '-'; any tag may be removed; tag must
 * not be NULL. Returns MAILDEX_STATUS_OK, or MAILDEX_STATUS_INVALID_ARGUMENT. If why is not NULL, *why
 * is set to a static, lower-case reason in notmuch's words ("empty tag forbidden", "tag starting with
 * '-' forbidden", "tag is NULL"), or NULL when the change is allowed. */
maildex_status_t maildex_tag_check(const char *tag, bool add, const char **why);

/* notmuch's `tag`: applies ops, in order, to every message q matches (create q with
 * MAILDEX_EXCLUDE_FALSE to reach excluded messages too, as notmuch does). A message whose tags
 * change gets a new revision (lastmod); with MAILDEX_TAG_SYNC_FLAGS, each of its files in a Maildir's
 * cur/ or new/ is renamed to the flags of its draft, flagged, passed, replied and unread tags (D, F, P,
 * R, S when not unread; other flags kept, ASCII order), and a file in new/ whose name changes moves
 * to cur/. Messages are changed in batches of transactions; a file that cannot be renamed keeps its
 * name (the next `new` reconciles names and tags). An op that maildex_tag_check refuses is
 * MAILDEX_STATUS_INVALID_ARGUMENT and changes nothing. Sets *changed (may be NULL) to the number of
 * messages whose tags changed. Returns MAILDEX_STATUS_OK, INVALID_ARGUMENT, READ_ONLY or a database
 * error; the message is on the database handle. */
maildex_status_t maildex_query_tag(maildex_query_t *q, const maildex_tag_op_t *ops, size_t nops,
                                   unsigned flags, uint64_t *changed);

/* notmuch's `reindex`: re-parses a file of every message q matches (create q with
 * MAILDEX_EXCLUDE_FALSE to reach excluded messages too, as notmuch does) and re-indexes it: text,
 * headers, date, thread links and the "attachment", "signed" and "encrypted" tags; every other tag
 * is kept. A message none of whose files can be read is left as it was. Waits for another indexer
 * (`new`, `reindex`) to finish first. Sets *reindexed (may be NULL) to the number of messages
 * re-indexed. Returns MAILDEX_STATUS_OK, READ_ONLY or a database error; the message is on the
 * database handle. */
maildex_status_t maildex_reindex(maildex_query_t *q, uint64_t *reindexed);

/* "Did you mean": sets *out to at most max indexed words within edit distance 2 of word (compared
 * case- and accent-folded), most frequent first, NULL-terminated, allocated as a child of db (free with
 * maildex_strings_free). Empty when word itself is indexed. Returns MAILDEX_STATUS_OK or a database
 * status with *out NULL. */
maildex_status_t maildex_db_suggest(maildex_db_t *db, const char *word, size_t max, char ***out);

/* Frees a string array returned by maildex_db_suggest. Accepts NULL. */
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

typedef struct {
    bool body;          /* parse the parts under the message (false: the message and its headers
                           only, for show --body=false and the mbox "From " line) */
    bool include_html;  /* decode text/html parts too (show --include-html) */
    /* NULL-terminated names of headers to add to each message's headers after Date (notmuch's
     * show.extra_headers), or NULL. Not copied: valid while the tree is built. */
    const char *const *extra_headers;
} maildex_parts_options_t;

#define MAILDEX_PARTS_OPTIONS_INIT {.body = true, .include_html = false, .extra_headers = NULL}

/* Parses a file of m: file number duplicate (1 for the first, as maildex_message_files orders them)
 * or, for duplicate 0, the first that can be opened. opts may be NULL (the defaults above). A part
 * that cannot be parsed is shown as far as it parses. Returns MAILDEX_STATUS_OK and sets *out, or
 * sets *out to NULL and returns MAILDEX_STATUS_FILE_NOT_FOUND (m has no file number duplicate, or
 * none of its files can be opened; the message names the file and the reason), FILE_NOT_EMAIL (no
 * message could be read from it), IO_ERROR (the parser module could not be loaded), NO_MEMORY or a
 * database status; the message is on the database handle. */
maildex_status_t maildex_message_parts(maildex_message_t *m, int duplicate,
                                       const maildex_parts_options_t *opts, maildex_part_t **out);

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
 * "From " line; "MAILER-DAEMON" when there is none). NULL for other parts. */
const char *maildex_part_from(const maildex_part_t *p);
const char *maildex_part_date(const maildex_part_t *p);
const char *maildex_part_sender_address(const maildex_part_t *p);

/* The bytes `show --format=raw --part=id` prints: for a leaf, its content decoded from its
 * Content-Transfer-Encoding (no charset conversion); for any other part, the part as gmime writes it
 * (headers and body; a message/rfc822 part's message without the enclosing part's headers). id must
 * be at least 1 (part 0 is the file itself). Sets *data (owned by m, valid until the next call on m)
 * and *len. Returns MAILDEX_STATUS_OK, NOT_FOUND when the message has no part id (*data NULL), or a
 * status of maildex_message_parts. */
maildex_status_t maildex_message_part_bytes(maildex_message_t *m, int duplicate, int id,
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
