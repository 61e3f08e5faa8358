/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A thread's messages arranged as replies, as notmuch 0.37 arranges them for `show` (lib/thread.cc
 * _resolve_thread_relationships, lib/message.cc _notmuch_message_sort_subtrees): each message hangs
 * under its In-Reply-To parent when that one is in the thread; the others (and the oldest message, when
 * its parent is missing or nothing else is a root) are candidate roots, and every candidate but the
 * last, or all of them once one is a root, hangs under the deepest thread member its References name,
 * if any. Then every level is sorted by date, stably. The quirks are notmuch's: a candidate can end up
 * under one of its own replies and then vanish from the tree, as it does in notmuch. Pure logic on
 * message objects; the references come through a callback, and the one show uses (at the end) reads
 * them from the message's file through the parser module. */
#include "mime/mime.h"
#include "search.h"

struct arrange {
    void *ctx;
    GHashTable *by_id; /* message id -> maildex_message_t * */
    maildex__references_fn *refs;
    void *data;
    GPtrArray *toplevel;
    maildex_status_t st;
};

static void add_reply(struct arrange *a, maildex_message_t *parent, maildex_message_t *reply)
{
    maildex_message_t **grown;

    if (a->st != MAILDEX_STATUS_OK)
        return;
    grown = talloc_realloc(a->ctx, parent->replies, maildex_message_t *, parent->nreplies + 2);
    if (grown == NULL) {
        a->st = MAILDEX_STATUS_NO_MEMORY;
        return;
    }
    parent->replies = grown;
    grown[parent->nreplies++] = reply;
    grown[parent->nreplies] = NULL;
}

/* notmuch's _parent_via_in_reply_to. */
static bool via_in_reply_to(struct arrange *a, maildex_message_t *m)
{
    maildex_message_t *parent = m->parent && *m->parent ? g_hash_table_lookup(a->by_id, m->parent) : NULL;

    if (parent == NULL)
        return false;
    add_reply(a, parent, m);
    return true;
}

static void label_depths(maildex_message_t *m, size_t depth)
{
    m->depth = depth;
    for (size_t i = 0; i < m->nreplies; i++)
        label_depths(m->replies[i], depth + 1);
}

/* notmuch's _parent_or_toplevel: under the deepest member m's References name (the first of equals in
 * their sorted order), else a top-level message. */
static void parent_or_toplevel(struct arrange *a, maildex_message_t *m)
{
    maildex_message_t *parent = NULL;
    char **ids = NULL;
    void *tmp = talloc_new(NULL);

    if (a->st == MAILDEX_STATUS_OK && tmp)
        a->st = a->refs(a->data, tmp, m, &ids);
    for (char **id = ids; a->st == MAILDEX_STATUS_OK && id && *id; id++) {
        maildex_message_t *found = g_hash_table_lookup(a->by_id, *id);
        if (found && (parent == NULL || found->depth > parent->depth))
            parent = found;
    }
    if (parent)
        add_reply(a, parent, m);
    else
        g_ptr_array_add(a->toplevel, m);
    talloc_free(tmp);
}

static gint by_date(gconstpointer pa, gconstpointer pb, gpointer unused)
{
    const maildex_message_t *a = *(maildex_message_t *const *) pa, *b = *(maildex_message_t *const *) pb;

    (void) unused;
    return a->date < b->date ? -1 : a->date > b->date;
}

/* Every level under list sorted by date; g_qsort_with_data is stable, as glibc's qsort is in practice
 * for notmuch. */
static void sort_subtrees(maildex_message_t **list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        sort_subtrees(list[i]->replies, list[i]->nreplies);
    if (n > 1)
        g_qsort_with_data(list, (gint) n, sizeof *list, by_date, NULL);
}

maildex_status_t maildex__thread_arrange(void *ctx, maildex_message_t **list, size_t n,
                                         maildex__references_fn *refs, void *data,
                                         maildex_message_t ***toplevel)
{
    struct arrange a = {.ctx = ctx, .refs = refs, .data = data, .st = MAILDEX_STATUS_OK};
    GPtrArray *maybe = g_ptr_array_new();

    *toplevel = NULL;
    a.by_id = g_hash_table_new(g_str_hash, g_str_equal);
    a.toplevel = g_ptr_array_new();
    for (size_t i = 0; i < n; i++)
        g_hash_table_insert(a.by_id, (gpointer) list[i]->message_id, list[i]);
    for (size_t i = 1; i < n; i++)
        if (!via_in_reply_to(&a, list[i]))
            g_ptr_array_add(maybe, list[i]);
    /* Short-circuit as notmuch's: with no other root the oldest is one, whatever its In-Reply-To. */
    if (n > 0 && (maybe->len == 0 || !via_in_reply_to(&a, list[0])))
        g_ptr_array_add(maybe, list[0]);
    for (guint i = 0; i < maybe->len; i++)
        label_depths(maybe->pdata[i], 0);
    for (guint i = 0; i < maybe->len; i++) {
        if (i + 1 < maybe->len || a.toplevel->len > 0)
            parent_or_toplevel(&a, maybe->pdata[i]);
        else
            g_ptr_array_add(a.toplevel, maybe->pdata[i]);
    }
    if (a.st == MAILDEX_STATUS_OK) {
        sort_subtrees((maildex_message_t **) a.toplevel->pdata, a.toplevel->len);
        *toplevel = talloc_array(ctx, maildex_message_t *, a.toplevel->len + 1);
        if (*toplevel == NULL)
            a.st = MAILDEX_STATUS_NO_MEMORY;
    }
    for (guint i = 0; *toplevel && i <= a.toplevel->len; i++)
        (*toplevel)[i] = i < a.toplevel->len ? a.toplevel->pdata[i] : NULL;
    g_hash_table_destroy(a.by_id);
    g_ptr_array_free(a.toplevel, TRUE);
    g_ptr_array_free(maybe, TRUE);
    return a.st;
}

/* notmuch reads a message's references from the terms it indexed; maildex does not store them and
 * reads the file instead, only for the few messages of a thread that need them. */
maildex_status_t maildex__references_of_file(void *data, void *ctx, maildex_message_t *m, char ***ids)
{
    maildex_db_t *db = data;
    const struct maildex__mime_ops *ops;
    const char *const *files;
    maildex_status_t st = maildex_message_files(m, &files);

    *ids = NULL;
    if (st == MAILDEX_STATUS_OK)
        st = maildex__mime(db, &ops);
    for (size_t i = 0; st == MAILDEX_STATUS_OK && files[i] && *ids == NULL; i++) {
        int rc = ops->show_references_file(ctx, files[i], m->message_id, ids, NULL);
        if (rc == MAILDEX__PARSE_OK && *ids == NULL)
            st = maildex__error(db, MAILDEX_STATUS_NO_MEMORY, "out of memory");
    }
    return st;
}
