/* SPDX-License-Identifier: GPL-3.0-or-later */
/* config-file.c: where a notmuch database handle's configuration and database come from, as notmuch
 * 0.37's lib/open.cc decides: the config file ($NOTMUCH_CONFIG, $XDG_CONFIG_HOME/notmuch/<profile>/
 * config, ~/.notmuch-config[.<profile>]), the database path ($NOTMUCH_DATABASE, database.path,
 * $XDG_DATA_HOME/notmuch/<profile>, $MAILDIR, ~/mail), the keys the file and the database hold, and
 * notmuch's defaults. The file is read with GLib's key-file parser, as notmuch reads it. It opens no
 * database (database-open.c does) and never writes the file. */
#include "abi.h"
#include "open.h"

#include <errno.h>
#include <glib.h>
#include <libgen.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* $<var>/notmuch/<profile>, $HOME/<fallback>/notmuch/<profile> when var is unset; NULL without HOME. */
char *nm_xdg_dir(void *ctx, const char *var, const char *fallback, const char *profile)
{
    const char *root = getenv(var), *home = getenv("HOME");
    char *dir;

    if (root == NULL && home == NULL)
        return NULL;
    if (profile == NULL)
        profile = getenv("NOTMUCH_PROFILE");
    if (profile == NULL)
        profile = "default";
    if (root)
        return talloc_asprintf(ctx, "%s/notmuch/%s", root, profile);
    dir = talloc_asprintf(ctx, "%s/%s/notmuch/%s", home, fallback, profile);
    return dir;
}

notmuch_status_t nm_load_key_file(notmuch_database_t *db, const char *path, const char *profile,
                                  GKeyFile **key_file)
{
    notmuch_status_t st = NOTMUCH_STATUS_SUCCESS;

    *key_file = NULL;
    if (path && *path == '\0') /* "": no config file at all */
        return st;
    if (path == NULL)
        path = getenv("NOTMUCH_CONFIG");
    if (path == NULL) {
        char *dir = nm_xdg_dir(db, "XDG_CONFIG_HOME", ".config", profile);
        char *xdg = dir ? talloc_asprintf(db, "%s/config", dir) : NULL;
        path = xdg && access(xdg, R_OK) == 0 ? xdg : NULL;
    }
    if (path == NULL) {
        const char *p = profile ? profile : getenv("NOTMUCH_PROFILE");
        path = talloc_asprintf(db, "%s/.notmuch-config%s%s", getenv("HOME"), p ? "." : "", p ? p : "");
    }
    db->config_path = talloc_strdup(db, path);
    *key_file = g_key_file_new();
    if (!g_key_file_load_from_file(*key_file, path, G_KEY_FILE_NONE, NULL))
        st = NOTMUCH_STATUS_NO_CONFIG;
    return st;
}

notmuch_status_t nm_dir_exists(const char *path, char **message)
{
    struct stat sb;

    if (stat(path, &sb) != 0) {
        if (message && asprintf(message, "Error: Cannot open database at %s: %s.\n", path, strerror(errno)) < 0)
            *message = NULL;
        return NOTMUCH_STATUS_FILE_ERROR;
    }
    if (!S_ISDIR(sb.st_mode)) {
        if (message && asprintf(message, "Error: Cannot open database at %s: Not a directory.\n", path) < 0)
            *message = NULL;
        return NOTMUCH_STATUS_FILE_ERROR;
    }
    return NOTMUCH_STATUS_SUCCESS;
}

/* A directory that exists, or NULL (the message of a miss is not wanted). */
static const char *existing_dir(const char *path)
{
    struct stat sb;

    return path && stat(path, &sb) == 0 && S_ISDIR(sb.st_mode) ? path : NULL;
}

notmuch_status_t nm_choose_database_path(notmuch_database_t *db, const char *profile, GKeyFile *key_file,
                                         const char **path, char **message)
{
    if (*path == NULL)
        *path = getenv("NOTMUCH_DATABASE");
    if (*path == NULL && key_file) {
        char *p = g_key_file_get_string(key_file, "database", "path", NULL);
        if (p)
            *path = p[0] == '/' ? talloc_strdup(db, p) : talloc_asprintf(db, "%s/%s", getenv("HOME"), p);
        g_free(p);
    }
    if (*path == NULL) {
        *path = existing_dir(nm_xdg_dir(db, "XDG_DATA_HOME", ".local/share", profile));
        if (*path)
            db->params |= NM_PARAM_SPLIT;
    }
    if (*path == NULL)
        *path = getenv("MAILDIR");
    if (*path == NULL)
        *path = existing_dir(talloc_asprintf(db, "%s/mail", getenv("HOME")));
    if (*path == NULL) {
        *message = strdup("Error: could not locate database.\n");
        return NOTMUCH_STATUS_NO_DATABASE;
    }
    if ((*path)[0] != '/') {
        *message = strdup("Error: Database path must be absolute.\n");
        return NOTMUCH_STATUS_PATH_ERROR;
    }
    return NOTMUCH_STATUS_SUCCESS;
}

/* notmuch's _expand_path: these keys' relative values are relative to $HOME (backup_path, not
 * backup_dir: notmuch's spelling). */
static char *expand_path(void *ctx, const char *key, const char *value)
{
    static const char *const keys[] = {"database.path", "database.mail_root", "database.hook_dir",
                                       "database.backup_path"};

    for (size_t i = 0; value && value[0] != '/' && i < sizeof keys / sizeof *keys; i++)
        if (strcmp(key, keys[i]) == 0)
            return talloc_asprintf(ctx, "%s/%s", getenv("HOME"), value);
    return talloc_strdup(ctx, value);
}

/* A database path the caller gave is not overridden by a stored or configured one. */
static bool keeps_path(notmuch_database_t *db, const char *key)
{
    return strcmp(key, "database.path") == 0 && (db->params & NM_PARAM_DATABASE) && db->mdb;
}

notmuch_status_t nm_config_from_database(notmuch_database_t *db)
{
    const maildex_pair_t *pairs;
    maildex_status_t st = maildex_db_config_list(db->mdb, "", &pairs);

    if (st != MAILDEX_STATUS_OK)
        return nm_error(db, st, "getting metadata iterator");
    for (; pairs->key; pairs++) {
        char *value;
        if (keeps_path(db, pairs->key))
            continue;
        value = expand_path(db, pairs->key, pairs->value);
        nm_map_append(db->config, pairs->key, value);
        talloc_free(value);
    }
    return NOTMUCH_STATUS_SUCCESS;
}

notmuch_status_t nm_config_from_file(notmuch_database_t *db, GKeyFile *key_file)
{
    gchar **groups = g_key_file_get_groups(key_file, NULL);
    notmuch_status_t st = NOTMUCH_STATUS_SUCCESS;

    for (gchar **group = groups; st == NOTMUCH_STATUS_SUCCESS && *group; group++) {
        gchar **keys = g_key_file_get_keys(key_file, *group, NULL, NULL);
        for (gchar **k = keys; st == NOTMUCH_STATUS_SUCCESS && k && *k; k++) {
            char *key = talloc_asprintf(db, "%s.%s", *group, *k), *value;
            gchar *raw;
            if (keeps_path(db, key)) {
                talloc_free(key);
                continue;
            }
            raw = g_key_file_get_string(key_file, *group, *k, NULL);
            if (raw == NULL)
                st = NOTMUCH_STATUS_FILE_ERROR;
            value = expand_path(db, key, raw);
            if (raw)
                nm_map_set(db->config, key, value);
            g_free(raw);
            talloc_free(value);
            talloc_free(key);
        }
        g_strfreev(keys);
    }
    g_strfreev(groups);
    return st;
}

/* Where notmuch keeps its own files for the database: database.path itself when the database lives
 * apart from the mail, else its .notmuch/ (notmuch's dirname of the Xapian path). */
static char *notmuch_dir(void *ctx, notmuch_database_t *db)
{
    return (db->params & NM_PARAM_SPLIT) ? talloc_strdup(ctx, db->path)
                                          : talloc_asprintf(ctx, "%s/.notmuch", db->path);
}

notmuch_status_t nm_choose_dir(notmuch_database_t *db, const char *profile, const char *key,
                               const char *var, const char *fallback, const char *subdir, char **message)
{
    char *parent, *dir;
    struct stat sb;

    if (nm_map_get(db->config, key))
        return NOTMUCH_STATUS_SUCCESS;
    parent = nm_xdg_dir(db, var, fallback, profile);
    if (parent == NULL)
        return NOTMUCH_STATUS_PATH_ERROR;
    dir = talloc_asprintf(db, "%s/%s", parent, subdir);
    if (stat(dir, &sb) != 0) {
        if (errno != ENOENT) {
            if (asprintf(message, "Error: Cannot stat %s: %s.\n", dir, strerror(errno)) < 0)
                *message = NULL;
            return NOTMUCH_STATUS_FILE_ERROR;
        }
        dir = talloc_asprintf(db, "%s/%s", notmuch_dir(db, db), subdir);
    }
    nm_map_set(db->config, key, dir);
    return NOTMUCH_STATUS_SUCCESS;
}

const char *nm_config_key_name(notmuch_config_key_t key)
{
    static const char *const names[NOTMUCH_CONFIG_LAST] = {
        [NOTMUCH_CONFIG_DATABASE_PATH] = "database.path",
        [NOTMUCH_CONFIG_MAIL_ROOT] = "database.mail_root",
        [NOTMUCH_CONFIG_HOOK_DIR] = "database.hook_dir",
        [NOTMUCH_CONFIG_BACKUP_DIR] = "database.backup_dir",
        [NOTMUCH_CONFIG_EXCLUDE_TAGS] = "search.exclude_tags",
        [NOTMUCH_CONFIG_NEW_TAGS] = "new.tags",
        [NOTMUCH_CONFIG_NEW_IGNORE] = "new.ignore",
        [NOTMUCH_CONFIG_SYNC_MAILDIR_FLAGS] = "maildir.synchronize_flags",
        [NOTMUCH_CONFIG_PRIMARY_EMAIL] = "user.primary_email",
        [NOTMUCH_CONFIG_OTHER_EMAIL] = "user.other_email",
        [NOTMUCH_CONFIG_USER_NAME] = "user.name",
        [NOTMUCH_CONFIG_AUTOCOMMIT] = "database.autocommit",
        [NOTMUCH_CONFIG_EXTRA_HEADERS] = "show.extra_headers",
    };

    return (unsigned) key < NOTMUCH_CONFIG_LAST ? names[key] : NULL;
}

/* The user's name and address as notmuch guesses them: $NAME, else the passwd entry's full name (up to
 * its first comma); $EMAIL, else <login>@localhost. */
static char *passwd_field(void *ctx, bool name)
{
    struct passwd *pw = getpwuid(getuid());
    const char *value = pw ? (name ? pw->pw_gecos : pw->pw_name) : "";

    if (name)
        return talloc_strndup(ctx, value, strcspn(value, ","));
    return talloc_asprintf(ctx, "%s@localhost", value);
}

static char *default_value(void *ctx, notmuch_database_t *db, notmuch_config_key_t key)
{
    const char *env;

    switch (key) {
    case NOTMUCH_CONFIG_DATABASE_PATH:
        env = getenv("MAILDIR");
        return env ? talloc_strdup(ctx, env) : talloc_asprintf(ctx, "%s/mail", getenv("HOME"));
    case NOTMUCH_CONFIG_MAIL_ROOT:
        return talloc_strdup(ctx, db->path);
    case NOTMUCH_CONFIG_EXCLUDE_TAGS:
    case NOTMUCH_CONFIG_NEW_IGNORE:
        return talloc_strdup(ctx, "");
    case NOTMUCH_CONFIG_NEW_TAGS:
        return talloc_strdup(ctx, "unread;inbox");
    case NOTMUCH_CONFIG_SYNC_MAILDIR_FLAGS:
        return talloc_strdup(ctx, "true");
    case NOTMUCH_CONFIG_USER_NAME:
        env = getenv("NAME");
        return env ? talloc_strdup(ctx, env) : passwd_field(ctx, true);
    case NOTMUCH_CONFIG_PRIMARY_EMAIL:
        env = getenv("EMAIL");
        return env ? talloc_strdup(ctx, env) : passwd_field(ctx, false);
    case NOTMUCH_CONFIG_AUTOCOMMIT:
        return talloc_strdup(ctx, "8000");
    default:
        return NULL;
    }
}

notmuch_status_t nm_config_defaults(notmuch_database_t *db)
{
    notmuch_status_t st = NOTMUCH_STATUS_SUCCESS;

    for (notmuch_config_key_t key = NOTMUCH_CONFIG_FIRST; key < NOTMUCH_CONFIG_LAST; key++) {
        const char *name = nm_config_key_name(key);
        char *value;
        if (nm_map_get(db->config, name))
            continue;
        if (key == NOTMUCH_CONFIG_MAIL_ROOT && (db->params & NM_PARAM_SPLIT))
            st = NOTMUCH_STATUS_NO_MAIL_ROOT;
        value = default_value(db, db, key);
        nm_map_set(db->config, name, value);
        talloc_free(value);
    }
    return st;
}
