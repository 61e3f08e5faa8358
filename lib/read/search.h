/* SPDX-License-Identifier: GPL-3.0-or-later */
/* search.h: what the query API's files share, and nobody outside them: the query object, the message
 * object, and the statements they prepare from its plan. search.c has the query, its messages, counts
 * and tags; threads.c its threads and their summaries; thread-tree.c arranges a thread's
 * messages as show prints them; show.c reads a message's file; query/suggest.c the "did you mean". Nothing
 * here is API, and nothing here builds SQL from user text. */
#ifndef MAILDEX_SEARCH_H
#define MAILDEX_SEARCH_H

#include "store/maildex-private.h"
#include "query/plan.h"

#include <glib.h>
#include <string.h>

struct maildex_query {
    maildex_db_t *db;
    struct maildex__plan *plan;
    enum maildex__exclude_mode exclude;
    bool oldest_first;
    uint64_t offset;
    int64_t limit;
    const char **tags; /* maildex_query_tags' result, cached */
    bool everything;   /* the text was "*": its tags are every tag in use (see maildex_query_tags) */
    maildex_parts_prefetch_t *prefetch; /* the read-ahead of its messages' files, when one runs */
};

/* The statements that read a message's files and tags: prepared on first use, owned by owner (a
 * message iterator, or a thread), shared by its messages. */
struct maildex__message_stmts {
    void *owner;
    sqlite3_stmt *files, *tags;
};

struct maildex_message {
    maildex_query_t *q;
    struct maildex__message_stmts *stmts;
    int64_t key;
    const char *message_id;
    uint64_t thread;
    int64_t date;
    bool matched, excluded;
    bool ghost; /* maildex_db_find_message's message of a Message-ID only References name */
    const char **files, **tags;
    maildex_pair_t *properties;
    char **headers; /* its first readable file's headers, pairs name, value (maildex_message_header) */
    /* A thread's message (maildex_thread_toplevel_messages): the parent chosen when it was indexed
     * (NULL for none), its replies and its depth below the message it hangs from (thread-tree.c). */
    const char *parent;
    maildex_message_t **replies;
    size_t nreplies;
    size_t depth;
};

/* Sets *ids to the ids m's References and In-Reply-To name (its own excluded), sorted bytewise, NULL-
 * terminated, on ctx. */
typedef maildex_status_t maildex__references_fn(void *data, void *ctx, maildex_message_t *m,
                                                char ***ids);

/* notmuch 0.37's _resolve_thread_relationships (lib/thread.cc) over a thread's messages, oldest
 * first (list[0..n)): fills their replies (on each message) and sets *toplevel to the top-level
 * messages, NULL-terminated, on ctx; the references of the messages that need them (those whose
 * parent is not in the thread) come from refs. Returns OK, NO_MEMORY or refs' status. */
maildex_status_t maildex__thread_arrange(void *ctx, maildex_message_t **list, size_t n,
                                         maildex__references_fn *refs, void *data,
                                         maildex_message_t ***toplevel);

/* The references callback of maildex__thread_arrange that show uses (data: the maildex_db_t): the
 * ids read from the first of m's files that can be read (thread-tree.c); none when no file can. */
maildex_status_t maildex__references_of_file(void *data, void *ctx, maildex_message_t *m, char ***ids);

/* Prepares sql as a statement owned by ctx (finalized when ctx goes), with the plan's values bound
 * when plan is not NULL. Returns MAILDEX_STATUS_OK and sets *out, or a status with the message on db. */
maildex_status_t maildex__search_prepare(void *ctx, maildex_db_t *db, const char *sql,
                                         const struct maildex__plan *plan, sqlite3_stmt **out);

/* The status of a statement that failed to step, with SQLite's real error recorded on db. */
maildex_status_t maildex__search_step_error(maildex_db_t *db, sqlite3_stmt *stmt);

/* Bytewise, as notmuch sorts tags (strcmp), for g_ptr_array_sort. */
static inline gint maildex__strptr_cmp(gconstpointer a, gconstpointer b)
{
    return strcmp(*(const char *const *) a, *(const char *const *) b);
}

#endif
