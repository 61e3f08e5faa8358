/* SPDX-License-Identifier: GPL-3.0-or-later */
/* properties.c: a message's properties (notmuch's key=value pairs) read through maildex's message and
 * changed with maildex_db_set_properties / _remove_properties, each change one transaction or part of
 * the caller's atomic section; and notmuch_message_properties_t, an iterator over a copy of the pairs
 * whose key is, or starts with, a given key. notmuch 0.37's remove_all_properties(_with_prefix)
 * change its message object and do not write it: the removal reaches the store with the next change
 * made through the same object, or never -- so here too (nm_message_flush). */
#include "abi.h"

#include <string.h>

/* Reads msg's properties (once). */
static notmuch_status_t load(notmuch_message_t *msg)
{
    static const maildex_pair_t none[] = {{NULL, NULL}};
    const maildex_pair_t *pairs = none;
    maildex_message_t *m;
    maildex_status_t mst;
    size_t n = 0;
    notmuch_status_t st = msg->properties ? NOTMUCH_STATUS_SUCCESS : nm_message_source(msg, "reading properties", &m);

    if (st || msg->properties)
        return st;
    if (m && (mst = maildex_message_properties(m, &pairs)) != MAILDEX_STATUS_OK)
        return nm_error(msg->db, mst, "reading properties");
    while (pairs[n].key)
        n++;
    msg->properties = talloc_zero_array(msg, maildex_pair_t, n + 1);
    for (size_t i = 0; msg->properties && i < n; i++)
        msg->properties[i] = (maildex_pair_t){talloc_strdup(msg->properties, pairs[i].key),
                                              talloc_strdup(msg->properties, pairs[i].value)};
    return msg->properties ? NOTMUCH_STATUS_SUCCESS : NOTMUCH_STATUS_OUT_OF_MEMORY;
}

struct nm_removal {
    char *key;   /* NULL: every property */
    bool prefix; /* every key starting with key */
};

static bool removes(const struct nm_removal *r, const char *key)
{
    return r->key == NULL || (r->prefix ? strncmp(key, r->key, strlen(r->key)) == 0 : strcmp(key, r->key) == 0);
}

/* The store's keys that r removes, removed, inside the caller's atomic section. */
static maildex_status_t remove_held(notmuch_message_t *msg, const struct nm_removal *r, const maildex_pair_t *stored)
{
    maildex_status_t st = MAILDEX_STATUS_OK;

    if (!r->prefix)
        return maildex_db_remove_properties(msg->db->mdb, msg->id, r->key, NULL);
    for (const maildex_pair_t *p = stored; st == MAILDEX_STATUS_OK && p->key; p++)
        if (removes(r, p->key) && (p == stored || strcmp(p[-1].key, p->key) != 0))
            st = maildex_db_remove_properties(msg->db->mdb, msg->id, p->key, NULL);
    return st;
}

notmuch_status_t nm_message_flush(notmuch_message_t *msg)
{
    static const maildex_pair_t none[] = {{NULL, NULL}};
    const maildex_pair_t *stored = none;
    maildex_message_t *m = NULL;
    maildex_status_t st;
    notmuch_status_t nst;

    if (msg->nremovals == 0)
        return NOTMUCH_STATUS_SUCCESS;
    nm_message_forget(msg, false); /* the store's pairs, not the object's */
    if ((nst = nm_message_source(msg, "changing properties", &m)) != NOTMUCH_STATUS_SUCCESS)
        return nst;
    st = m ? maildex_message_properties(m, &stored) : MAILDEX_STATUS_OK;
    if (st == MAILDEX_STATUS_OK)
        st = maildex_db_begin_atomic(msg->db->mdb);
    for (size_t i = 0; st == MAILDEX_STATUS_OK && i < msg->nremovals; i++)
        st = remove_held(msg, &msg->removals[i], stored);
    if (st == MAILDEX_STATUS_OK)
        st = maildex_db_end_atomic(msg->db->mdb);
    else
        maildex_db_end_atomic(msg->db->mdb);
    talloc_free(msg->removals);
    msg->removals = NULL;
    msg->nremovals = 0;
    nm_message_forget(msg, false);
    return nm_error(msg->db, st == MAILDEX_STATUS_NOT_FOUND ? MAILDEX_STATUS_OK : st, "changing properties");
}

/* After a change: the pairs are read again when asked. */
static notmuch_status_t changed(notmuch_message_t *msg, maildex_status_t st)
{
    if (st == MAILDEX_STATUS_NOT_FOUND) /* the message left the store: nothing to change */
        st = MAILDEX_STATUS_OK;
    nm_message_forget(msg, false);
    return nm_error(msg->db, st, "changing properties");
}

notmuch_status_t notmuch_message_get_property(notmuch_message_t *msg, const char *key, const char **value)
{
    notmuch_status_t st;

    if (value == NULL)
        return NOTMUCH_STATUS_NULL_POINTER;
    *value = NULL;
    if ((st = load(msg)) != NOTMUCH_STATUS_SUCCESS)
        return st;
    for (maildex_pair_t *p = msg->properties; key && p->key; p++)
        if (strcmp(p->key, key) == 0) {
            *value = p->value;
            break;
        }
    return NOTMUCH_STATUS_SUCCESS;
}

/* notmuch's checks, in its order: writable, no NULL, no '=' in the key. */
static notmuch_status_t check(notmuch_message_t *msg, const char *key, const char *value)
{
    notmuch_status_t st = nm_writable(msg->db);

    if (st)
        return st;
    if (key == NULL || value == NULL)
        return NOTMUCH_STATUS_NULL_POINTER;
    return strchr(key, '=') ? NOTMUCH_STATUS_ILLEGAL_ARGUMENT : NOTMUCH_STATUS_SUCCESS;
}

notmuch_status_t notmuch_message_add_property(notmuch_message_t *msg, const char *key, const char *value)
{
    maildex_pair_t pair = {key, value};
    notmuch_status_t st = check(msg, key, value);

    if (st == NOTMUCH_STATUS_SUCCESS)
        st = nm_message_flush(msg);
    return st ? st : changed(msg, maildex_db_set_properties(msg->db->mdb, msg->id, &pair, 1, false));
}

notmuch_status_t notmuch_message_remove_property(notmuch_message_t *msg, const char *key, const char *value)
{
    notmuch_status_t st = check(msg, key, value);

    if (st == NOTMUCH_STATUS_SUCCESS)
        st = nm_message_flush(msg);
    return st ? st : changed(msg, maildex_db_remove_properties(msg->db->mdb, msg->id, key, value));
}

/* The object's pairs lose what r removes, and r is held for the next write. */
static notmuch_status_t hold_removal(notmuch_message_t *msg, const char *key, bool prefix)
{
    notmuch_status_t st = nm_writable(msg->db);
    struct nm_removal *grown, r = {NULL, prefix};
    size_t kept = 0;

    if (st == NOTMUCH_STATUS_SUCCESS)
        st = load(msg);
    if (st)
        return st;
    grown = talloc_realloc(msg, msg->removals, struct nm_removal, msg->nremovals + 1);
    if (grown == NULL || (key && (r.key = talloc_strdup(grown, key)) == NULL))
        return NOTMUCH_STATUS_OUT_OF_MEMORY;
    msg->removals = grown;
    msg->removals[msg->nremovals++] = r;
    for (maildex_pair_t *p = msg->properties; p->key; p++)
        if (!removes(&r, p->key))
            msg->properties[kept++] = *p;
    msg->properties[kept] = (maildex_pair_t){NULL, NULL};
    return NOTMUCH_STATUS_SUCCESS;
}

notmuch_status_t notmuch_message_remove_all_properties(notmuch_message_t *msg, const char *key)
{
    return hold_removal(msg, key, false);
}

notmuch_status_t notmuch_message_remove_all_properties_with_prefix(notmuch_message_t *msg, const char *prefix)
{
    return hold_removal(msg, prefix, prefix != NULL);
}

notmuch_status_t notmuch_message_count_properties(notmuch_message_t *msg, const char *key, unsigned int *count)
{
    notmuch_status_t st;

    if (count == NULL || key == NULL)
        return NOTMUCH_STATUS_NULL_POINTER;
    *count = 0;
    if ((st = load(msg)) != NOTMUCH_STATUS_SUCCESS)
        return st;
    for (maildex_pair_t *p = msg->properties; p->key; p++)
        *count += strcmp(p->key, key) == 0;
    return NOTMUCH_STATUS_SUCCESS;
}

/* ---- the iterator ---------------------------------------------------------------------------------------- */

struct _notmuch_string_map_iterator {
    maildex_pair_t *pairs; /* the matching pairs, copied, ended by NULLs */
    size_t pos;
};

notmuch_message_properties_t *notmuch_message_get_properties(notmuch_message_t *msg, const char *key,
                                                             notmuch_bool_t exact)
{
    notmuch_message_properties_t *it;
    size_t n = 0, len = key ? strlen(key) : 0;

    if (load(msg) != NOTMUCH_STATUS_SUCCESS || (it = talloc_zero(msg, notmuch_message_properties_t)) == NULL)
        return NULL;
    while (msg->properties[n].key)
        n++;
    it->pairs = talloc_zero_array(it, maildex_pair_t, n + 1);
    n = 0;
    for (maildex_pair_t *p = msg->properties; it->pairs && p->key; p++)
        if (exact ? strcmp(p->key, key ? key : "") == 0 : strncmp(p->key, key ? key : "", len) == 0)
            it->pairs[n++] = (maildex_pair_t){talloc_strdup(it->pairs, p->key), talloc_strdup(it->pairs, p->value)};
    return it;
}

notmuch_bool_t notmuch_message_properties_valid(notmuch_message_properties_t *it)
{
    return it && it->pairs && it->pairs[it->pos].key != NULL;
}

void notmuch_message_properties_move_to_next(notmuch_message_properties_t *it)
{
    if (notmuch_message_properties_valid(it))
        it->pos++;
}

const char *notmuch_message_properties_key(notmuch_message_properties_t *it)
{
    return notmuch_message_properties_valid(it) ? it->pairs[it->pos].key : NULL;
}

const char *notmuch_message_properties_value(notmuch_message_properties_t *it)
{
    return notmuch_message_properties_valid(it) ? it->pairs[it->pos].value : NULL;
}

void notmuch_message_properties_destroy(notmuch_message_properties_t *it)
{
    talloc_free(it);
}
