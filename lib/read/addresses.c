/* SPDX-License-Identifier: GPL-3.0-or-later */
/* maildex_query_addresses(): notmuch 0.37's `address` (notmuch-search.c, do_search_messages with
 * OUTPUT_SENDER/RECIPIENTS): the mailboxes of the matches' From, or To, Cc and Bcc headers, each
 * once or counted. They are read from the addresses table (sql/0004-addresses.sql, stored form in
 * mime/addresses.h), never from mail files, except for a message indexed before that table existed,
 * whose first file is parsed as `reindex` would parse it.
 *
 * De-duplication is notmuch's: a table keyed by the address compared case-insensitively, holding
 * the distinct (name, address) pairs of that address (compared bytewise) in the order first seen.
 * It is a GLib hash table with notmuch's hash function (djb2 over tolower), so the modes that print
 * after the whole pass walk it in the order notmuch's own table would give for the same insertions.
 * This file must not print, read config or read a mail file a stored row answers for. */
#include "search.h"

#include "files.h"
#include "key-order.h"
#include "mime/mime.h"

struct maildex_mailbox {
    const char *name, *address, *name_addr;
    int64_t count;
};

struct maildex_addresses {
    maildex_query_t *q;
    maildex_address_options_t opts;
    sqlite3_stmt *stream;
    struct maildex__key_order *keys;      /* stream's keys in notmuch's order, offset and limit applied */
    const struct maildex__mime_ops *mime; /* loaded at the first message without a stored row */
    void *message;                        /* the current message's lists; freed at the next */
    const char *lists[2];                 /* its senders and recipients, as opts ask */
    size_t lens[2], list, offset;
    GHashTable *seen;   /* address -> GPtrArray of struct maildex_mailbox, notmuch's table */
    GString *composed;  /* name <address>, for a mailbox that is not kept */
    struct maildex_mailbox view; /* DEDUP_NONE: the mailbox handed out, pointing into message */
    bool passed;        /* the whole pass is done; mailboxes now come from seen */
    GHashTableIter walk;
    GPtrArray *group;   /* the entry of seen being walked (count with DEDUP_MAILBOX) */
    guint group_next;
};

/* ---- notmuch's table ---------------------------------------------------------------------------- */

/* notmuch's strcase_hash (util/string-util.c): djb2 over tolower(*s). glibc's tolower() takes a
 * negative char (a byte above 0x7f where char is signed) to the byte's unsigned value and leaves it
 * otherwise alone in the C and UTF-8 locales, so each byte adds its unsigned value, ASCII letters
 * lowered. */
static guint strcase_hash(gconstpointer key)
{
    guint hash = 5381;

    for (const char *s = key; s && *s; s++)
        hash = ((hash << 5) + hash) + (unsigned char) g_ascii_tolower(*s);
    return hash;
}

static gboolean strcase_equal(gconstpointer a, gconstpointer b)
{
    return g_ascii_strcasecmp(a, b) == 0;
}

static void group_free(gpointer group)
{
    g_ptr_array_free(group, TRUE);
}

static int addresses_destructor(maildex_addresses_t *it)
{
    if (it->seen)
        g_hash_table_destroy(it->seen);
    if (it->composed)
        g_string_free(it->composed, TRUE);
    return 0;
}

/* name <address>, or the address alone for an empty name, when the stored rendering is "". */
static const char *name_addr_of(GString *buf, const char *name, const char *address,
                                const char *stored)
{
    if (*stored)
        return stored;
    if (*name == '\0')
        return address;
    g_string_printf(buf, "%s <%s>", name, address);
    return buf->str;
}

static struct maildex_mailbox *keep(maildex_addresses_t *it, const struct maildex_mailbox *view)
{
    struct maildex_mailbox *m = talloc_zero(it, struct maildex_mailbox);

    if (m == NULL)
        return NULL;
    m->name = talloc_strdup(m, view->name);
    m->address = talloc_strdup(m, view->address);
    m->name_addr = talloc_strdup(m, view->name_addr);
    m->count = 1;
    if (m->name == NULL || m->address == NULL || m->name_addr == NULL) {
        talloc_free(m);
        return NULL;
    }
    return m;
}

/* notmuch's is_duplicate: counts view when its pair was seen, else keeps it. Sets *kept to the new
 * entry (NULL for a duplicate). */
static maildex_status_t see(maildex_addresses_t *it, const struct maildex_mailbox *view,
                            struct maildex_mailbox **kept)
{
    GPtrArray *group = g_hash_table_lookup(it->seen, view->address);
    struct maildex_mailbox *m;

    *kept = NULL;
    for (guint i = 0; group && i < group->len; i++) {
        m = g_ptr_array_index(group, i);
        if (strcmp(m->name, view->name) == 0 && strcmp(m->address, view->address) == 0) {
            m->count++;
            return MAILDEX_STATUS_OK;
        }
    }
    m = keep(it, view);
    if (m == NULL)
        return maildex__error(it->q->db, MAILDEX_STATUS_NO_MEMORY, "out of memory");
    if (group == NULL) {
        group = g_ptr_array_new();
        g_hash_table_insert(it->seen, (gpointer) m->address, group);
    }
    g_ptr_array_add(group, m);
    *kept = m;
    return MAILDEX_STATUS_OK;
}

/* ---- reading the matches ------------------------------------------------------------------------ */

/* The current message's lists from a parse of its first file: a message stored before the
 * addresses table. No readable file leaves it without mailboxes. */
static maildex_status_t parse_lists(maildex_addresses_t *it, int64_t key, const char *lists[2],
                                    size_t lens[2])
{
    maildex_db_t *db = it->q->db;
    struct maildex__parsed_message *m = NULL;
    maildex_status_t st = it->mime ? MAILDEX_STATUS_OK : maildex__mime(db, &it->mime);

    if (st == MAILDEX_STATUS_OK)
        st = maildex__parse_first_file(db, it->mime, it->message, key, NULL, &m, NULL);
    if (st == MAILDEX_STATUS_OK && m) {
        lists[0] = m->senders, lens[0] = m->senders_len;
        lists[1] = m->recipients, lens[1] = m->recipients_len;
    }
    return st;
}

/* Moves to the next match and loads its lists; sets *more to false at the end. */
static maildex_status_t next_message(maildex_addresses_t *it, bool *more)
{
    maildex_db_t *db = it->q->db;
    const char *lists[2] = {"", ""};
    size_t lens[2] = {0, 0};
    sqlite3_stmt *read;
    bool row = false, got;
    int64_t key;
    maildex_status_t st = maildex__key_order_next(db, it->keys, &key, &got);

    *more = false;
    if (st != MAILDEX_STATUS_OK || !got)
        return st;
    talloc_free(it->message);
    it->message = talloc_new(it);
    st = it->message ? maildex__stmt(db, MAILDEX__STMT_ADDRESSES_READ, &read)
                     : maildex__error(db, MAILDEX_STATUS_NO_MEMORY, "out of memory");
    if (st == MAILDEX_STATUS_OK) {
        sqlite3_bind_int64(read, 1, key);
        st = maildex__step_row(db, read, &row, "cannot read a message's addresses");
    }
    for (int i = 0; st == MAILDEX_STATUS_OK && row && i < 2; i++) {
        lens[i] = (size_t) sqlite3_column_bytes(read, i);
        lists[i] = lens[i] ? talloc_memdup(it->message, sqlite3_column_blob(read, i), lens[i]) : "";
        if (lists[i] == NULL)
            st = maildex__error(db, MAILDEX_STATUS_NO_MEMORY, "out of memory");
    }
    if (st == MAILDEX_STATUS_OK)
        sqlite3_reset(read);
    if (st == MAILDEX_STATUS_OK && !row)
        st = parse_lists(it, key, lists, lens);
    it->list = 0;
    it->offset = 0;
    it->lists[0] = it->opts.headers & MAILDEX_ADDRESS_SENDER ? lists[0] : "";
    it->lens[0] = it->opts.headers & MAILDEX_ADDRESS_SENDER ? lens[0] : 0;
    it->lists[1] = it->opts.headers & MAILDEX_ADDRESS_RECIPIENTS ? lists[1] : "";
    it->lens[1] = it->opts.headers & MAILDEX_ADDRESS_RECIPIENTS ? lens[1] : 0;
    *more = st == MAILDEX_STATUS_OK;
    return st;
}

/* Reads one string of the stored form at *offset; NULL when the list is damaged there. */
static const char *field(const char *data, size_t len, size_t *offset)
{
    const char *s = data + *offset, *end = *offset < len ? memchr(s, '\0', len - *offset) : NULL;

    if (end == NULL)
        return NULL;
    *offset += (size_t) (end - s) + 1;
    return s;
}

/* The next mailbox of the matches into it->view, in order; *found false at the end. */
static maildex_status_t next_mailbox(maildex_addresses_t *it, bool *found)
{
    maildex_status_t st = MAILDEX_STATUS_OK;
    bool more = true;

    *found = false;
    while (st == MAILDEX_STATUS_OK && !*found && more) {
        const char *data, *name, *address, *stored;
        size_t len;
        if (it->message == NULL || it->list == 2) {
            st = next_message(it, &more);
            continue;
        }
        data = it->lists[it->list], len = it->lens[it->list];
        name = field(data, len, &it->offset);
        address = name ? field(data, len, &it->offset) : NULL;
        stored = address ? field(data, len, &it->offset) : NULL;
        if (stored == NULL) { /* the end of this list (or a damaged tail, read as its end) */
            it->list++;
            it->offset = 0;
            continue;
        }
        it->view.name = name;
        it->view.address = address;
        it->view.name_addr = name_addr_of(it->composed, name, address, stored);
        it->view.count = 1;
        *found = true;
    }
    return st;
}

/* ---- the iterator ------------------------------------------------------------------------------- */

static bool full_pass(const maildex_addresses_t *it)
{
    return it->opts.count || it->opts.dedup == MAILDEX_DEDUP_ADDRESS;
}

/* The matches, each once, in the order they are read. A whole pass reads them in the order their
 * first files were indexed, whatever the query's order: notmuch reads them in its database's
 * document order, which is that order but for a message that another one named (References) before
 * it arrived, whose document was made then. The hash table's order and the name chosen among
 * equally frequent ones follow from it. */
static char *stream_sql(maildex_addresses_t *it)
{
    const struct maildex__plan *plan = it->q->plan;

    if (!full_pass(it))
        return talloc_asprintf(it, "%s%s LIMIT ?1 OFFSET ?2", plan->stream, plan->order);
    return talloc_asprintf(it, "SELECT message FROM files WHERE message IN (%s) GROUP BY message "
                               "ORDER BY min(id) LIMIT ?1 OFFSET ?2", plan->stream);
}

maildex_status_t maildex_query_addresses(maildex_query_t *q, const maildex_address_options_t *opts,
                                         maildex_addresses_t **out)
{
    static const maildex_address_options_t defaults = MAILDEX_ADDRESS_OPTIONS_INIT;
    maildex_addresses_t *it;
    maildex_status_t st;

    *out = NULL;
    opts = opts ? opts : &defaults;
    if (opts->count && opts->dedup == MAILDEX_DEDUP_NONE)
        return maildex__error(q->db, MAILDEX_STATUS_INVALID_ARGUMENT,
                              "counting addresses needs de-duplication");
    it = talloc_zero(q, maildex_addresses_t);
    if (it == NULL)
        return maildex__error(q->db, MAILDEX_STATUS_NO_MEMORY, "out of memory");
    talloc_set_destructor(it, addresses_destructor);
    it->q = q;
    it->opts = *opts;
    if ((it->opts.headers & (MAILDEX_ADDRESS_SENDER | MAILDEX_ADDRESS_RECIPIENTS)) == 0)
        it->opts.headers |= MAILDEX_ADDRESS_SENDER;
    it->seen = g_hash_table_new_full(strcase_hash, strcase_equal, NULL, group_free);
    it->composed = g_string_new(NULL);
    st = maildex__search_prepare(it, q->db, stream_sql(it), q->plan, &it->stream);
    /* A whole pass reads in indexing order, which needs no turning around. */
    if (st == MAILDEX_STATUS_OK &&
        (it->keys = maildex__key_order_new(it, it->stream, q->oldest_first && !full_pass(it))) == NULL)
        st = maildex__error(q->db, MAILDEX_STATUS_NO_MEMORY, "out of memory");
    if (st != MAILDEX_STATUS_OK) {
        talloc_free(it);
        return st;
    }
    maildex__key_order_limit(it->keys, 1, 2, q->offset, q->limit);
    *out = it;
    return MAILDEX_STATUS_OK;
}

/* The whole pass of the counting modes: every mailbox into the table. */
static maildex_status_t pass(maildex_addresses_t *it)
{
    struct maildex_mailbox *kept;
    maildex_status_t st;
    bool found = true;

    while ((st = next_mailbox(it, &found)) == MAILDEX_STATUS_OK && found)
        if ((st = see(it, &it->view, &kept)) != MAILDEX_STATUS_OK)
            break;
    talloc_free(it->message);
    it->message = NULL;
    it->passed = st == MAILDEX_STATUS_OK;
    g_hash_table_iter_init(&it->walk, it->seen);
    return st;
}

/* notmuch's print_popular: the pair seen most often (the first of equals), counting them all. */
static struct maildex_mailbox *popular(GPtrArray *group)
{
    struct maildex_mailbox *best = NULL;
    int64_t total = 0;

    for (guint i = 0; i < group->len; i++) {
        struct maildex_mailbox *m = g_ptr_array_index(group, i);
        total += m->count;
        if (best == NULL || m->count > best->count)
            best = m;
    }
    if (best)
        best->count = total;
    return best;
}

/* After the pass: the table in its own order, each address's pairs or its popular pair. */
static struct maildex_mailbox *from_table(maildex_addresses_t *it)
{
    gpointer key, value;

    while (it->group == NULL || it->group_next == it->group->len) {
        if (!g_hash_table_iter_next(&it->walk, &key, &value))
            return NULL;
        it->group = value;
        it->group_next = 0;
        if (it->opts.dedup == MAILDEX_DEDUP_ADDRESS) {
            it->group_next = it->group->len;
            return popular(it->group);
        }
    }
    return g_ptr_array_index(it->group, it->group_next++);
}

maildex_status_t maildex_addresses_next(maildex_addresses_t *it, const maildex_mailbox_t **out)
{
    struct maildex_mailbox *kept = NULL;
    maildex_status_t st = MAILDEX_STATUS_OK;
    bool found = true;

    *out = NULL;
    if (full_pass(it)) {
        if (!it->passed)
            st = pass(it);
        if (st == MAILDEX_STATUS_OK)
            *out = from_table(it);
        return st;
    }
    while (kept == NULL && (st = next_mailbox(it, &found)) == MAILDEX_STATUS_OK && found) {
        if (it->opts.dedup == MAILDEX_DEDUP_NONE) {
            *out = &it->view;
            return st;
        }
        st = see(it, &it->view, &kept);
        if (st != MAILDEX_STATUS_OK)
            break;
    }
    *out = kept;
    return st;
}

void maildex_addresses_destroy(maildex_addresses_t *it)
{
    talloc_free(it);
}

const char *maildex_mailbox_name(const maildex_mailbox_t *m) { return m->name; }
const char *maildex_mailbox_address(const maildex_mailbox_t *m) { return m->address; }
const char *maildex_mailbox_name_addr(const maildex_mailbox_t *m) { return m->name_addr; }
int64_t maildex_mailbox_count(const maildex_mailbox_t *m) { return m->count; }
