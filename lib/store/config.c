/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Database-stored config (the config table: maildex_db_config_get, set, list) and the user-defined
 * fields a host hands the handle (maildex_db_set_user_fields). Keys mean nothing here. */
#include "maildex-private.h"

#include <string.h>

maildex_status_t maildex_db_config_get(maildex_db_t *db, const char *key, const char **value)
{
    sqlite3_stmt *stmt;
    maildex_status_t st = maildex__stmt(db, MAILDEX__STMT_CONFIG_GET, &stmt);
    int rc;

    *value = NULL;
    if (st)
        return st;
    sqlite3_bind_text(stmt, 1, key, -1, SQLITE_STATIC);
    rc = sqlite3_step(stmt);
    if (rc == SQLITE_ROW) {
        talloc_free(db->config_value);
        db->config_value = talloc_strdup(db, (const char *) sqlite3_column_text(stmt, 0));
        *value = db->config_value;
    } else if (rc != SQLITE_DONE) {
        st = maildex__sql_error(db, sqlite3_reset(stmt), "cannot read config");
    }
    sqlite3_reset(stmt);
    return st;
}

maildex_status_t maildex_db_config_set(maildex_db_t *db, const char *key, const char *value)
{
    sqlite3_stmt *stmt;
    maildex_status_t st = maildex__begin(db);
    int rc;

    if (st)
        return st;
    st = maildex__stmt(db, value ? MAILDEX__STMT_CONFIG_SET : MAILDEX__STMT_CONFIG_DELETE, &stmt);
    if (st == MAILDEX_STATUS_OK) {
        sqlite3_bind_text(stmt, 1, key, -1, SQLITE_STATIC);
        if (value)
            sqlite3_bind_text(stmt, 2, value, -1, SQLITE_STATIC);
        rc = sqlite3_step(stmt);
        if (rc != SQLITE_DONE)
            st = maildex__sql_error(db, sqlite3_reset(stmt), "cannot store config");
        sqlite3_reset(stmt);
    }
    if (st) {
        maildex__rollback(db);
        return st;
    }
    return maildex__commit(db);
}

maildex_status_t maildex_db_set_user_fields(maildex_db_t *db, const maildex_pair_t *fields)
{
    size_t n = 0;
    maildex_pair_t *copy;

    while (fields && fields[n].key)
        n++;
    talloc_free(db->user_fields);
    db->user_fields = NULL;
    if (n == 0)
        return MAILDEX_STATUS_OK;
    if ((copy = talloc_zero_array(db, maildex_pair_t, n + 1)) == NULL)
        return maildex__error(db, MAILDEX_STATUS_NO_MEMORY, "out of memory");
    for (size_t i = 0; i < n; i++) {
        copy[i].key = talloc_strdup(copy, fields[i].key);
        copy[i].value = talloc_strdup(copy, fields[i].value ? fields[i].value : "");
        if (copy[i].key == NULL || copy[i].value == NULL) {
            talloc_free(copy);
            return maildex__error(db, MAILDEX_STATUS_NO_MEMORY, "out of memory");
        }
    }
    db->user_fields = copy;
    return MAILDEX_STATUS_OK;
}

maildex_status_t maildex_db_config_list(maildex_db_t *db, const char *prefix,
                                        const maildex_pair_t **out)
{
    sqlite3_stmt *stmt;
    maildex_pair_t *pairs = talloc_zero_array(db, maildex_pair_t, 1);
    size_t n = 0, plen = strlen(prefix);
    bool row;
    maildex_status_t st = maildex__stmt(db, MAILDEX__STMT_CONFIG_LIST, &stmt);

    *out = NULL;
    if (st == MAILDEX_STATUS_OK && pairs == NULL)
        st = maildex__error(db, MAILDEX_STATUS_NO_MEMORY, "out of memory");
    if (st) {
        talloc_free(pairs);
        return st;
    }
    sqlite3_bind_text(stmt, 1, prefix, -1, SQLITE_STATIC);
    while ((st = maildex__step_row(db, stmt, &row, "cannot list config")) == MAILDEX_STATUS_OK && row) {
        const char *key = (const char *) sqlite3_column_text(stmt, 0);
        maildex_pair_t *grown;
        if (strncmp(key, prefix, plen) != 0)
            break; /* past the keys with this prefix: they sort together */
        grown = talloc_realloc(db, pairs, maildex_pair_t, n + 2);
        if (grown == NULL) {
            st = maildex__error(db, MAILDEX_STATUS_NO_MEMORY, "out of memory");
            break;
        }
        pairs = grown;
        pairs[n].key = talloc_strdup(pairs, key);
        pairs[n].value = talloc_strdup(pairs, (const char *) sqlite3_column_text(stmt, 1));
        pairs[++n] = (maildex_pair_t){NULL, NULL};
    }
    sqlite3_reset(stmt);
    if (st) {
        talloc_free(pairs);
        return st;
    }
    talloc_free(db->config_pairs);
    db->config_pairs = pairs;
    *out = pairs;
    return MAILDEX_STATUS_OK;
}
