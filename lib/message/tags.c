/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Tag bookkeeping for the writer (see tags.h). */
#include "tags.h"

#include "util/maildir.h"

#include <glib.h>
#include <string.h>

/* The writer tags every new message with the same few tags: their ids are cached, and the per-tag
 * message counts are summed in memory and written once per transaction, as a participant in the
 * handle's transactions. */
struct tag_cache {
    GHashTable *ids;    /* name -> id */
    GHashTable *deltas; /* id -> change of tags.messages not written yet */
};

static maildex_status_t cache_before_commit(maildex_db_t *db, void *state)
{
    struct tag_cache *c = state;
    GHashTableIter it;
    gpointer key, value;
    maildex_status_t st = MAILDEX_STATUS_OK;

    g_hash_table_iter_init(&it, c->deltas);
    while (st == MAILDEX_STATUS_OK && g_hash_table_iter_next(&it, &key, &value)) {
        if (*(gint64 *) value != 0)
            st = maildex__run_ids(db, MAILDEX__STMT_TAG_COUNT_ADD, *(gint64 *) key, *(gint64 *) value,
                                  "cannot count tags");
    }
    g_hash_table_remove_all(c->deltas);
    return st;
}

static void cache_after_rollback(maildex_db_t *db, void *state)
{
    struct tag_cache *c = state;

    (void) db;
    g_hash_table_remove_all(c->deltas);
    g_hash_table_remove_all(c->ids); /* a rolled-back transaction may have created some of them */
}

static void cache_close(void *state)
{
    struct tag_cache *c = state;

    if (c->ids) {
        g_hash_table_destroy(c->deltas);
        g_hash_table_destroy(c->ids);
    }
}

/* Rank 20: after the rows, before the message count (lib/message/README.md). */
static const struct maildex__participant cache_participant = {
    .name = "tag counts",
    .rank = 20,
    .before_commit = cache_before_commit,
    .after_rollback = cache_after_rollback,
    .close = cache_close,
};

/* db's cache, made on first use with the handle's transactions joined; NULL when memory ran out. */
static struct tag_cache *cache_of(maildex_db_t *db)
{
    struct tag_cache *c = maildex__participant_join(db, &cache_participant, sizeof *c);

    if (c && c->ids == NULL) {
        c->ids = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
        c->deltas = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
    }
    return c;
}

static maildex_status_t count_delta(maildex_db_t *db, int64_t tag, int delta)
{
    struct tag_cache *c = cache_of(db);
    gint64 key = tag;
    gint64 *slot;

    if (c == NULL)
        return MAILDEX_STATUS_NO_MEMORY;
    slot = g_hash_table_lookup(c->deltas, &key);
    if (slot == NULL) {
        gint64 *k = g_new(gint64, 1);
        *k = tag;
        slot = g_new0(gint64, 1);
        g_hash_table_insert(c->deltas, k, slot);
    }
    *slot += delta;
    return MAILDEX_STATUS_OK;
}

maildex_status_t maildex__tag_lookup(maildex_db_t *db, const char *name, bool create, int64_t *id)
{
    struct tag_cache *c = cache_of(db);
    gint64 *cached = c ? g_hash_table_lookup(c->ids, name) : NULL;
    maildex_status_t st;

    *id = 0;
    if (c == NULL)
        return MAILDEX_STATUS_NO_MEMORY;
    if (cached) {
        *id = *cached;
        return MAILDEX_STATUS_OK;
    }
    st = create ? maildex__find_or_create(db, MAILDEX__STMT_TAG_FIND, MAILDEX__STMT_TAG_CREATE, name, id)
                : maildex__lookup_id(db, MAILDEX__STMT_TAG_FIND, name, id);
    if (st == MAILDEX_STATUS_OK && *id != 0) {
        cached = g_new(gint64, 1);
        *cached = *id;
        g_hash_table_insert(c->ids, g_strdup(name), cached);
    }
    return st;
}

static maildex_status_t touch(maildex_db_t *db, int64_t message)
{
    sqlite3_stmt *stmt;
    int64_t revision;
    maildex_status_t st = maildex__current_revision(db, &revision);

    if (st == MAILDEX_STATUS_OK)
        st = maildex__stmt(db, MAILDEX__STMT_MESSAGE_TOUCH, &stmt);
    if (st)
        return st;
    sqlite3_bind_int64(stmt, 1, message);
    sqlite3_bind_int64(stmt, 2, revision);
    return maildex__step_done(db, stmt, "cannot stamp a message's revision");
}

maildex_status_t maildex__message_tag(maildex_db_t *db, int64_t message, const char *name, bool add,
                                      bool *changed)
{
    sqlite3_stmt *stmt;
    int64_t tag;
    maildex_status_t st = maildex__tag_lookup(db, name, add, &tag);
    int n;

    if (changed)
        *changed = false;
    if (st || tag == 0)
        return st;
    st = maildex__stmt(db, add ? MAILDEX__STMT_MESSAGE_TAG_ADD : MAILDEX__STMT_MESSAGE_TAG_REMOVE,
                       &stmt);
    if (st)
        return st;
    sqlite3_bind_int64(stmt, 1, tag);
    sqlite3_bind_int64(stmt, 2, message);
    st = maildex__step_done(db, stmt, "cannot change a tag");
    n = sqlite3_changes(db->sql);
    if (st || n == 0)
        return st;
    st = count_delta(db, tag, add ? 1 : -1);
    if (st)
        return st;
    if (changed)
        *changed = true;
    return touch(db, message);
}

maildex_status_t maildex__message_tag_new(maildex_db_t *db, int64_t message,
                                          const char *const *tags, size_t n)
{
    maildex_status_t st = MAILDEX_STATUS_OK;

    for (size_t i = 0; i < n && st == MAILDEX_STATUS_OK; i++) {
        sqlite3_stmt *stmt;
        int64_t tag;
        st = maildex__tag_lookup(db, tags[i], true, &tag);
        if (st == MAILDEX_STATUS_OK)
            st = maildex__stmt(db, MAILDEX__STMT_MESSAGE_TAG_ADD, &stmt);
        if (st)
            break;
        sqlite3_bind_int64(stmt, 1, tag);
        sqlite3_bind_int64(stmt, 2, message);
        st = maildex__step_done(db, stmt, "cannot tag a message");
        if (st == MAILDEX_STATUS_OK && sqlite3_changes(db->sql) > 0)
            st = count_delta(db, tag, 1);
    }
    return st;
}

maildex_status_t maildex__message_untag_all(maildex_db_t *db, int64_t message)
{
    sqlite3_stmt *stmt;
    bool row;
    maildex_status_t st = maildex__stmt(db, MAILDEX__STMT_MESSAGE_TAGS_DELETE, &stmt);

    if (st)
        return st;
    sqlite3_bind_int64(stmt, 1, message);
    while (st == MAILDEX_STATUS_OK &&
           (st = maildex__step_row(db, stmt, &row, "cannot delete a message's tags")) == 0 && row)
        st = count_delta(db, sqlite3_column_int64(stmt, 0), -1);
    sqlite3_reset(stmt);
    return st;
}

maildex_status_t maildex__message_maildir_flags(maildex_db_t *db, int64_t message, char *combined, size_t size,
                                                bool *seen_info)
{
    sqlite3_stmt *stmt;
    size_t used = 0;
    bool row;
    maildex_status_t st = maildex__stmt(db, MAILDEX__STMT_MESSAGE_FILE_FLAGS, &stmt);

    *seen_info = false;
    combined[0] = '\0';
    if (st)
        return st;
    sqlite3_bind_int64(stmt, 1, message);
    while ((st = maildex__step_row(db, stmt, &row, "cannot read a message's files")) == 0 && row) {
        const char *dir = (const char *) sqlite3_column_text(stmt, 0);
        const char *flags = (const char *) sqlite3_column_text(stmt, 1);
        bool is_new;
        if (!maildex__maildir_is_leaf(dir ? dir : "", &is_new))
            continue;
        if (flags) {
            *seen_info = true;
            for (const char *f = flags; *f && used + 1 < size; f++)
                combined[used++] = *f;
            combined[used] = '\0';
        } else if (is_new) {
            *seen_info = true;
        }
    }
    sqlite3_reset(stmt);
    return st;
}

maildex_status_t maildex__message_flags_to_tags(maildex_db_t *db, int64_t message)
{
    char combined[256];
    bool seen_info;
    maildex_status_t st = maildex__message_maildir_flags(db, message, combined, sizeof combined, &seen_info);

    if (st || !seen_info)
        return st;
    for (size_t i = 0; i < maildex__flag_tag_count && st == MAILDEX_STATUS_OK; i++) {
        const struct maildex__flag_tag *ft = &maildex__flag_tags[i];
        bool want = (strchr(combined, ft->flag) != NULL) != ft->inverse;
        st = maildex__message_tag(db, message, ft->tag, want, NULL);
    }
    return st;
}
