/* SPDX-License-Identifier: GPL-3.0-or-later */
/* config.c: notmuch's configuration API on an open handle. notmuch_database_{get,set}_config and
 * notmuch_config_{get,set,get_values,get_pairs} answer from the handle's map (the database's keys,
 * the config file's over them, notmuch's defaults: what the handle knew when it was opened, plus what
 * it set since); notmuch_database_get_config_list lists what the database itself stores (maildex's
 * maildex_db_config_*, which `maildex dump` writes as notmuch's does). A value list is split at ';'
 * as notmuch splits it: blanks around items and empty items dropped. */
#include "abi.h"
#include "open.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

notmuch_status_t notmuch_database_set_config(notmuch_database_t *db, const char *key, const char *value)
{
    notmuch_status_t st = nm_writable(db);
    maildex_status_t mst;

    if (st)
        return st;
    /* notmuch stores config as Xapian metadata, where an empty value is no value */
    mst = maildex_db_config_set(db->mdb, key, value && *value ? value : NULL);
    if (mst != MAILDEX_STATUS_OK) {
        nm_log(db, "Error: A Xapian exception occurred setting metadata: %s\n", maildex_db_errmsg(db->mdb));
        return mst == MAILDEX_STATUS_READ_ONLY ? NOTMUCH_STATUS_READ_ONLY_DATABASE : NOTMUCH_STATUS_XAPIAN_EXCEPTION;
    }
    nm_map_set(db->config, key, value);
    return NOTMUCH_STATUS_SUCCESS;
}

notmuch_status_t notmuch_database_get_config(notmuch_database_t *db, const char *key, char **value)
{
    const char *stored;

    if (value == NULL)
        return NOTMUCH_STATUS_NULL_POINTER;
    stored = nm_map_get(db->config, key);
    *value = strdup(stored ? stored : "");
    return *value ? NOTMUCH_STATUS_SUCCESS : NOTMUCH_STATUS_OUT_OF_MEMORY;
}

const char *notmuch_config_get(notmuch_database_t *db, notmuch_config_key_t key)
{
    const char *name = nm_config_key_name(key);

    return name ? nm_map_get(db->config, name) : NULL;
}

notmuch_status_t notmuch_config_set(notmuch_database_t *db, notmuch_config_key_t key, const char *value)
{
    return notmuch_database_set_config(db, nm_config_key_name(key), value);
}

notmuch_status_t notmuch_config_get_bool(notmuch_database_t *db, notmuch_config_key_t key, notmuch_bool_t *value)
{
    const char *name = nm_config_key_name(key), *text;

    if (name == NULL)
        return NOTMUCH_STATUS_ILLEGAL_ARGUMENT;
    text = nm_map_get(db->config, name);
    if (text == NULL)
        *value = FALSE;
    else if (strcasecmp(text, "false") == 0 || strcasecmp(text, "no") == 0)
        *value = FALSE;
    else if (strcasecmp(text, "true") == 0 || strcasecmp(text, "yes") == 0)
        *value = TRUE;
    else
        return NOTMUCH_STATUS_ILLEGAL_ARGUMENT;
    return NOTMUCH_STATUS_SUCCESS;
}

const char *notmuch_config_path(notmuch_database_t *db)
{
    return db->config_path;
}

/* ---- what the database stores ----------------------------------------------------------------------- */

struct _notmuch_config_list {
    notmuch_database_t *db;
    unsigned generation;
    maildex_pair_t *pairs; /* copied, ended by NULLs */
    size_t pos;
};

notmuch_status_t notmuch_database_get_config_list(notmuch_database_t *db, const char *prefix,
                                                  notmuch_config_list_t **out)
{
    notmuch_config_list_t *list = talloc_zero(db, notmuch_config_list_t);
    const maildex_pair_t *pairs = NULL;
    maildex_status_t st = db->mdb ? maildex_db_config_list(db->mdb, prefix ? prefix : "", &pairs)
                                  : MAILDEX_STATUS_DATABASE_ERROR;
    size_t n = 0;

    *out = NULL;
    if (list == NULL)
        return NOTMUCH_STATUS_OUT_OF_MEMORY;
    if (st != MAILDEX_STATUS_OK) {
        talloc_free(list);
        return nm_error(db, st, "getting metadata iterator");
    }
    while (pairs[n].key)
        n++;
    list->db = db;
    list->generation = db->generation;
    list->pairs = talloc_zero_array(list, maildex_pair_t, n + 1);
    for (size_t i = 0; list->pairs && i < n; i++)
        list->pairs[i] = (maildex_pair_t){talloc_strdup(list->pairs, pairs[i].key),
                                          talloc_strdup(list->pairs, pairs[i].value)};
    *out = list;
    return list->pairs ? NOTMUCH_STATUS_SUCCESS : NOTMUCH_STATUS_OUT_OF_MEMORY;
}

notmuch_bool_t notmuch_config_list_valid(notmuch_config_list_t *list)
{
    return list && list->pairs && list->pairs[list->pos].key != NULL;
}

const char *notmuch_config_list_key(notmuch_config_list_t *list)
{
    return list->pairs[list->pos].key;
}

/* notmuch reads the value from the database when asked: a closed handle has none. */
const char *notmuch_config_list_value(notmuch_config_list_t *list)
{
    return nm_live(list->db, list->generation) ? list->pairs[list->pos].value : NULL;
}

void notmuch_config_list_move_to_next(notmuch_config_list_t *list)
{
    if (notmuch_config_list_valid(list))
        list->pos++;
}

void notmuch_config_list_destroy(notmuch_config_list_t *list)
{
    talloc_free(list);
}

/* ---- value lists ------------------------------------------------------------------------------------- */

struct _notmuch_config_values {
    char *string;    /* the whole value */
    const char *at;  /* the current item, or NULL at the end */
    size_t len;
    void *children;  /* the strings handed out */
};

/* The item at or after s (blanks and empty items skipped, a '\' escaping the next character), its
 * length in *len without trailing blanks; NULL when there is none. */
static const char *split_item(const char *s, size_t *len)
{
    size_t count = 0, last = 0;
    bool escaping = false;

    while (*s && (*s == ';' || isspace((unsigned char) *s)))
        s++;
    while (s[count] && (escaping || s[count] != ';')) {
        if (!isspace((unsigned char) s[count]))
            last = count;
        escaping = s[count] == '\\';
        count++;
    }
    if (count == 0)
        return NULL;
    *len = last + 1;
    return s;
}

notmuch_config_values_t *notmuch_config_get_values_string(notmuch_database_t *db, const char *key)
{
    const char *value = nm_map_get(db->config, key);
    notmuch_config_values_t *values;

    if (value == NULL || (values = talloc_zero(db, notmuch_config_values_t)) == NULL)
        return NULL;
    values->string = talloc_strdup(values, value);
    values->children = talloc_new(values);
    values->at = split_item(values->string, &values->len);
    return values;
}

notmuch_config_values_t *notmuch_config_get_values(notmuch_database_t *db, notmuch_config_key_t key)
{
    const char *name = nm_config_key_name(key);

    return name ? notmuch_config_get_values_string(db, name) : NULL;
}

notmuch_bool_t notmuch_config_values_valid(notmuch_config_values_t *values)
{
    return values && values->at != NULL;
}

const char *notmuch_config_values_get(notmuch_config_values_t *values)
{
    return talloc_strndup(values->children, values->at, values->len);
}

void notmuch_config_values_move_to_next(notmuch_config_values_t *values)
{
    if (values->at)
        values->at = split_item(values->at + values->len, &values->len);
}

void notmuch_config_values_start(notmuch_config_values_t *values)
{
    if (values == NULL)
        return;
    talloc_free(values->children);
    values->children = talloc_new(values);
    values->at = split_item(values->string, &values->len);
}

void notmuch_config_values_destroy(notmuch_config_values_t *values)
{
    talloc_free(values);
}

/* ---- every key and value ----------------------------------------------------------------------------- */

struct _notmuch_config_pairs {
    notmuch_database_t *db;
    char *prefix;
    size_t pos;
};

notmuch_config_pairs_t *notmuch_config_get_pairs(notmuch_database_t *db, const char *prefix)
{
    notmuch_config_pairs_t *pairs = talloc_zero(db, notmuch_config_pairs_t);

    if (pairs == NULL)
        return NULL;
    pairs->db = db;
    pairs->prefix = talloc_strdup(pairs, prefix ? prefix : "");
    pairs->pos = nm_map_lower_bound(db->config, pairs->prefix);
    return pairs;
}

notmuch_bool_t notmuch_config_pairs_valid(notmuch_config_pairs_t *pairs)
{
    const struct nm_map *map = pairs ? pairs->db->config : NULL;

    return map && pairs->pos < map->n &&
           strncmp(map->pairs[pairs->pos].key, pairs->prefix, strlen(pairs->prefix)) == 0;
}

void notmuch_config_pairs_move_to_next(notmuch_config_pairs_t *pairs)
{
    if (notmuch_config_pairs_valid(pairs))
        pairs->pos++;
}

const char *notmuch_config_pairs_key(notmuch_config_pairs_t *pairs)
{
    return notmuch_config_pairs_valid(pairs) ? pairs->db->config->pairs[pairs->pos].key : NULL;
}

const char *notmuch_config_pairs_value(notmuch_config_pairs_t *pairs)
{
    return notmuch_config_pairs_valid(pairs) ? pairs->db->config->pairs[pairs->pos].value : NULL;
}

void notmuch_config_pairs_destroy(notmuch_config_pairs_t *pairs)
{
    talloc_free(pairs);
}
