/* SPDX-License-Identifier: GPL-3.0-or-later */
/* threads.c: notmuch_threads_t streams a query's threads from maildex's iterator, one ahead;
 * notmuch_threads_get builds a thread object the way notmuch's does, all at once: the summary (id,
 * counts, authors, subject, dates, tags) and every message of the thread with its tags and files,
 * arranged as replies, so that a thread, its messages and their replies stay whole after the handle
 * closes. Its messages are children of the thread; the message lists point at them. */
#include "abi.h"

#include <glib.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

struct thread_stream {
    notmuch_database_t *db;
    unsigned generation;
    maildex_query_t *mq;
    maildex_threads_t *it;
    maildex_thread_t *current; /* NULL at the end */
};

struct _notmuch_threads {
    notmuch_database_t *db;
    notmuch_query_t *query;
    struct thread_stream *stream;
};

struct _notmuch_thread {
    notmuch_database_t *db;
    char *id, *authors, *subject;
    time_t oldest, newest;
    int total, matched, files;
    char **tags;
    notmuch_message_t **messages, **toplevel; /* NULL-terminated */
    size_t nmessages, ntoplevel;
};

static int stream_destructor(struct thread_stream *s)
{
    if (nm_live(s->db, s->generation))
        maildex_query_destroy(s->mq);
    return 0;
}

notmuch_status_t notmuch_query_search_threads(notmuch_query_t *q, notmuch_threads_t **out)
{
    notmuch_threads_t *threads = talloc_zero(q, notmuch_threads_t);
    struct thread_stream *s = threads ? talloc_zero(threads, struct thread_stream) : NULL;
    notmuch_status_t st = s ? NOTMUCH_STATUS_SUCCESS : NOTMUCH_STATUS_OUT_OF_MEMORY;
    maildex_status_t mst;

    *out = NULL;
    if (st == NOTMUCH_STATUS_SUCCESS)
        st = nm_query_open(q, q->omit, &s->mq);
    if (st == NOTMUCH_STATUS_SUCCESS) {
        threads->db = s->db = q->db;
        threads->query = q;
        s->generation = q->db->generation;
        threads->stream = s;
        talloc_set_destructor(s, stream_destructor);
        mst = maildex_query_search_threads(s->mq, &s->it);
        if (mst == MAILDEX_STATUS_OK)
            mst = maildex_threads_next(s->it, &s->current);
        if (mst != MAILDEX_STATUS_OK)
            st = nm_error(q->db, mst, "performing query");
    }
    if (st != NOTMUCH_STATUS_SUCCESS)
        talloc_free(threads);
    else
        *out = threads;
    return st;
}

notmuch_status_t notmuch_query_search_threads_st(notmuch_query_t *q, notmuch_threads_t **out)
{
    return notmuch_query_search_threads(q, out);
}

notmuch_bool_t notmuch_threads_valid(notmuch_threads_t *threads)
{
    return threads && threads->stream->current != NULL && nm_live(threads->db, threads->stream->generation);
}

void notmuch_threads_move_to_next(notmuch_threads_t *threads)
{
    maildex_status_t st;

    if (!notmuch_threads_valid(threads))
        return;
    st = maildex_threads_next(threads->stream->it, &threads->stream->current);
    if (st != MAILDEX_STATUS_OK)
        nm_error(threads->db, st, "iterating over threads");
}

void notmuch_threads_destroy(notmuch_threads_t *threads)
{
    talloc_free(threads);
}

/* The thread's messages as objects of ours (children of t), in maildex's order (oldest first), and
 * the same objects for the top level and the replies. */
static notmuch_status_t build_messages(notmuch_thread_t *t, maildex_thread_t *mt)
{
    maildex_message_t *const *all, *const *top;
    maildex_status_t mst = maildex_thread_messages(mt, &all);
    notmuch_status_t st = NOTMUCH_STATUS_SUCCESS;
    GHashTable *ours;

    if (mst == MAILDEX_STATUS_OK)
        mst = maildex_thread_toplevel_messages(mt, &top);
    if (mst != MAILDEX_STATUS_OK)
        return nm_error(t->db, mst, "building a thread");
    while (all[t->nmessages])
        t->nmessages++;
    t->messages = talloc_zero_array(t, notmuch_message_t *, t->nmessages + 1);
    ours = g_hash_table_new(NULL, NULL);
    for (size_t i = 0; t->messages && st == NOTMUCH_STATUS_SUCCESS && i < t->nmessages; i++) {
        notmuch_message_t *msg = t->messages[i] = nm_message_new(t, t->db, maildex_message_id(all[i]), true);
        if (msg == NULL)
            break;
        nm_message_fill(msg, all[i], true);
        st = nm_message_copy_lists(msg, all[i]);
        g_hash_table_insert(ours, all[i], msg);
    }
    if (t->messages == NULL || (t->nmessages && t->messages[t->nmessages - 1] == NULL))
        st = NOTMUCH_STATUS_OUT_OF_MEMORY;
    for (size_t i = 0; st == NOTMUCH_STATUS_SUCCESS && i < t->nmessages; i++) {
        maildex_message_t *const *replies = maildex_message_replies(all[i]);
        notmuch_message_t *msg = t->messages[i];
        while (replies[msg->nreplies])
            msg->nreplies++;
        msg->replies = talloc_array(msg, notmuch_message_t *, msg->nreplies + 1);
        for (size_t r = 0; msg->replies && r <= msg->nreplies; r++)
            msg->replies[r] = r < msg->nreplies ? g_hash_table_lookup(ours, replies[r]) : NULL;
    }
    while (top[t->ntoplevel])
        t->ntoplevel++;
    t->toplevel = talloc_array(t, notmuch_message_t *, t->ntoplevel + 1);
    for (size_t i = 0; t->toplevel && i <= t->ntoplevel; i++)
        t->toplevel[i] = i < t->ntoplevel ? g_hash_table_lookup(ours, top[i]) : NULL;
    g_hash_table_destroy(ours);
    return st == NOTMUCH_STATUS_SUCCESS && t->toplevel == NULL ? NOTMUCH_STATUS_OUT_OF_MEMORY : st;
}

/* notmuch's oldest and newest dates (_thread_add_matched_message): over the matched messages, oldest
 * first, each taken while no matched message that is not excluded has been seen yet, else only when
 * it is older (newer) -- so with NOTMUCH_EXCLUDE_FLAG the oldest date is that of the first match not
 * excluded. */
static void set_dates(notmuch_thread_t *t)
{
    int counted = 0;

    for (size_t i = 0; i < t->nmessages; i++) {
        notmuch_message_t *msg = t->messages[i];
        if (!(msg->flags & (1u << NOTMUCH_MESSAGE_FLAG_MATCH)))
            continue;
        if (counted == 0 || msg->date < t->oldest)
            t->oldest = msg->date;
        if (counted == 0 || msg->date > t->newest)
            t->newest = msg->date;
        if (!(msg->flags & (1u << NOTMUCH_MESSAGE_FLAG_EXCLUDED)))
            counted++;
    }
}

/* As notmuch's, a thread belongs to the query: it outlives the iterator that handed it out. */
static notmuch_thread_t *build_thread(notmuch_threads_t *threads, maildex_thread_t *mt)
{
    notmuch_thread_t *t = talloc_zero(threads->query, notmuch_thread_t);
    const char *const *tags = maildex_thread_tags(mt);
    size_t n = 0;

    if (t == NULL)
        return NULL;
    t->db = threads->db;
    t->id = talloc_asprintf(t, "%016" PRIx64, maildex_thread_id(mt));
    t->authors = talloc_strdup(t, maildex_thread_authors(mt));
    t->subject = talloc_strdup(t, maildex_thread_subject(mt));
    t->total = maildex_thread_total(mt);
    t->matched = maildex_thread_matched(mt);
    t->files = maildex_thread_files(mt);
    while (tags[n])
        n++;
    t->tags = talloc_array(t, char *, n + 1);
    for (size_t i = 0; t->tags && i <= n; i++)
        t->tags[i] = i < n ? talloc_strdup(t->tags, tags[i]) : NULL;
    if (build_messages(t, mt) != NOTMUCH_STATUS_SUCCESS) {
        talloc_free(t);
        return NULL;
    }
    set_dates(t);
    return t;
}

notmuch_thread_t *notmuch_threads_get(notmuch_threads_t *threads)
{
    return notmuch_threads_valid(threads) ? build_thread(threads, threads->stream->current) : NULL;
}

const char *notmuch_thread_get_thread_id(notmuch_thread_t *t)
{
    return t->id;
}

int notmuch_thread_get_total_messages(notmuch_thread_t *t)
{
    return t->total;
}

int notmuch_thread_get_total_files(notmuch_thread_t *t)
{
    return t->files;
}

int notmuch_thread_get_matched_messages(notmuch_thread_t *t)
{
    return t->matched;
}

notmuch_messages_t *notmuch_thread_get_toplevel_messages(notmuch_thread_t *t)
{
    return nm_messages_list(t, t->db, t->toplevel, t->ntoplevel);
}

notmuch_messages_t *notmuch_thread_get_messages(notmuch_thread_t *t)
{
    return nm_messages_list(t, t->db, t->messages, t->nmessages);
}

const char *notmuch_thread_get_authors(notmuch_thread_t *t)
{
    return t->authors;
}

const char *notmuch_thread_get_subject(notmuch_thread_t *t)
{
    return t->subject;
}

time_t notmuch_thread_get_oldest_date(notmuch_thread_t *t)
{
    return t->oldest;
}

time_t notmuch_thread_get_newest_date(notmuch_thread_t *t)
{
    return t->newest;
}

notmuch_tags_t *notmuch_thread_get_tags(notmuch_thread_t *t)
{
    return nm_tags_new(t, (const char *const *) t->tags, (size_t) -1);
}

void notmuch_thread_destroy(notmuch_thread_t *t)
{
    talloc_free(t);
}
