/* SPDX-License-Identifier: GPL-3.0-or-later */
/* abi.h: what the files of libnotmuch.so.5 share, and nobody else: notmuch's opaque objects as this
 * library builds them on maildex.h, and the helpers every file uses (the status string, the closed
 * database, the config map). Nothing here may include a private header of libmaildex or hold SQL:
 * the library reaches the store through maildex.h alone.
 *
 * Ownership follows notmuch's (talloc): the database is the root; queries hang off it, iterators off
 * their query, messages off their iterator or thread; per-object destroy calls free memory sooner.
 * maildex's own objects (queries, iterators, messages) hang off the maildex handle instead, which
 * notmuch_database_close frees: an object of ours that holds one records the handle's generation and
 * touches it only while that generation is current (nm_live). */
#ifndef MAILDEX_NOTMUCH_ABI_H
#define MAILDEX_NOTMUCH_ABI_H

#include "maildex.h"

#include <notmuch.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <talloc.h>

/* ---- the config map (config-map.c) ---------------------------------------------------------------- */

/* notmuch's string map: keys in bytewise order, a key may hold several values (database config is
 * appended), the first one answers a look-up. */
struct nm_pair {
    char *key, *value;
};
struct nm_map {
    struct nm_pair *pairs;
    size_t n;
};

struct nm_map *nm_map_create(void *ctx);
/* Replaces the first value of key, or adds it. A NULL value is kept as NULL. */
void nm_map_set(struct nm_map *map, const char *key, const char *value);
/* Adds another value of key after those it has. */
void nm_map_append(struct nm_map *map, const char *key, const char *value);
/* The first value of key, or NULL. */
const char *nm_map_get(const struct nm_map *map, const char *key);
/* The index of the first pair whose key is >= prefix. */
size_t nm_map_lower_bound(const struct nm_map *map, const char *prefix);

/* ---- the database (database*.c) ------------------------------------------------------------------- */

/* What notmuch_database_open_with_config was handed (notmuch's NOTMUCH_PARAM_*): a database path
 * given by the caller is not overridden by the config's database.path. */
enum {
    NM_PARAM_DATABASE = 1 << 0,
    NM_PARAM_CONFIG = 1 << 1,
    NM_PARAM_PROFILE = 1 << 2,
    NM_PARAM_SPLIT = 1 << 3, /* the database lives apart from the mail (database.path holds no mail) */
};

struct _notmuch_database {
    maildex_db_t *mdb;              /* NULL once closed (or for a config without a database) */
    unsigned generation;            /* bumped whenever mdb is closed or replaced */
    notmuch_database_mode_t mode;
    bool open;                      /* notmuch's flag: false after notmuch_database_close */
    char *path;                     /* notmuch's database path, without a trailing '/' */
    char *db_file;                  /* maildex's database file for it */
    char *config_path;              /* the config file read, or NULL */
    char *profile;                  /* as given, or NULL */
    char *status_string;            /* the last message, or NULL */
    struct nm_map *config;
    unsigned params;
    int atomic_nesting;
    bool atomic_begun;              /* the outermost section began a maildex atomic section */
    char *uuid;                     /* the revision as last read (a closed handle answers it) */
    unsigned long revision;
};

/* Whether maildex objects made under generation are still alive (the handle not closed since). */
static inline bool nm_live(const notmuch_database_t *db, unsigned generation)
{
    return db->mdb != NULL && db->generation == generation;
}

/* Replaces the database's status string (printf-style). */
void nm_log(notmuch_database_t *db, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends to it. */
void nm_log_append(notmuch_database_t *db, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The status of a failure of the maildex handle, with its message recorded as notmuch records a
 * Xapian exception: "A Xapian exception occurred <what>: <maildex's message>". */
notmuch_status_t nm_error(notmuch_database_t *db, maildex_status_t st, const char *what);

/* Reads need the handle: returns NOTMUCH_STATUS_SUCCESS, or XAPIAN_EXCEPTION with notmuch's
 * "A Xapian exception occurred <what>: Database has been closed." recorded. where names the place
 * the way notmuch's message does ("at directory.cc"), or NULL for the short form. */
notmuch_status_t nm_readable(notmuch_database_t *db, const char *what);

/* Writes need an open read-write handle: SUCCESS, READ_ONLY_DATABASE ("Cannot write to a read-only
 * database.") or CLOSED_DATABASE ("Cannot write to a closed database."). */
notmuch_status_t nm_writable(notmuch_database_t *db);

/* notmuch's absolute path of a file named relative to the mail root, or as given when absolute; on
 * ctx. */
char *nm_mail_path(void *ctx, notmuch_database_t *db, const char *path);

/* ---- queries (query.c) ------------------------------------------------------------------------------ */

struct _notmuch_query {
    notmuch_database_t *db;
    char *text;
    notmuch_query_syntax_t syntax;
    notmuch_sort_t sort;
    notmuch_exclude_t omit;
    char **exclude_tags; /* NULL-terminated */
    size_t nexclude;
    bool parsed;         /* its text parsed once (add_tag_exclude checks, as notmuch parses there) */
};

/* The maildex query for q (its text, sort, exclusions in mode omit), a child of the maildex handle;
 * records the failure as notmuch does ("... performing query" plus "Query string was: ...") and
 * returns its status. */
notmuch_status_t nm_query_open(notmuch_query_t *q, notmuch_exclude_t omit, maildex_query_t **out);

/* ---- messages (message*.c, messages.c) ------------------------------------------------------------- */

struct _notmuch_message {
    notmuch_database_t *db;
    char *id;
    bool loaded;           /* its metadata counts as read (notmuch reads it on first use) */
    bool ghost;
    char *thread_id;       /* 16 hex digits */
    time_t date;
    unsigned flags;        /* 1 << notmuch_message_flag_t */
    char **tags;           /* sorted, NULL-terminated; NULL until read */
    char **files;          /* NULL-terminated; NULL until read */
    maildex_pair_t *properties; /* sorted, ended by NULLs; NULL until read */
    struct nm_map *headers; /* what was read of its file, by name */
    notmuch_message_t **replies; /* a thread's message: NULL-terminated */
    size_t nreplies;
    int frozen;
    bool frozen_changed;   /* tags changed while frozen: written at the last thaw */
    struct nm_removal *removals; /* property removals held until the next write (properties.c) */
    size_t nremovals;
    maildex_message_t *found;  /* maildex's message for reading more of it, once looked up */
    unsigned found_generation;
};

/* A message object for message_id, on ctx; loaded says whether its metadata counts as read. */
notmuch_message_t *nm_message_new(void *ctx, notmuch_database_t *db, const char *message_id, bool loaded);

/* Copies what the maildex message m says of itself into msg: thread, date, ghost, excluded and, for a
 * thread's message (in_thread), matched. */
void nm_message_fill(notmuch_message_t *msg, maildex_message_t *m, bool in_thread);

/* Copies m's tags and files into msg (read now, while m is at hand). */
notmuch_status_t nm_message_copy_lists(notmuch_message_t *msg, maildex_message_t *m);

/* maildex's message behind msg, looked up by Message-ID once and kept (msg->found); what names the
 * reading for a failure's message. SUCCESS with *out NULL for a message no longer in the store;
 * XAPIAN_EXCEPTION on a closed handle. */
notmuch_status_t nm_message_source(notmuch_message_t *msg, const char *what, maildex_message_t **out);

/* Forgets what was read of msg in the store (its properties; with lists, its tags and files too)
 * after a change the store made to them: they are read again when asked. */
void nm_message_forget(notmuch_message_t *msg, bool lists);

/* Writes what msg holds back: the property removals notmuch_message_remove_all_properties made on
 * the object only (notmuch 0.37 writes them with the message's next change). Every change through msg
 * calls it first. */
notmuch_status_t nm_message_flush(notmuch_message_t *msg);

/* Reads msg's metadata, tags, files (once). Return a notmuch status (XAPIAN_EXCEPTION when the
 * handle is closed and it was never read). */
notmuch_status_t nm_message_load(notmuch_message_t *msg);
notmuch_status_t nm_message_load_tags(notmuch_message_t *msg);
notmuch_status_t nm_message_load_files(notmuch_message_t *msg);

/* A message iterator: a query's streams (messages.c), a list points at messages that belong to
 * someone else (a thread). */
struct nm_stream;
struct _notmuch_messages {
    notmuch_database_t *db;
    struct nm_stream *stream; /* a query's; NULL for a list */
    notmuch_message_t **list;
    size_t n, pos;
};

/* A message iterator over list[0..n), on ctx (lists.c). */
notmuch_messages_t *nm_messages_list(void *ctx, notmuch_database_t *db, notmuch_message_t **list, size_t n);

/* ---- tags and filenames (tags.c, filenames.c) ------------------------------------------------------ */

/* A tags iterator over a copy of list (n strings, or NULL-terminated when n is (size_t) -1). */
notmuch_tags_t *nm_tags_new(void *ctx, const char *const *list, size_t n);
notmuch_filenames_t *nm_filenames_new(void *ctx, const char *const *list, size_t n);

/* ---- indexing options (indexopts.c) -------------------------------------------------------------- */

struct _notmuch_indexopts {
    notmuch_decryption_policy_t decrypt;
};

/* The policy in maildex's terms; NULL options: the handle's default (index.decrypt), which the
 * caller reads with notmuch_database_get_default_indexopts. */
maildex_decrypt_t nm_decrypt_policy(const notmuch_indexopts_t *opts);

#endif
