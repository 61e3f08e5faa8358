/* SPDX-License-Identifier: GPL-3.0-or-later */
/* messages.c: notmuch_messages_t, in two kinds. A query's streams from maildex's iterator, one result
 * ahead (notmuch_messages_valid must know whether there is one); each notmuch_messages_get makes a
 * new message object, a child of the iterator as in notmuch, that copies what the result says of
 * itself and its tags and files while maildex's message is at hand. A list (a thread's messages, a
 * message's replies, a query sorted by Message-ID) only points at messages that belong to someone
 * else. The maildex query and iterator hang off the maildex handle: they are touched only while it
 * is the one they were made on (nm_live). */
#include "abi.h"

#include <stdlib.h>
#include <string.h>

struct nm_stream {
    notmuch_database_t *db;
    unsigned generation;
    maildex_query_t *mq;
    maildex_messages_t *it;
    maildex_message_t *current; /* NULL at the end */
};

static int stream_destructor(struct nm_stream *s)
{
    if (nm_live(s->db, s->generation))
        maildex_query_destroy(s->mq);
    return 0;
}

/* Moves to the next result; the end (or a failure, recorded on the handle) leaves current NULL. */
static void advance(struct nm_stream *s)
{
    maildex_status_t st;

    if (s->current == NULL && s->it == NULL)
        return;
    if (!nm_live(s->db, s->generation)) {
        s->current = NULL;
        return;
    }
    st = maildex_messages_next(s->it, &s->current);
    if (st != MAILDEX_STATUS_OK)
        nm_error(s->db, st, "iterating over messages");
}

/* A message object for the stream's current result, on ctx: what it says of itself, its tags and
 * its files. notmuch flags a query's message excluded (NOTMUCH_EXCLUDE_FLAG) but never matched: only a
 * thread's messages are. */
static notmuch_message_t *from_result(void *ctx, struct nm_stream *s)
{
    notmuch_message_t *msg = nm_message_new(ctx, s->db, maildex_message_id(s->current), true);

    if (msg == NULL)
        return NULL;
    nm_message_fill(msg, s->current, false);
    if (nm_message_copy_lists(msg, s->current) != NOTMUCH_STATUS_SUCCESS) {
        talloc_free(msg);
        return NULL;
    }
    return msg;
}

static int compare_ids(const void *a, const void *b)
{
    return strcmp((*(notmuch_message_t *const *) a)->id, (*(notmuch_message_t *const *) b)->id);
}

/* NOTMUCH_SORT_MESSAGE_ID: every result read now, kept by the iterator, in Message-ID order. */
static notmuch_status_t sorted_by_id(notmuch_messages_t *messages, struct nm_stream *s)
{
    size_t cap = 64;

    messages->list = talloc_array(messages, notmuch_message_t *, cap);
    for (; messages->list && s->current; advance(s)) {
        if (messages->n + 1 >= cap) {
            notmuch_message_t **grown = talloc_realloc(messages, messages->list, notmuch_message_t *, cap * 2);
            if (grown == NULL)
                return NOTMUCH_STATUS_OUT_OF_MEMORY;
            messages->list = grown;
            cap *= 2;
        }
        if ((messages->list[messages->n] = from_result(messages, s)) == NULL)
            return NOTMUCH_STATUS_OUT_OF_MEMORY;
        messages->n++;
    }
    if (messages->list == NULL)
        return NOTMUCH_STATUS_OUT_OF_MEMORY;
    qsort(messages->list, messages->n, sizeof *messages->list, compare_ids);
    messages->list[messages->n] = NULL;
    talloc_free(s);
    messages->stream = NULL;
    return NOTMUCH_STATUS_SUCCESS;
}

notmuch_status_t notmuch_query_search_messages(notmuch_query_t *q, notmuch_messages_t **out)
{
    notmuch_messages_t *messages = talloc_zero(q, notmuch_messages_t);
    struct nm_stream *s = messages ? talloc_zero(messages, struct nm_stream) : NULL;
    notmuch_status_t st = s ? NOTMUCH_STATUS_SUCCESS : NOTMUCH_STATUS_OUT_OF_MEMORY;
    maildex_status_t mst;

    *out = NULL;
    if (st == NOTMUCH_STATUS_SUCCESS)
        st = nm_query_open(q, q->omit, &s->mq);
    if (st == NOTMUCH_STATUS_SUCCESS) {
        messages->db = s->db = q->db;
        s->generation = q->db->generation;
        talloc_set_destructor(s, stream_destructor);
        mst = maildex_query_search_messages(s->mq, &s->it);
        if (mst == MAILDEX_STATUS_OK)
            mst = maildex_messages_next(s->it, &s->current);
        if (mst != MAILDEX_STATUS_OK)
            st = nm_error(q->db, mst, "performing query");
        messages->stream = s;
    }
    if (st == NOTMUCH_STATUS_SUCCESS && q->sort == NOTMUCH_SORT_MESSAGE_ID)
        st = sorted_by_id(messages, s);
    if (st != NOTMUCH_STATUS_SUCCESS)
        talloc_free(messages);
    else
        *out = messages;
    return st;
}

notmuch_status_t notmuch_query_search_messages_st(notmuch_query_t *q, notmuch_messages_t **out)
{
    return notmuch_query_search_messages(q, out);
}

notmuch_bool_t notmuch_messages_valid(notmuch_messages_t *messages)
{
    if (messages == NULL)
        return FALSE;
    if (messages->stream)
        return messages->stream->current != NULL && nm_live(messages->db, messages->stream->generation);
    return messages->pos < messages->n;
}

notmuch_message_t *notmuch_messages_get(notmuch_messages_t *messages)
{
    if (!notmuch_messages_valid(messages))
        return NULL;
    if (messages->stream)
        return from_result(messages, messages->stream);
    return messages->list[messages->pos];
}

void notmuch_messages_move_to_next(notmuch_messages_t *messages)
{
    if (!notmuch_messages_valid(messages))
        return;
    if (messages->stream)
        advance(messages->stream);
    else
        messages->pos++;
}

void notmuch_messages_destroy(notmuch_messages_t *messages)
{
    talloc_free(messages);
}

/* The union of the remaining messages' tags, sorted; the iterator ends up at its end, as notmuch's. */
notmuch_tags_t *notmuch_messages_collect_tags(notmuch_messages_t *messages)
{
    void *local = talloc_new(NULL);
    struct nm_map *seen = nm_map_create(local);
    const char **list;
    notmuch_tags_t *tags = NULL;

    for (; notmuch_messages_valid(messages); notmuch_messages_move_to_next(messages)) {
        notmuch_message_t *msg = notmuch_messages_get(messages);
        if (msg == NULL || nm_message_load_tags(msg) != NOTMUCH_STATUS_SUCCESS)
            goto done;
        for (char **t = msg->tags; *t; t++)
            nm_map_set(seen, *t, NULL);
        if (messages->stream) /* made for the purpose */
            talloc_free(msg);
    }
    list = talloc_array(local, const char *, seen->n + 1);
    for (size_t i = 0; list && i < seen->n; i++)
        list[i] = seen->pairs[i].key;
    tags = list ? nm_tags_new(messages, list, seen->n) : NULL;
done:
    talloc_free(local);
    return tags;
}
