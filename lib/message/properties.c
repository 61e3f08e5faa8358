/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Message properties (notmuch's key=value pairs on a message): reading a message's, changing them by
 * Message-ID (maildex_db_set_properties, maildex_db_remove_properties), and what `reindex` drops.
 * Only what changed is written, and a change stamps the message's revision, as a tag change does.
 * The property: query field is query/field-property.c's; deleting a message's properties with the message
 * is message/write.c's. */
#include "store/maildex-private.h"

#include "properties.h"

#include <string.h>

maildex_status_t maildex__properties_read(maildex_db_t *db, void *ctx, int64_t key,
                                          maildex_pair_t **out, size_t *n)
{
    sqlite3_stmt *stmt;
    maildex_pair_t *pairs = talloc_zero_array(ctx, maildex_pair_t, 1);
    bool row;
    maildex_status_t st = maildex__stmt(db, MAILDEX__STMT_PROPERTIES_OF_MESSAGE, &stmt);

    *out = NULL;
    *n = 0;
    if (st == MAILDEX_STATUS_OK && pairs == NULL)
        st = maildex__error(db, MAILDEX_STATUS_NO_MEMORY, "out of memory");
    if (st) {
        talloc_free(pairs);
        return st;
    }
    sqlite3_bind_int64(stmt, 1, key);
    while ((st = maildex__step_row(db, stmt, &row, "cannot read a message's properties")) == 0 && row) {
        maildex_pair_t *grown = talloc_realloc(ctx, pairs, maildex_pair_t, *n + 2);
        if (grown == NULL) {
            st = maildex__error(db, MAILDEX_STATUS_NO_MEMORY, "out of memory");
            break;
        }
        pairs = grown;
        pairs[*n].key = talloc_strdup(pairs, (const char *) sqlite3_column_text(stmt, 0));
        pairs[*n].value = talloc_strdup(pairs, (const char *) sqlite3_column_text(stmt, 1));
        pairs[++*n] = (maildex_pair_t){NULL, NULL};
    }
    sqlite3_reset(stmt);
    if (st) {
        talloc_free(pairs);
        *n = 0;
        return st;
    }
    *out = pairs;
    return MAILDEX_STATUS_OK;
}

maildex_status_t maildex__properties_reindexed(maildex_db_t *db, int64_t key, bool drop_session_keys)
{
    sqlite3_stmt *stmt;
    /* notmuch_message_reindex drops the "index." properties: they describe the last indexing
     * (index.decryption, index.repaired) and the new one sets its own. */
    maildex_status_t st = maildex__run_ids(db, MAILDEX__STMT_PROPERTIES_DELETE_INDEX, key, 0,
                                           "cannot drop a message's index.* properties");

    if (st || !drop_session_keys)
        return st;
    st = maildex__stmt(db, MAILDEX__STMT_PROPERTIES_DELETE_KEY, &stmt);
    if (st)
        return st;
    sqlite3_bind_int64(stmt, 1, key);
    sqlite3_bind_text(stmt, 2, "session-key", -1, SQLITE_STATIC);
    return maildex__step_done(db, stmt, "cannot drop a message's session keys");
}

maildex_status_t maildex__session_keys(maildex_db_t *db, void *ctx, int64_t key, const char ***out)
{
    maildex_pair_t *pairs = NULL;
    size_t n = 0, found = 0;
    maildex_status_t st = maildex__properties_read(db, ctx, key, &pairs, &n);

    *out = NULL;
    for (size_t i = 0; st == MAILDEX_STATUS_OK && i < n; i++) {
        if (strcmp(pairs[i].key, "session-key") != 0)
            continue;
        if (*out == NULL && (*out = talloc_zero_array(ctx, const char *, n + 1)) == NULL)
            st = maildex__error(db, MAILDEX_STATUS_NO_MEMORY, "out of memory");
        else
            (*out)[found++] = pairs[i].value;
    }
    if (*out) /* the values live with the array */
        talloc_steal(*out, pairs);
    else
        talloc_free(pairs);
    return st;
}

maildex_status_t maildex__property_add(maildex_db_t *db, int64_t key, const char *k, const char *v)
{
    sqlite3_stmt *stmt;
    maildex_status_t st = maildex__stmt(db, MAILDEX__STMT_PROPERTY_ADD, &stmt);

    if (st)
        return st;
    sqlite3_bind_int64(stmt, 1, key);
    sqlite3_bind_text(stmt, 2, k, -1, SQLITE_STATIC);
    sqlite3_bind_text(stmt, 3, v, -1, SQLITE_STATIC);
    return maildex__step_done(db, stmt, "cannot add a property");
}

maildex_status_t maildex__properties_indexed(maildex_db_t *db, int64_t key,
                                             const struct maildex__parsed_message *m)
{
    maildex_status_t st = MAILDEX_STATUS_OK;

    for (size_t i = 0; st == MAILDEX_STATUS_OK && m->session_keys && m->session_keys[i]; i++)
        st = maildex__property_add(db, key, "session-key", m->session_keys[i]);
    if (st == MAILDEX_STATUS_OK && (m->decryption & MAILDEX__DECRYPTION_FAILURE))
        st = maildex__property_add(db, key, "index.decryption", "failure");
    if (st == MAILDEX_STATUS_OK && (m->decryption & MAILDEX__DECRYPTION_SUCCESS))
        st = maildex__property_add(db, key, "index.decryption", "success");
    if (st == MAILDEX_STATUS_OK && m->repaired_mixedup)
        st = maildex__property_add(db, key, "index.repaired", "mixedup");
    if (st == MAILDEX_STATUS_OK && m->repaired_legacy_display)
        st = maildex__property_add(db, key, "index.repaired", "skip-protected-headers-legacy-display");
    return st;
}

/* Adds (add) or removes one pair; *changed is set when a row was written. */
static maildex_status_t write_pair(maildex_db_t *db, int64_t key, const char *k, const char *v, bool add,
                                   bool *changed)
{
    sqlite3_stmt *stmt;
    maildex_status_t st = maildex__stmt(db, add ? MAILDEX__STMT_PROPERTY_ADD : MAILDEX__STMT_PROPERTY_REMOVE,
                                        &stmt);

    if (st)
        return st;
    sqlite3_bind_int64(stmt, 1, key);
    sqlite3_bind_text(stmt, 2, k, -1, SQLITE_STATIC);
    sqlite3_bind_text(stmt, 3, v, -1, SQLITE_STATIC);
    st = maildex__step_done(db, stmt, add ? "cannot add a property" : "cannot remove a property");
    if (st == MAILDEX_STATUS_OK && sqlite3_changes(db->sql) > 0)
        *changed = true;
    return st;
}

static bool has_pair(const maildex_pair_t *pairs, size_t n, const char *k, const char *v)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(pairs[i].key, k) == 0 && strcmp(pairs[i].value, v) == 0)
            return true;
    return false;
}

/* What change() does: add the pairs, replace every property by them, or remove (a key, a pair). */
enum change_kind { ADD, REPLACE, REMOVE };

/* Whether the stored pair p goes: REPLACE drops what the new pairs do not hold; REMOVE what key and
 * value select (NULL: any); ADD nothing. */
static bool goes(const maildex_pair_t *p, enum change_kind kind, const maildex_pair_t *keep, size_t nkeep,
                 const char *key, const char *value)
{
    if (kind == ADD)
        return false;
    if (kind == REPLACE)
        return !has_pair(keep, nkeep, p->key, p->value);
    if (key == NULL)
        return true;
    return strcmp(p->key, key) == 0 && (value == NULL || strcmp(p->value, value) == 0);
}

/* The one change behind set and remove, on the message whose Message-ID is message_id: removes the
 * stored pairs that go (see goes), then adds pairs[0..n). */
static maildex_status_t change(maildex_db_t *db, const char *message_id, const maildex_pair_t *pairs,
                               size_t n, enum change_kind kind, const char *key, const char *value)
{
    void *local = talloc_new(NULL);
    maildex_pair_t *stored = NULL;
    size_t nstored = 0;
    int64_t msg = 0, revision;
    bool changed = false;
    maildex_status_t st = maildex__begin(db);

    if (st == MAILDEX_STATUS_OK)
        st = maildex__lookup_id(db, MAILDEX__STMT_MESSAGE_FIND, message_id, &msg);
    if (st == MAILDEX_STATUS_OK && msg == 0) {
        talloc_free(local);
        maildex__commit(db); /* nothing was written: ends only this call's part of the transaction */
        return maildex__error(db, MAILDEX_STATUS_NOT_FOUND, "no message with Message-ID '%s'", message_id);
    }
    if (st == MAILDEX_STATUS_OK)
        st = maildex__properties_read(db, local, msg, &stored, &nstored);
    for (size_t i = 0; i < nstored && st == MAILDEX_STATUS_OK; i++)
        if (goes(&stored[i], kind, pairs, n, key, value))
            st = write_pair(db, msg, stored[i].key, stored[i].value, false, &changed);
    for (size_t i = 0; i < n && st == MAILDEX_STATUS_OK; i++)
        st = write_pair(db, msg, pairs[i].key, pairs[i].value, true, &changed);
    if (st == MAILDEX_STATUS_OK && changed)
        st = maildex__current_revision(db, &revision);
    if (st == MAILDEX_STATUS_OK && changed)
        st = maildex__run_ids(db, MAILDEX__STMT_MESSAGE_TOUCH, msg, revision, "cannot stamp a message");
    talloc_free(local);
    if (st == MAILDEX_STATUS_OK)
        return maildex__commit(db);
    if (db->in_transaction)
        maildex__rollback(db);
    return st;
}

/* notmuch's rule for a key: no '=' (it would end the key in property:KEY=VALUE). */
static maildex_status_t check_key(maildex_db_t *db, const char *key)
{
    if (key && strchr(key, '=') == NULL)
        return MAILDEX_STATUS_OK;
    return maildex__error(db, MAILDEX_STATUS_INVALID_ARGUMENT, "invalid property key '%s': %s",
                          key ? key : "(null)", key ? "it contains '='" : "a key is needed");
}

maildex_status_t maildex_db_set_properties(maildex_db_t *db, const char *message_id,
                                           const maildex_pair_t *pairs, size_t n, bool replace)
{
    maildex_status_t st = MAILDEX_STATUS_OK;

    if (message_id == NULL)
        return maildex__error(db, MAILDEX_STATUS_INVALID_ARGUMENT, "no Message-ID given");
    for (size_t i = 0; i < n && st == MAILDEX_STATUS_OK; i++) {
        st = check_key(db, pairs[i].key);
        if (st == MAILDEX_STATUS_OK && pairs[i].value == NULL)
            st = maildex__error(db, MAILDEX_STATUS_INVALID_ARGUMENT, "property '%s' has no value",
                                pairs[i].key);
    }
    return st ? st : change(db, message_id, pairs, n, replace ? REPLACE : ADD, NULL, NULL);
}

maildex_status_t maildex_db_remove_properties(maildex_db_t *db, const char *message_id,
                                              const char *key, const char *value)
{
    if (message_id == NULL)
        return maildex__error(db, MAILDEX_STATUS_INVALID_ARGUMENT, "no Message-ID given");
    if (key && check_key(db, key) != MAILDEX_STATUS_OK)
        return MAILDEX_STATUS_INVALID_ARGUMENT;
    return change(db, message_id, NULL, 0, REMOVE, key, value);
}
