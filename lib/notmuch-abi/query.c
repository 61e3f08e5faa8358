/* SPDX-License-Identifier: GPL-3.0-or-later */
/* query.c: a notmuch query -- its text, syntax, sort, exclusions -- kept as it was set and handed to
 * maildex_query_create only when it runs (notmuch parses lazily too, so a query made or changed on a
 * closed handle is no error until it is run), and its counts. Named queries (query:NAME, and
 * (NAME ...) in S-expressions) come from the handle's config, query.NAME and squery.NAME, as
 * notmuch's do. */
#include "abi.h"

#include <string.h>

notmuch_status_t notmuch_query_create_with_syntax(notmuch_database_t *db, const char *text,
                                                  notmuch_query_syntax_t syntax, notmuch_query_t **out)
{
    notmuch_query_t *q;

    if (out == NULL)
        return NOTMUCH_STATUS_NULL_POINTER;
    *out = NULL;
    q = talloc_zero(db, notmuch_query_t);
    if (q == NULL)
        return NOTMUCH_STATUS_OUT_OF_MEMORY;
    q->db = db;
    q->text = text ? talloc_strdup(q, text) : NULL;
    q->syntax = syntax;
    q->sort = NOTMUCH_SORT_NEWEST_FIRST;
    q->omit = NOTMUCH_EXCLUDE_TRUE;
    q->exclude_tags = talloc_zero_array(q, char *, 1);
    *out = q;
    return q->exclude_tags ? NOTMUCH_STATUS_SUCCESS : NOTMUCH_STATUS_OUT_OF_MEMORY;
}

notmuch_query_t *notmuch_query_create(notmuch_database_t *db, const char *text)
{
    notmuch_query_t *q = NULL;

    return notmuch_query_create_with_syntax(db, text, NOTMUCH_QUERY_SYNTAX_XAPIAN, &q) ? NULL : q;
}

const char *notmuch_query_get_query_string(const notmuch_query_t *q)
{
    return q->text;
}

notmuch_database_t *notmuch_query_get_database(const notmuch_query_t *q)
{
    return q->db;
}

void notmuch_query_set_omit_excluded(notmuch_query_t *q, notmuch_exclude_t omit)
{
    q->omit = omit;
}

void notmuch_query_set_sort(notmuch_query_t *q, notmuch_sort_t sort)
{
    q->sort = sort;
}

notmuch_sort_t notmuch_query_get_sort(const notmuch_query_t *q)
{
    return q->sort;
}

/* notmuch parses the query here (the first time): a query that does not parse answers its error. */
static notmuch_status_t parsed(notmuch_query_t *q)
{
    maildex_query_t *mq = NULL;
    notmuch_status_t st;

    if (q->parsed || q->db->mdb == NULL) /* closed: notmuch's parser needs no database */
        return NOTMUCH_STATUS_SUCCESS;
    st = nm_query_open(q, NOTMUCH_EXCLUDE_FALSE, &mq);
    maildex_query_destroy(mq);
    q->parsed = st == NOTMUCH_STATUS_SUCCESS;
    return st;
}

/* notmuch answers IGNORED when the query names the tag itself; maildex ignores such a tag when the
 * query runs (it is not excluded), and the answer here is SUCCESS either way. */
notmuch_status_t notmuch_query_add_tag_exclude(notmuch_query_t *q, const char *tag)
{
    notmuch_status_t st = parsed(q);
    char **grown;

    if (st)
        return st;
    if (tag == NULL)
        return NOTMUCH_STATUS_NULL_POINTER;
    grown = talloc_realloc(q, q->exclude_tags, char *, q->nexclude + 2);
    if (grown == NULL)
        return NOTMUCH_STATUS_OUT_OF_MEMORY;
    q->exclude_tags = grown;
    q->exclude_tags[q->nexclude++] = talloc_strdup(q->exclude_tags, tag);
    q->exclude_tags[q->nexclude] = NULL;
    return NOTMUCH_STATUS_SUCCESS;
}

void notmuch_query_destroy(notmuch_query_t *q)
{
    talloc_free(q);
}

/* query:NAME and squery NAME: the handle's config. */
static const char *lookup_named(void *data, const char *name, const char *section)
{
    notmuch_database_t *db = data;
    char *key = talloc_asprintf(db, "%s.%s", section, name);
    const char *value = key ? nm_map_get(db->config, key) : NULL;

    talloc_free(key);
    return value;
}

static const char *lookup_query(void *data, const char *name)
{
    return lookup_named(data, name, "query");
}

static const char *lookup_squery(void *data, const char *name)
{
    return lookup_named(data, name, "squery");
}

notmuch_status_t nm_query_open(notmuch_query_t *q, notmuch_exclude_t omit, maildex_query_t **out)
{
    static const maildex_exclude_t exclude[] = {
        [NOTMUCH_EXCLUDE_FLAG] = MAILDEX_EXCLUDE_FLAG, [NOTMUCH_EXCLUDE_TRUE] = MAILDEX_EXCLUDE_TRUE,
        [NOTMUCH_EXCLUDE_FALSE] = MAILDEX_EXCLUDE_FALSE, [NOTMUCH_EXCLUDE_ALL] = MAILDEX_EXCLUDE_ALL};
    maildex_query_options_t opts = MAILDEX_QUERY_OPTIONS_INIT;
    notmuch_database_t *db = q->db;
    const char *text = q->text && *q->text ? q->text : "*";
    maildex_status_t st;

    *out = NULL;
    if (db->mdb == NULL) {
        nm_log(db, "A Xapian exception occurred performing query: Database has been closed\n");
        nm_log_append(db, "Query string was: %s\n", q->text ? q->text : "");
        return NOTMUCH_STATUS_XAPIAN_EXCEPTION;
    }
    /* Message-ID order and no order are had from oldest first (messages.c sorts the first). */
    opts.sort = q->sort == NOTMUCH_SORT_NEWEST_FIRST ? MAILDEX_SORT_NEWEST_FIRST : MAILDEX_SORT_OLDEST_FIRST;
    opts.exclude = (unsigned) omit <= NOTMUCH_EXCLUDE_ALL ? exclude[omit] : MAILDEX_EXCLUDE_TRUE;
    opts.exclude_tags = q->nexclude ? (const char *const *) q->exclude_tags : NULL;
    opts.lookup = lookup_query;
    opts.squery = lookup_squery;
    opts.lookup_data = db;
    opts.syntax = q->syntax == NOTMUCH_QUERY_SYNTAX_SEXP ? MAILDEX_QUERY_SEXP : MAILDEX_QUERY_INFIX;
    st = maildex_query_create(db->mdb, text, &opts, out);
    if (st == MAILDEX_STATUS_QUERY_SYNTAX && q->syntax == NOTMUCH_QUERY_SYNTAX_SEXP) {
        nm_log(db, "%s\n", maildex_db_errmsg(db->mdb));
        return NOTMUCH_STATUS_BAD_QUERY_SYNTAX;
    }
    if (st == MAILDEX_STATUS_QUERY_SYNTAX) {
        nm_log(db, "A Xapian exception occurred parsing query: %s\n", maildex_db_errmsg(db->mdb));
        nm_log_append(db, "Query string was: %s\n", q->text ? q->text : "");
        return NOTMUCH_STATUS_XAPIAN_EXCEPTION;
    }
    if (st != MAILDEX_STATUS_OK) {
        notmuch_status_t nst = nm_error(db, st, "performing query");
        nm_log_append(db, "Query string was: %s\n", q->text ? q->text : "");
        return nst;
    }
    return NOTMUCH_STATUS_SUCCESS;
}

/* count(q) with maildex's count call, the failure recorded as notmuch's. notmuch counts messages with
 * the exclude tags always applied, whatever the query's mode, and threads in the query's mode. */
static notmuch_status_t count(notmuch_query_t *q, maildex_status_t (*fn)(maildex_query_t *, uint64_t *),
                              unsigned int *out)
{
    maildex_query_t *mq = NULL;
    uint64_t n = 0;
    notmuch_status_t st =
        nm_query_open(q, fn == maildex_query_count_messages ? NOTMUCH_EXCLUDE_TRUE : q->omit, &mq);
    maildex_status_t mst;

    if (st == NOTMUCH_STATUS_SUCCESS && (mst = fn(mq, &n)) != MAILDEX_STATUS_OK) {
        st = nm_error(q->db, mst, "performing query");
        nm_log_append(q->db, "Query string was: %s\n", q->text ? q->text : "");
    }
    maildex_query_destroy(mq);
    if (st == NOTMUCH_STATUS_SUCCESS)
        *out = (unsigned int) n;
    return st;
}

notmuch_status_t notmuch_query_count_messages(notmuch_query_t *q, unsigned int *out)
{
    return count(q, maildex_query_count_messages, out);
}

notmuch_status_t notmuch_query_count_messages_st(notmuch_query_t *q, unsigned int *out)
{
    return count(q, maildex_query_count_messages, out);
}

notmuch_status_t notmuch_query_count_threads(notmuch_query_t *q, unsigned int *out)
{
    return count(q, maildex_query_count_threads, out);
}

notmuch_status_t notmuch_query_count_threads_st(notmuch_query_t *q, unsigned int *out)
{
    return count(q, maildex_query_count_threads, out);
}
