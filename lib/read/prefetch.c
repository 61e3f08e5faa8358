/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Reading a thread's files ahead (maildex.h, maildex_parts_prefetch_start): while the caller prints
 * one message of a thread, a second thread parses the next ones, so a long thread is parsed on two
 * cores; gmime's parse is most of show's time. Whichever thread reaches a message first parses it,
 * and the caller, rather than wait for a message being parsed, parses the next one itself; the other
 * thread stays at most AHEAD messages in front, so a huge thread is never held whole.
 *
 * The other thread only parses (files.h): the database, the messages and the caller's
 * talloc tree stay the caller's thread's. Each parse is made on a talloc context of its own and its
 * tree moved onto its message by the caller's thread. Parses are done without verifying or
 * decrypting, so a passphrase prompt of the user's gpg-agent only ever comes from the caller's
 * thread: a message with a part the caller's options would verify or decrypt is handed back and
 * parsed again by the caller. Without such parts the two options change nothing, so every tree,
 * status and error message is the one the caller would have made. (S/MIME signed data is the
 * exception gmime makes: it opens only by verifying, whatever the options, so the other thread may
 * ask gpgsm to verify one; never to decrypt.) */
#include "prefetch.h"
#include "mime/mime.h"
#include "files.h"
#include "search.h"

#include <string.h>

/* How many messages may be parsed ahead of the one asked for: enough to ride over a message slow to
 * print, few enough that a huge thread is not held at once. */
#define AHEAD 16

enum slot_state {
    SLOT_WAITING, /* nobody has started it */
    SLOT_PARSING, /* a thread is at it */
    SLOT_DONE,    /* parsed; the result is in the slot */
    SLOT_CALLER,  /* the caller's: it has no file to read ahead, or was asked for first, or was taken */
};

struct slot {
    const maildex_message_t *m; /* compared, never read, outside the caller's thread */
    int64_t key;                /* m's, compared too: a message freed too early cannot be mistaken */
    const char **files;         /* the message's files, copied onto the read-ahead */
    size_t nfiles;
    enum slot_state state;
    void *ctx;                  /* the parse: a talloc root of its own (NULL: none) */
    struct maildex_part *root;
    int rc;
    size_t tried;
    char *error;
    bool ahead;                 /* parsed by the other thread */
};

struct maildex_parts_prefetch {
    maildex_query_t *q;
    const struct maildex__mime_ops *ops;
    const maildex_parts_options_t *asked_opts; /* the caller's pointer, which maildex_message_parts must pass */
    maildex_parts_options_t plain;             /* the caller's options without verifying or decrypting */
    bool verify, decrypt;                      /* what the caller's options do */
    int duplicate;
    struct slot *slots;
    size_t n;
    GMutex lock; /* guards the slots' states and the three below */
    GCond cond;  /* a slot is done, the caller moved on, or stop */
    size_t next;  /* the first slot that may be waiting */
    size_t asked; /* the slot the caller asked for last */
    bool stop;
    GThread *worker;
    size_t handed; /* parses of the other thread handed to the caller (the tests read it) */
};

/* The next slot to parse, marked SLOT_PARSING, or NULL when none is within AHEAD of the caller.
 * Called with the lock held. */
static struct slot *claim(maildex_parts_prefetch_t *p)
{
    for (; p->next < p->n && p->next < p->asked + AHEAD; p->next++) {
        struct slot *s = &p->slots[p->next];
        if (s->state == SLOT_WAITING) {
            s->state = SLOT_PARSING;
            p->next++;
            return s;
        }
    }
    return NULL;
}

/* Whether the tree under part has a part the caller's options treat otherwise than the plain parse
 * (mime/show.c's is_crypto): a signed one when they verify, an encrypted one when they decrypt, and
 * any S/MIME part when they do either. */
static bool needs_caller(const maildex_parts_prefetch_t *p, const struct maildex_part *part)
{
    const char *type = part->content_type ? part->content_type : "";

    if ((p->verify && g_ascii_strcasecmp(type, "multipart/signed") == 0) ||
        (p->decrypt && g_ascii_strcasecmp(type, "multipart/encrypted") == 0) ||
        ((p->verify || p->decrypt) && (g_ascii_strcasecmp(type, "application/pkcs7-mime") == 0 ||
                                       g_ascii_strcasecmp(type, "application/x-pkcs7-mime") == 0)))
        return true;
    for (size_t i = 0; i < part->nchildren; i++)
        if (needs_caller(p, part->children[i]))
            return true;
    return false;
}

/* The module's parse of one file, as maildex_message_parts makes it but without session keys. */
struct plain_parse {
    const struct maildex__mime_ops *ops;
    const maildex_parts_options_t *opts;
    struct maildex_part *root;
};

static int open_plain(void *ctx, const char *path, void *data, char **error)
{
    struct plain_parse *c = data;

    return c->ops->show_file(ctx, path, c->opts, NULL, &c->root, error);
}

/* Parses s (claimed) outside the lock and marks it done; a parse the caller must redo is dropped.
 * ahead: the other thread's. Called with the lock held; returns with it held. */
static void parse(maildex_parts_prefetch_t *p, struct slot *s, bool ahead)
{
    g_mutex_unlock(&p->lock);
    if ((s->ctx = talloc_new(NULL)) != NULL) {
        struct plain_parse c = {.ops = p->ops, .opts = &p->plain};
        s->rc = maildex__read_files(s->ctx, s->files, s->nfiles, p->duplicate, open_plain, &c, &s->tried,
                                    &s->error);
        s->root = c.root;
        if (s->rc == MAILDEX__PARSE_OK && needs_caller(p, s->root)) {
            talloc_free(s->ctx);
            s->ctx = NULL;
        }
    }
    g_mutex_lock(&p->lock);
    s->ahead = ahead;
    s->state = SLOT_DONE;
    g_cond_broadcast(&p->cond);
}

static gpointer work(gpointer data)
{
    maildex_parts_prefetch_t *p = data;

    g_mutex_lock(&p->lock);
    while (!p->stop && p->next < p->n) {
        struct slot *s = claim(p);
        if (s)
            parse(p, s, true);
        else if (p->next < p->n)
            g_cond_wait(&p->cond, &p->lock);
    }
    g_mutex_unlock(&p->lock);
    return NULL;
}

static int prefetch_destroy(maildex_parts_prefetch_t *p)
{
    if (p->worker) {
        g_mutex_lock(&p->lock);
        p->stop = true;
        g_cond_broadcast(&p->cond);
        g_mutex_unlock(&p->lock);
        g_thread_join(p->worker);
    }
    for (size_t i = 0; i < p->n; i++)
        talloc_free(p->slots[i].ctx);
    g_cond_clear(&p->cond);
    g_mutex_clear(&p->lock);
    if (p->q->prefetch == p)
        p->q->prefetch = NULL;
    return 0;
}

/* Fills s for m; a message without a file to read (or without file number duplicate) is left to
 * the caller, whose maildex_message_parts says why. */
static maildex_status_t fill_slot(maildex_parts_prefetch_t *p, struct slot *s, maildex_message_t *m)
{
    const char *const *files;
    maildex_status_t st = maildex_message_files(m, &files);

    s->m = m;
    s->key = m->key;
    s->state = SLOT_CALLER;
    if (st != MAILDEX_STATUS_OK)
        return st;
    while (files[s->nfiles])
        s->nfiles++;
    if (s->nfiles == 0 || (p->duplicate > 0 && (size_t) p->duplicate > s->nfiles))
        return MAILDEX_STATUS_OK;
    if ((s->files = talloc_array(p, const char *, s->nfiles)) == NULL)
        return maildex__error(p->q->db, MAILDEX_STATUS_NO_MEMORY, "out of memory");
    for (size_t i = 0; i < s->nfiles; i++)
        if ((s->files[i] = talloc_strdup(s->files, files[i])) == NULL)
            return maildex__error(p->q->db, MAILDEX_STATUS_NO_MEMORY, "out of memory");
    s->state = SLOT_WAITING;
    return MAILDEX_STATUS_OK;
}

maildex_status_t maildex_parts_prefetch_start(maildex_message_t *const *list, size_t n, int duplicate,
                                              const maildex_parts_options_t *opts, maildex_parts_prefetch_t **out)
{
    static const maildex_parts_options_t defaults = MAILDEX_PARTS_OPTIONS_INIT;
    maildex_parts_prefetch_t *p;
    maildex_query_t *q;
    maildex_status_t st;

    *out = NULL;
    /* One message has nothing to overlap with; on one core the two threads would only take turns. */
    if (n < 2 || g_get_num_processors() < 2 || list[0]->q->prefetch)
        return MAILDEX_STATUS_OK;
    q = list[0]->q;
    p = talloc_zero(q, maildex_parts_prefetch_t);
    if (p == NULL || (p->slots = talloc_zero_array(p, struct slot, n)) == NULL) {
        talloc_free(p);
        return maildex__error(q->db, MAILDEX_STATUS_NO_MEMORY, "out of memory");
    }
    p->q = q;
    p->asked_opts = opts;
    p->plain = opts ? *opts : defaults;
    p->verify = p->plain.verify;
    p->decrypt = p->plain.decrypt != MAILDEX_DECRYPT_FALSE;
    p->plain.verify = false;
    p->plain.decrypt = MAILDEX_DECRYPT_FALSE;
    p->duplicate = duplicate;
    p->n = n;
    g_mutex_init(&p->lock);
    g_cond_init(&p->cond);
    talloc_set_destructor(p, prefetch_destroy);
    st = maildex__mime(q->db, &p->ops);
    for (size_t i = 0; i < n && st == MAILDEX_STATUS_OK; i++)
        st = fill_slot(p, &p->slots[i], list[i]);
    /* Without the other thread nothing is read ahead: every message is parsed as it is asked for. */
    if (st == MAILDEX_STATUS_OK)
        p->worker = g_thread_try_new("maildex-show", work, p, NULL);
    if (st != MAILDEX_STATUS_OK || p->worker == NULL) {
        talloc_free(p);
        return st;
    }
    q->prefetch = p;
    *out = p;
    return MAILDEX_STATUS_OK;
}

void maildex_parts_prefetch_free(maildex_parts_prefetch_t *p)
{
    talloc_free(p);
}

/* The slot of m, looked for from the caller's last one on: the caller asks in list order. */
static struct slot *find_slot(maildex_parts_prefetch_t *p, const maildex_message_t *m, size_t *at)
{
    for (size_t k = 0; k < p->n; k++) {
        size_t i = (p->asked + k) % p->n;
        if (p->slots[i].m == m && p->slots[i].key == m->key) {
            *at = i;
            return &p->slots[i];
        }
    }
    return NULL;
}

bool maildex__parts_prefetched(maildex_message_t *m, int duplicate, const maildex_parts_options_t *opts,
                               struct maildex_part **root, maildex_status_t *st)
{
    maildex_parts_prefetch_t *p = m->q->prefetch;
    struct slot *s;
    size_t at = 0;
    bool done;

    if (p == NULL || opts != p->asked_opts || duplicate != p->duplicate || (s = find_slot(p, m, &at)) == NULL)
        return false;
    g_mutex_lock(&p->lock);
    p->asked = at;
    g_cond_broadcast(&p->cond);
    /* Printing is quick beside parsing, so the caller mostly finds its message still being parsed:
     * rather than wait, it parses the next one itself. */
    while (s->state == SLOT_PARSING) {
        struct slot *next = claim(p);
        if (next)
            parse(p, next, false);
        else
            g_cond_wait(&p->cond, &p->lock);
    }
    done = s->state == SLOT_DONE && s->ctx != NULL;
    p->handed += done && s->ahead;
    s->state = SLOT_CALLER;
    g_mutex_unlock(&p->lock);
    if (!done)
        return false;
    *st = maildex__read_files_status(p->q->db, s->rc, s->files[s->tried], s->error);
    talloc_free(s->error);
    s->error = NULL;
    /* The tree is all the parse left on its context (as when the caller parses it onto m). */
    if (*st == MAILDEX_STATUS_OK)
        *root = talloc_steal(m, s->root);
    talloc_free(s->ctx);
    s->ctx = NULL;
    return true;
}

size_t maildex__parts_prefetch_handed(const maildex_parts_prefetch_t *p)
{
    return p->handed;
}
