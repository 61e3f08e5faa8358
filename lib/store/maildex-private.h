/* SPDX-License-Identifier: GPL-3.0-or-later */
/* maildex-private.h: what the library's files share and nobody outside lib/ may see: the database
 * struct, the sticky-status helpers and the embedded migrations. Nothing here is API. */
#ifndef MAILDEX_PRIVATE_H
#define MAILDEX_PRIVATE_H

#include "maildex.h"
#include "stmt.h"

#include <glib.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <talloc.h>

struct maildex_db {
    sqlite3 *sql;
    char *path;
    char *mail_root;
    maildex_db_mode_t mode;
    char *errmsg;                         /* talloc child; "" when there is none */
    char *uuid;                           /* read lazily */
    char *config_value;                   /* last maildex_db_config_get result */
    maildex_pair_t *config_pairs;         /* last maildex_db_config_list result */
    bool reading;                         /* in maildex_db_begin_read's transaction */
    sqlite3_stmt *stmts[MAILDEX__STMT_COUNT]; /* the statement cache (stmt.c) */
    int in_transaction;                   /* nesting depth of maildex__begin */
    int revision_bumped;                  /* this transaction already bumped meta.revision */
    int64_t revision;                     /* ... to this value */
    struct maildex__joined *participants; /* by rank (transaction.c) */
    size_t nparticipants;
    struct maildex__fts_shared *fts;      /* the tokenizer's state on this connection */
    void (*waiting)(void *data, const char *what); /* maildex_db_set_waiting */
    void *waiting_data;
    int busy_ms;                          /* time the current busy wait has slept so far */
    int busy_timeout_ms;                  /* how long a write waits for SQLite's write lock */
    int indexer_wait_ms;                  /* how long an indexer waits for another (writer-lock.c) */
    int turn_fd;                          /* "<database>-writer", or -1 (writer-lock.c) */
    bool turn_failed;                     /* ... it could not be opened: not tried again */
    bool turn_announced;                  /* this handle holds a shared lock on it: waiting */
    int64_t side_steps;                   /* VM steps and pages of the side reads of this handle's */
    int64_t side_pages;                   /* queries (query/side-read.c): work bounds count them too */
    maildex_pair_t *user_fields;          /* maildex_db_set_user_fields, ended by NULLs; NULL for none */
    atomic_int cancel;                    /* 0 or a maildex_cancel_t: maildex_db_cancel (host.c) */
    GHashTable *changed_threads;          /* threads the running maildex_index changed, when its
                                             host asked (maildex__thread_changed); else NULL */
};

/* How long writers wait for each other (maildex.h, maildex_db_set_waiting, says so): a write for
 * SQLite's write lock, an indexer for another indexer. A handle's own values may be shortened (tests). */
#define MAILDEX__WRITE_WAIT_MS 60000
#define MAILDEX__INDEXER_WAIT_MS 600000

/* The indexer lock (writer-lock.c). */
struct maildex__writer_lock {
    int fd;
    bool held;
};

/* A message's key: its date in seconds times 2^20 plus a tie-break (sql/0001-schema.sql), so that key
 * order is date order. Dates are clamped to [0, 2^42) before they become keys. */
#define MAILDEX__KEY_SHIFT 20
static inline int64_t maildex__key_of_date(int64_t date)
{
    return date * ((int64_t) 1 << MAILDEX__KEY_SHIFT);
}

/* sql/NNNN-name.sql, compiled in by sql/embed.awk. */
struct maildex__migration {
    int version;
    const char *name;
    const char *sql;
};
extern const struct maildex__migration maildex__migrations[];
extern const int maildex__migration_count;

/* Every message key q matches (offset and limit do not apply), appended to keys (GArray of int64_t)
 * in no particular order; and the database q belongs to. */
maildex_status_t maildex__query_keys(maildex_query_t *q, GArray *keys);
maildex_db_t *maildex__query_db(maildex_query_t *q);

/* In the caller's write transaction (tag/tag-query.c): ops applied to one message as maildex_query_tag
 * applies them (flags: MAILDEX_TAG_*, the MAILDEX_TAG_MAX rule included), and the renames that
 * give its files the flags of its tags, recorded for after the commit (message/renames.c). */
maildex_status_t maildex__message_tag_ops(maildex_db_t *db, int64_t key, const maildex_tag_op_t *ops,
                                          size_t nops, unsigned flags, bool *changed);
maildex_status_t maildex__message_files_follow_tags(maildex_db_t *db, int64_t key);

/* Applies every migration newer than the database's user_version, each in its own transaction. */
maildex_status_t maildex__migrate(maildex_db_t *db);

/* Records a formatted message as db's error message and returns status, so callers can write
 * `return maildex__error(db, MAILDEX_STATUS_DATABASE_ERROR, "cannot ...: %s", ...)`. */
maildex_status_t maildex__error(maildex_db_t *db, maildex_status_t status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Maps a SQLite result code to a status, recording sqlite3_errmsg with context as the error message. */
maildex_status_t maildex__sql_error(maildex_db_t *db, int rc, const char *context);

/* Records the one message for a damaged database file (reason says what is wrong) and returns
 * MAILDEX_STATUS_DATABASE_CORRUPT. */
maildex_status_t maildex__corrupt(maildex_db_t *db, const char *reason);

/* Write transactions. begin is BEGIN IMMEDIATE (so the busy timeout applies at the start, not at the
 * first write); nested calls only count. commit/rollback end the outermost one, calling the
 * participants' hooks (below). */
maildex_status_t maildex__begin(maildex_db_t *db);
maildex_status_t maildex__commit(maildex_db_t *db);
void maildex__rollback(maildex_db_t *db);

/* A participant in the handle's write transactions: a module above the store that holds work until
 * the outermost commit (rows it writes in one go, counts it sums in memory) or owes work after it.
 * It joins a handle the first time it holds something there, and the handle keeps state for it and
 * calls it back without naming it. Every hook may be NULL; no hook may join or leave.
 *   before_commit:  just before COMMIT, inside the transaction: writes what is held. A failure rolls
 *                   the transaction back (every after_rollback runs) and is the commit's status.
 *   after_commit:   once COMMIT succeeded: work the commit owes (it may run write transactions of
 *                   its own). It cannot fail the commit.
 *   after_rollback: after ROLLBACK: forgets what was held for the transaction.
 *   close:          when the handle closes (or the participant leaves), before the handle's other
 *                   children are freed, with the connection still open: releases what state holds
 *                   (the handle frees state itself).
 * Hooks run in ascending rank, whatever order the participants joined in: the README of the folder
 * the participants live in lists the ranks in use and why they come in that order. */
struct maildex__participant {
    const char *name;
    int rank;
    maildex_status_t (*before_commit)(maildex_db_t *db, void *state);
    void (*after_commit)(maildex_db_t *db, void *state);
    void (*after_rollback)(maildex_db_t *db, void *state);
    void (*close)(void *state);
};

/* p's state on db: size bytes, zeroed when made, owned by db. The first call registers p with db's
 * transactions (p must outlive db: a static) and makes the state; later calls return the same
 * state. NULL when memory ran out (db's error says so). */
void *maildex__participant_join(maildex_db_t *db, const struct maildex__participant *p, size_t size);

/* The state p joined db with, or NULL when p has not joined db. */
void *maildex__participant_state(maildex_db_t *db, const struct maildex__participant *p);

/* p leaves db: its close hook runs and its state is freed. Nothing when p has not joined. */
void maildex__participant_leave(maildex_db_t *db, const struct maildex__participant *p);

/* Every participant of db leaves, highest rank first (maildex_db_close). */
void maildex__participants_close(maildex_db_t *db);

/* Bumps meta.revision once per write transaction and returns the new revision in *revision. */
maildex_status_t maildex__bump_revision(maildex_db_t *db, int64_t *revision);

/* Steps a statement that returns no rows we need (or whose first row is enough) and resets it.
 * Returns OK, or the real error from sqlite3_reset recorded with context. */
maildex_status_t maildex__step_done(maildex_db_t *db, sqlite3_stmt *stmt, const char *context);

/* Steps once: *has_row tells whether a row is ready to read. The caller resets the statement (the
 * next maildex__stmt() does). */
maildex_status_t maildex__step_row(maildex_db_t *db, sqlite3_stmt *stmt, bool *has_row,
                                   const char *context);

/* Runs a cached statement that takes integer parameters: a is bound to ?1 and b to ?2 when the
 * statement has them. Returns OK or the error recorded with context. */
maildex_status_t maildex__run_ids(maildex_db_t *db, maildex__stmt_id_t id, int64_t a, int64_t b,
                                  const char *context);

/* Runs a cached statement with one text parameter and sets *value to the first column of its first
 * row, or to 0 when there is none (message keys, thread and tag ids are never 0). */
maildex_status_t maildex__lookup_id(maildex_db_t *db, maildex__stmt_id_t id, const char *text,
                                    int64_t *value);

/* Runs a cached statement with one integer parameter and sets *value to the first column of its first
 * row, or to 0 when there is none. */
maildex_status_t maildex__lookup_int(maildex_db_t *db, maildex__stmt_id_t id, int64_t key,
                                     int64_t *value);

/* Sets *id to the row a cached look-up (text bound to ?1, id in column 0) finds, inserting it with a
 * cached insert (text bound to ?1) first when there is none: tags and folders. */
maildex_status_t maildex__find_or_create(maildex_db_t *db, maildex__stmt_id_t find,
                                         maildex__stmt_id_t create, const char *text, int64_t *id);

/* Commits the write transaction and begins the next one: how a long write (new, tag, reindex) ends
 * a batch, so that its dirty pages and other writers' waits stay bounded. */
maildex_status_t maildex__commit_and_begin(maildex_db_t *db);

/* The revision this write transaction stamps on what it changes (bumping meta.revision on the
 * first call in a transaction). */
maildex_status_t maildex__current_revision(maildex_db_t *db, int64_t *revision);

/* Creates (once per connection) the temp.maildex_vocab fts5vocab table over fts ("row" kind), the
 * word list behind full-text estimates and "did you mean". */
maildex_status_t maildex__vocab_ensure(maildex_db_t *db);

/* Copies the write-ahead log into the database and empties it, as far as that is possible without
 * waiting for anyone (readers keep what they read; the rest waits for the next checkpoint). */
void maildex__checkpoint(maildex_db_t *db);

/* Tells the host, through maildex_db_set_waiting, that a write is waiting: what says for whom. */
void maildex__waiting(maildex_db_t *db, const char *what);

/* How far db's work has been cancelled (maildex_db_cancel): 0, MAILDEX_CANCEL_BATCH or
 * MAILDEX_CANCEL_ALL. Any thread may ask; the token only ever grows. */
static inline int maildex__cancelled(maildex_db_t *db)
{
    return atomic_load(&db->cancel);
}

/* Takes the indexer lock of db, waiting (and saying so through maildex__waiting, with what
 * naming the activity, e.g. "indexing") for another process that holds it, until it is free,
 * db is cancelled (MAILDEX_STATUS_INTERRUPTED) or db->indexer_wait_ms have passed
 * (MAILDEX_STATUS_DATABASE_BUSY). The lock is a child of db; release it with
 * maildex__writer_unlock, or it goes with db. */
maildex_status_t maildex__writer_lock(maildex_db_t *db, const char *what,
                                      struct maildex__writer_lock **out);
void maildex__writer_unlock(struct maildex__writer_lock *lock);

/* maildex_db_compact, trying unlocked_tries times to copy without holding the write lock before
 * copying with it held (compact.c; the tests reach both ways through it). */
maildex_status_t maildex__compact(maildex_db_t *db, const char *backup_path, int unlocked_tries,
                                  uint64_t *size_before, uint64_t *size_after);

/* The write turn (writer-lock.c), all best effort. maildex__begin calls turn_begun after its BEGIN
 * IMMEDIATE returns (taken: it succeeded, so this process's pid is recorded as the writer's);
 * commit and rollback call turn_ending just before they end the transaction. The busy handler calls
 * turn_waiting when a write starts to wait (a shared lock that says so until turn_begun) and
 * turn_waiting_message for what to tell the host ("waiting for another maildex writer (pid N)",
 * talloc'd on db). maildex__commit_and_begin calls turn_yield between its commit and its begin: it
 * returns once every writer that was waiting has had its turn (at most a second). turn_close closes
 * the file with the handle. */
void maildex__turn_begun(maildex_db_t *db, bool taken);
void maildex__turn_ending(maildex_db_t *db);
void maildex__turn_waiting(maildex_db_t *db);
char *maildex__turn_waiting_message(maildex_db_t *db);
void maildex__turn_yield(maildex_db_t *db);
void maildex__turn_close(maildex_db_t *db);

/* The integer a one-row PRAGMA answers on sql (any connection), into *value; returns an SQLite result
 * code (db.c). */
int maildex__pragma_int(sqlite3 *sql, const char *pragma, int64_t *value);

/* Executes SQL without results (schema, pragmas). Not for anything that holds user text. */
maildex_status_t maildex__exec(maildex_db_t *db, const char *sql);

#endif
