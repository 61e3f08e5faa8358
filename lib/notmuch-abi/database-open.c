/* SPDX-License-Identifier: GPL-3.0-or-later */
/* database-open.c: the ways into a notmuch database handle -- notmuch_database_open_with_config,
 * _load_config and _create_with_config, and the deprecated open/create calls built on them -- in
 * notmuch 0.37's steps and with its statuses and messages, opening maildex's database where the
 * command line would for the same configuration (maildex_database_file), never notmuch's Xapian
 * database. A read-write open waits for another writer as every maildex writer does; a read-only
 * one never waits. */
#include "abi.h"
#include "open.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int database_destructor(notmuch_database_t *db)
{
    if (db->mdb)
        maildex_db_close(db->mdb);
    db->mdb = NULL;
    return 0;
}

static notmuch_database_t *alloc_db(const char *database_path, const char *config_path, const char *profile)
{
    notmuch_database_t *db = talloc_zero(NULL, notmuch_database_t);

    if (db == NULL)
        return NULL;
    db->config = nm_map_create(db);
    db->profile = profile ? talloc_strdup(db, profile) : NULL;
    db->params = (database_path ? NM_PARAM_DATABASE : 0) | (config_path ? NM_PARAM_CONFIG : 0) |
                 (profile ? NM_PARAM_PROFILE : 0);
    talloc_set_destructor(db, database_destructor);
    return db;
}

static void set_database_path(notmuch_database_t *db, const char *path)
{
    size_t len = strlen(path);

    while (len > 1 && path[len - 1] == '/')
        len--;
    db->path = talloc_strndup(db, path, len);
    nm_map_set(db->config, "database.path", db->path);
}

/* Whether path/.notmuch is a directory with no xapian/ in it: notmuch's own database directory made
 * but never filled, where notmuch's open fails in Xapian's words. */
static bool empty_notmuch_dir(const char *path)
{
    char *dir = talloc_asprintf(NULL, "%s/.notmuch", path);
    char *xapian = dir ? talloc_asprintf(dir, "%s/xapian", dir) : NULL;
    struct stat st;
    bool empty = xapian && stat(dir, &st) == 0 && S_ISDIR(st.st_mode) && access(xapian, F_OK) != 0;

    talloc_free(dir);
    return empty;
}

/* maildex's database for db->path (notmuch's _notmuch_choose_xapian_path): FILE_ERROR when there is
 * none, naming the file; where notmuch's .notmuch/ is there but empty, notmuch's PATH_ERROR and its
 * message (T360-symbol-hiding prints it), which is true of that directory too. */
static notmuch_status_t choose_db_file(notmuch_database_t *db, char **message)
{
    char *file = maildex_database_file(db->path, (db->params & NM_PARAM_SPLIT) != 0);
    notmuch_status_t st = nm_dir_exists(db->path, message);
    int err;

    if (file == NULL)
        return NOTMUCH_STATUS_OUT_OF_MEMORY;
    db->db_file = talloc_strdup(db, file);
    free(file);
    if (st != NOTMUCH_STATUS_SUCCESS || access(db->db_file, F_OK) == 0)
        return st;
    err = errno;
    if (!(db->params & NM_PARAM_SPLIT) && empty_notmuch_dir(db->path)) {
        if (asprintf(message, "Cannot open Xapian database at %s/.notmuch/xapian: "
                              "Couldn't stat '%s/.notmuch/xapian'\n", db->path, db->path) < 0)
            *message = NULL;
        return NOTMUCH_STATUS_PATH_ERROR;
    }
    if (asprintf(message, "Error: Cannot open database at %s: %s.\n", db->db_file, strerror(err)) < 0)
        *message = NULL;
    return NOTMUCH_STATUS_FILE_ERROR;
}

/* Opens the maildex handle for the mail root mail_root. */
static notmuch_status_t open_store(notmuch_database_t *db, maildex_db_mode_t mode, const char *mail_root,
                                   char **message)
{
    char *error = NULL;
    maildex_status_t st = maildex_db_open(db->db_file, mail_root, mode, &db->mdb, &error);
    notmuch_status_t nst = NOTMUCH_STATUS_SUCCESS;

    db->generation++;
    if (st == MAILDEX_STATUS_FILE_NOT_FOUND || st == MAILDEX_STATUS_DATABASE_TOO_NEW) {
        if (asprintf(message, "Error: %s\n", error ? error : maildex_status_to_string(st)) < 0)
            *message = NULL;
        nst = NOTMUCH_STATUS_FILE_ERROR;
    } else if (st == MAILDEX_STATUS_NO_MEMORY) {
        nst = NOTMUCH_STATUS_OUT_OF_MEMORY;
    } else if (st != MAILDEX_STATUS_OK) {
        if (asprintf(message, "A Xapian exception occurred opening database: %s\n",
                     error ? error : maildex_status_to_string(st)) < 0)
            *message = NULL;
        nst = NOTMUCH_STATUS_XAPIAN_EXCEPTION;
    }
    free(error);
    return nst;
}

/* index.header.PREFIX = Header: the user-defined fields queries and indexing know. */
static notmuch_status_t set_user_fields(notmuch_database_t *db)
{
    static const char section[] = "index.header.";
    size_t at = nm_map_lower_bound(db->config, section), n = 0;
    maildex_pair_t *fields = talloc_zero_array(db, maildex_pair_t, db->config->n + 1);
    maildex_status_t st;

    if (fields == NULL)
        return NOTMUCH_STATUS_OUT_OF_MEMORY;
    for (; at < db->config->n && strncmp(db->config->pairs[at].key, section, sizeof section - 1) == 0; at++)
        if (db->config->pairs[at].key[sizeof section - 1] && db->config->pairs[at].value)
            fields[n++] = (maildex_pair_t){db->config->pairs[at].key + sizeof section - 1,
                                           db->config->pairs[at].value};
    st = maildex_db_set_user_fields(db->mdb, n ? fields : NULL);
    talloc_free(fields);
    return nm_error(db, st, "setting up user fields");
}

/* notmuch's _finish_open: the handle, the database's config, the file's over it, the chosen
 * directories, the defaults, the user fields. */
static notmuch_status_t finish_open(notmuch_database_t *db, const char *profile, maildex_db_mode_t mode,
                                    GKeyFile *key_file, char **message)
{
    char *root = key_file ? g_key_file_get_string(key_file, "database", "mail_root", NULL) : NULL;
    char *opened_root = root && root[0] == '/' ? talloc_strdup(db, root)
                        : root ? talloc_asprintf(db, "%s/%s", getenv("HOME"), root) : talloc_strdup(db, db->path);
    notmuch_status_t st = open_store(db, mode, opened_root, message);
    const char *final_root;

    g_free(root);
    if (st == NOTMUCH_STATUS_SUCCESS)
        st = nm_config_from_database(db);
    if (st == NOTMUCH_STATUS_SUCCESS && key_file)
        st = nm_config_from_file(db, key_file);
    if (st == NOTMUCH_STATUS_SUCCESS)
        st = nm_choose_dir(db, profile, "database.hook_dir", "XDG_CONFIG_HOME", ".config", "hooks", message);
    if (st == NOTMUCH_STATUS_SUCCESS)
        st = nm_choose_dir(db, profile, "database.backup_dir", "XDG_DATA_HOME", ".local/share", "backups",
                           message);
    if (st == NOTMUCH_STATUS_SUCCESS)
        st = nm_config_defaults(db);
    /* The store was opened on a guess at the mail root: the database's own config may name another. */
    final_root = nm_map_get(db->config, "database.mail_root");
    if (st == NOTMUCH_STATUS_SUCCESS && final_root && strcmp(final_root, opened_root) != 0) {
        maildex_db_close(db->mdb);
        db->mdb = NULL;
        st = open_store(db, mode == MAILDEX_DB_CREATE ? MAILDEX_DB_READ_WRITE : mode, final_root, message);
    }
    if (st == NOTMUCH_STATUS_SUCCESS)
        st = set_user_fields(db);
    if (st == NOTMUCH_STATUS_SUCCESS) /* what a closed handle still answers */
        (void) notmuch_database_get_revision(db, NULL);
    talloc_free(opened_root);
    return st;
}

/* The first steps of an open and of a create: the config file (any failure to read it is fatal
 * here), the database path, which must be a directory. */
static notmuch_status_t locate(notmuch_database_t *db, const char *database_path, const char *config_path,
                               const char *profile, GKeyFile **key_file, char **message)
{
    notmuch_status_t st = db ? NOTMUCH_STATUS_SUCCESS : NOTMUCH_STATUS_OUT_OF_MEMORY;

    if (st == NOTMUCH_STATUS_SUCCESS && (st = nm_load_key_file(db, config_path, profile, key_file)))
        *message = strdup("Error: cannot load config file.\n");
    if (st == NOTMUCH_STATUS_SUCCESS)
        st = nm_choose_database_path(db, profile, *key_file, &database_path, message);
    if (st == NOTMUCH_STATUS_SUCCESS && (st = nm_dir_exists(database_path, message)) == 0)
        set_database_path(db, database_path);
    return st;
}

/* Hands the result out as notmuch does: the message to the caller (or freed), the handle only on
 * success. */
static notmuch_status_t finish(notmuch_database_t *db, notmuch_status_t st, char *message,
                               notmuch_database_t **database, char **error_message, bool keep_on_error)
{
    if (message) {
        if (error_message)
            *error_message = message;
        else
            free(message);
    }
    if (st && db && !keep_on_error) {
        talloc_free(db);
        db = NULL;
    }
    if (db)
        db->open = true;
    if (database)
        *database = db;
    return st;
}

notmuch_status_t notmuch_database_open_with_config(const char *database_path, notmuch_database_mode_t mode,
                                                   const char *config_path, const char *profile,
                                                   notmuch_database_t **database, char **error_message)
{
    notmuch_database_t *db = alloc_db(database_path, config_path, profile);
    GKeyFile *key_file = NULL;
    char *message = NULL;
    notmuch_status_t st = locate(db, database_path, config_path, profile, &key_file, &message);

    if (st == NOTMUCH_STATUS_SUCCESS)
        st = choose_db_file(db, &message);
    if (st == NOTMUCH_STATUS_SUCCESS) {
        db->mode = mode;
        st = finish_open(db, profile, mode == NOTMUCH_DATABASE_MODE_READ_WRITE ? MAILDEX_DB_READ_WRITE
                                                                                 : MAILDEX_DB_READ_ONLY,
                         key_file, &message);
    }
    if (key_file)
        g_key_file_free(key_file);
    return finish(db, st, message, database, error_message, false);
}

notmuch_status_t notmuch_database_load_config(const char *database_path, const char *config_path,
                                              const char *profile, notmuch_database_t **database,
                                              char **error_message)
{
    notmuch_database_t *db = alloc_db(database_path, config_path, profile);
    notmuch_status_t st = db ? NOTMUCH_STATUS_SUCCESS : NOTMUCH_STATUS_OUT_OF_MEMORY, warning = st;
    GKeyFile *key_file = NULL;
    char *message = NULL, *ignored = NULL;

    if (st == NOTMUCH_STATUS_SUCCESS)
        st = nm_load_key_file(db, config_path, profile, &key_file);
    if (st == NOTMUCH_STATUS_NO_CONFIG)
        warning = st;
    else if (st != NOTMUCH_STATUS_SUCCESS && db)
        message = strdup("Error: cannot load config file.\n");
    if (st == NOTMUCH_STATUS_SUCCESS || st == NOTMUCH_STATUS_NO_CONFIG) {
        st = nm_choose_database_path(db, profile, key_file, &database_path, &message);
        if (st == NOTMUCH_STATUS_NO_DATABASE || st == NOTMUCH_STATUS_SUCCESS) {
            warning = warning ? warning : st;
            st = NOTMUCH_STATUS_SUCCESS;
        }
    }
    /* A database that is there adds what it stores; one that is not is no error here. */
    if (st == NOTMUCH_STATUS_SUCCESS && database_path && database_path[0] == '/') {
        set_database_path(db, database_path);
        db->mode = NOTMUCH_DATABASE_MODE_READ_ONLY;
        if (choose_db_file(db, &ignored) == NOTMUCH_STATUS_SUCCESS)
            (void) finish_open(db, profile, MAILDEX_DB_READ_ONLY, key_file, &ignored);
        else if (!warning)
            warning = NOTMUCH_STATUS_NO_DATABASE;
        free(ignored);
    }
    if (st == NOTMUCH_STATUS_SUCCESS && key_file)
        st = nm_config_from_file(db, key_file);
    if (st == NOTMUCH_STATUS_SUCCESS)
        st = db->path ? nm_config_defaults(db) : NOTMUCH_STATUS_SUCCESS;
    if (key_file)
        g_key_file_free(key_file);
    if (st == NOTMUCH_STATUS_NO_MAIL_ROOT)
        st = NOTMUCH_STATUS_SUCCESS;
    st = finish(db, st, message, database, error_message,
                st == NOTMUCH_STATUS_NO_DATABASE || st == NOTMUCH_STATUS_NO_CONFIG);
    return st ? st : warning;
}

/* The database lives apart from the mail when the config file's mail root is another directory. */
static bool split_by_mail_root(notmuch_database_t *db, GKeyFile *key_file)
{
    char *root = key_file ? g_key_file_get_string(key_file, "database", "mail_root", NULL) : NULL;
    char *real_root = root ? realpath(root, NULL) : NULL, *real_path = realpath(db->path, NULL);
    bool split = real_root && real_path && strcmp(real_root, real_path) != 0;

    free(real_root);
    free(real_path);
    g_free(root);
    return split;
}

/* Where the new database goes: its directory made (not its parents), or DATABASE_EXISTS when there is
 * one already. */
static notmuch_status_t place_new_database(notmuch_database_t *db, char **message)
{
    char *file, *dir;

    if (!(db->params & NM_PARAM_SPLIT)) {
        dir = talloc_asprintf(db, "%s/.maildex", db->path);
        if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
            if (asprintf(message, "Error: Cannot create directory %s: %s.\n", dir, strerror(errno)) < 0)
                *message = NULL;
            return NOTMUCH_STATUS_FILE_ERROR;
        }
    }
    file = maildex_database_file(db->path, (db->params & NM_PARAM_SPLIT) != 0);
    if (file == NULL)
        return NOTMUCH_STATUS_OUT_OF_MEMORY;
    db->db_file = talloc_strdup(db, file);
    free(file);
    return access(db->db_file, F_OK) == 0 ? NOTMUCH_STATUS_DATABASE_EXISTS : NOTMUCH_STATUS_SUCCESS;
}

notmuch_status_t notmuch_database_create_with_config(const char *database_path, const char *config_path,
                                                     const char *profile, notmuch_database_t **database,
                                                     char **error_message)
{
    notmuch_database_t *db = alloc_db(database_path, config_path, profile);
    GKeyFile *key_file = NULL;
    char *message = NULL;
    notmuch_status_t st = locate(db, database_path, config_path, profile, &key_file, &message);

    if (st == NOTMUCH_STATUS_SUCCESS && split_by_mail_root(db, key_file))
        db->params |= NM_PARAM_SPLIT;
    if (st == NOTMUCH_STATUS_SUCCESS)
        st = place_new_database(db, &message);
    if (st == NOTMUCH_STATUS_SUCCESS) {
        db->mode = NOTMUCH_DATABASE_MODE_READ_WRITE;
        st = finish_open(db, profile, MAILDEX_DB_CREATE, key_file, &message);
    }
    if (key_file)
        g_key_file_free(key_file);
    return finish(db, st, message, database, error_message, false);
}

/* ---- the deprecated ways in: no config file ---------------------------------------------------------- */

notmuch_status_t notmuch_database_open_verbose(const char *path, notmuch_database_mode_t mode,
                                               notmuch_database_t **database, char **error_message)
{
    return notmuch_database_open_with_config(path, mode, "", NULL, database, error_message);
}

notmuch_status_t notmuch_database_open(const char *path, notmuch_database_mode_t mode,
                                       notmuch_database_t **database)
{
    char *message = NULL;
    notmuch_status_t st = notmuch_database_open_with_config(path, mode, "", NULL, database, &message);

    /* notmuch prints what it would have handed out */
    if (message)
        fputs(message, stderr);
    free(message);
    return st;
}

notmuch_status_t notmuch_database_create_verbose(const char *path, notmuch_database_t **database,
                                                 char **error_message)
{
    return notmuch_database_create_with_config(path, "", NULL, database, error_message);
}

notmuch_status_t notmuch_database_create(const char *path, notmuch_database_t **database)
{
    char *message = NULL;
    notmuch_status_t st = notmuch_database_create_with_config(path, "", NULL, database, &message);

    if (message)
        fputs(message, stderr);
    free(message);
    return st;
}
