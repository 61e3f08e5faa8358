/* search.h: what the query API's files share, and nobody outside them: the query object, and the
 * statements they prepare from its plan. search.c has the query, its messages, counts and tags;
 * search-threads.c its threads and their summaries; suggest.c the "did you mean". Nothing here is
 * API, and nothing here builds SQL from user text. */
#ifndef MAILDEX_SEARCH_H
#define MAILDEX_SEARCH_H

#include "maildex-private.h"
#include "query-plan.h"

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
};

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
