/* SPDX-License-Identifier: GPL-3.0-or-later */
/* lists.c: notmuch_tags_t and notmuch_filenames_t, iterators over a copy of a list of strings (a
 * message's tags or files, a thread's or the database's tags, a directory's children), so that a
 * change to a message never disturbs an iteration under way and an iterator outlives a closed
 * database, as notmuch's do once made; and the message lists (a thread's messages, a message's
 * replies), which point at messages that belong to their thread. They hold no maildex object. */
#include "abi.h"

#include <string.h>

struct strings {
    char **v;
    size_t n, pos;
};

struct _notmuch_tags {
    struct strings s;
};

struct _notmuch_filenames {
    struct strings s;
};

/* Copies list (n strings, or NULL-terminated when n is (size_t) -1) into s, on ctx. */
static bool copy(void *ctx, struct strings *s, const char *const *list, size_t n)
{
    if (n == (size_t) -1)
        for (n = 0; list && list[n]; n++)
            ;
    s->v = talloc_array(ctx, char *, n + 1);
    if (s->v == NULL)
        return false;
    for (size_t i = 0; i < n; i++)
        s->v[i] = talloc_strdup(s->v, list[i]);
    s->v[n] = NULL;
    s->n = n;
    return true;
}

static bool valid(const struct strings *s)
{
    return s->pos < s->n;
}

notmuch_tags_t *nm_tags_new(void *ctx, const char *const *list, size_t n)
{
    notmuch_tags_t *tags = talloc_zero(ctx, notmuch_tags_t);

    if (tags && !copy(tags, &tags->s, list, n)) {
        talloc_free(tags);
        tags = NULL;
    }
    return tags;
}

notmuch_bool_t notmuch_tags_valid(notmuch_tags_t *tags)
{
    return tags && valid(&tags->s);
}

const char *notmuch_tags_get(notmuch_tags_t *tags)
{
    return notmuch_tags_valid(tags) ? tags->s.v[tags->s.pos] : NULL;
}

void notmuch_tags_move_to_next(notmuch_tags_t *tags)
{
    if (notmuch_tags_valid(tags))
        tags->s.pos++;
}

void notmuch_tags_destroy(notmuch_tags_t *tags)
{
    talloc_free(tags);
}

notmuch_filenames_t *nm_filenames_new(void *ctx, const char *const *list, size_t n)
{
    notmuch_filenames_t *names = talloc_zero(ctx, notmuch_filenames_t);

    if (names && !copy(names, &names->s, list, n)) {
        talloc_free(names);
        names = NULL;
    }
    return names;
}

notmuch_bool_t notmuch_filenames_valid(notmuch_filenames_t *names)
{
    return names && valid(&names->s);
}

const char *notmuch_filenames_get(notmuch_filenames_t *names)
{
    return notmuch_filenames_valid(names) ? names->s.v[names->s.pos] : NULL;
}

void notmuch_filenames_move_to_next(notmuch_filenames_t *names)
{
    if (notmuch_filenames_valid(names))
        names->s.pos++;
}

void notmuch_filenames_destroy(notmuch_filenames_t *names)
{
    talloc_free(names);
}

notmuch_messages_t *nm_messages_list(void *ctx, notmuch_database_t *db, notmuch_message_t **list, size_t n)
{
    notmuch_messages_t *messages = talloc_zero(ctx, notmuch_messages_t);

    if (messages == NULL)
        return NULL;
    messages->db = db;
    messages->list = talloc_array(messages, notmuch_message_t *, n + 1);
    if (messages->list == NULL) {
        talloc_free(messages);
        return NULL;
    }
    if (n)
        memcpy(messages->list, list, n * sizeof *list);
    messages->list[n] = NULL;
    messages->n = n;
    return messages;
}
